#include "runtime/tool_cache.hpp"

#include <nlohmann/json.hpp>

namespace keel::detail {
namespace {
constexpr const char* kScope = "tool_result";
}  // namespace

std::string ToolResultCache::key(const ToolCall& call, const ToolSpec& spec) const {
  if (store_ == nullptr || !spec.cacheable) return {};
  nlohmann::json args = nlohmann::json::parse(call.arguments, nullptr, false);
  return workspace_ + "\n" + call.name + "\n" + (args.is_discarded() ? call.arguments : args.dump());
}

std::optional<ToolResult> ToolResultCache::get(const std::string& key, const ToolCall& call) const {
  if (store_ == nullptr || key.empty()) return std::nullopt;
  Result<std::optional<std::string>> hit = store_->cache_get(kScope, key);
  if (!hit.ok() || !hit->has_value()) return std::nullopt;
  ToolResult r;
  r.call_id = call.id;
  r.name = call.name;
  r.status = ToolStatus::kOk;
  r.content = std::move(**hit);
  r.cached = true;
  return r;
}

void ToolResultCache::put(const std::string& key, const ToolResult& result) const {
  if (store_ == nullptr || key.empty() || !result.ok()) return;
  (void)store_->cache_put(kScope, key, result.content);
}

}  // namespace keel::detail
