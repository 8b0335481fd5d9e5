// The result cache of cacheable tools: ok results kept in the store's "tool_result" scope (TTL and
// size limits are the store's), keyed by workspace, tool and canonical arguments, so an identical
// call in any run or process of the same workspace is answered without running the tool again.
//
// Thread-safety: the Store is internally synchronised; a ToolResultCache holds no other state.
#pragma once

#include <optional>
#include <string>

#include "keel/message.hpp"
#include "keel/store/store.hpp"
#include "keel/tool_spec.hpp"

namespace keel::detail {

class ToolResultCache {
 public:
  // `store` may be nullptr (nothing is cached); otherwise it must outlive the cache.
  ToolResultCache(Store* store, std::string workspace) : store_(store), workspace_(std::move(workspace)) {}

  // The key of `call` when its tool is cacheable and there is a store; empty otherwise.
  std::string key(const ToolCall& call, const ToolSpec& spec) const;
  // A stored result for `key` (non-empty): status ok, cached true, duration 0. nullopt on a miss or
  // a store error (a cache never fails a call).
  std::optional<ToolResult> get(const std::string& key, const ToolCall& call) const;
  // Keeps `result` under `key` when the key is non-empty and the result is ok. A failed write only
  // costs a miss later.
  void put(const std::string& key, const ToolResult& result) const;

 private:
  Store* store_;
  std::string workspace_;
};

}  // namespace keel::detail
