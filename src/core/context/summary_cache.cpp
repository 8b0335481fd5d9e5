#include "core/context/summary_cache.hpp"

#include <algorithm>

namespace keel::detail {
namespace {

constexpr uint64_t kFnvOffset = 1469598103934665603ULL;
constexpr uint64_t kFnvPrime = 1099511628211ULL;

void mix_byte(uint64_t& h, unsigned char b) {
  h = (h ^ b) * kFnvPrime;
}

void mix_size(uint64_t& h, size_t n) {
  for (int i = 0; i < 8; ++i) mix_byte(h, static_cast<unsigned char>((static_cast<uint64_t>(n) >> (8 * i)) & 0xFF));
}

void mix_text(uint64_t& h, std::string_view s) {
  mix_size(h, s.size());
  for (char c : s) mix_byte(h, static_cast<unsigned char>(c));
}

}  // namespace

uint64_t span_hash(std::span<const Message> span) {
  uint64_t h = kFnvOffset;
  mix_size(h, span.size());
  for (const Message& m : span) {
    mix_byte(h, static_cast<unsigned char>(m.role));
    mix_text(h, m.content);
    mix_size(h, m.tool_calls.size());
    for (const ToolCall& c : m.tool_calls) {
      mix_text(h, c.id);
      mix_text(h, c.name);
      mix_text(h, c.arguments);
    }
  }
  return h;
}

std::string summary_cache_key(uint64_t span_hash) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string key(16, '0');
  for (int i = 15; i >= 0; --i, span_hash >>= 4) key[static_cast<size_t>(i)] = kHex[span_hash & 0xF];
  return key;
}

std::optional<std::string> SummaryCache::find(uint64_t hash) const {
  auto it =
      std::find_if(entries_.begin(), entries_.end(), [&](const SummaryCacheEntry& e) { return e.span_hash == hash; });
  if (it == entries_.end()) return std::nullopt;
  return it->summary;
}

void SummaryCache::put(uint64_t hash, std::string summary) {
  if (capacity_ == 0) return;
  entries_.erase(
      std::remove_if(entries_.begin(), entries_.end(), [&](const SummaryCacheEntry& e) { return e.span_hash == hash; }),
      entries_.end());
  entries_.push_back({hash, std::move(summary)});
  if (entries_.size() > capacity_) {
    entries_.erase(entries_.begin(), entries_.begin() + static_cast<std::ptrdiff_t>(entries_.size() - capacity_));
  }
}

}  // namespace keel::detail
