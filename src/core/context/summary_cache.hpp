// Summaries remembered by the hash of the span they replaced, so that summarizing the same span
// again (a replayed or resumed run) costs no model call.
//
// Thread-safety: SummaryCache is not thread-safe (owned by one ContextManager).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "keel/core/context_manager.hpp"
#include "keel/message.hpp"

namespace keel::detail {

// 64-bit FNV-1a over each message's role, content and tool calls (id, name, arguments), every
// field length-prefixed so that different splits of the same bytes hash differently.
uint64_t span_hash(std::span<const Message> span);

// Where hosts keep summaries across runs (Summarize::cache_scope), and the key of one span there:
// its hash as 16 lowercase hex digits (Summarize::cache_key).
inline constexpr std::string_view kSummaryCacheScope = "context_summary";
std::string summary_cache_key(uint64_t span_hash);

class SummaryCache {
 public:
  explicit SummaryCache(size_t capacity) : capacity_(capacity) {}

  // The summary stored for `hash`, if any.
  std::optional<std::string> find(uint64_t hash) const;
  // Stores (or refreshes) an entry as the newest; evicts the oldest beyond the capacity.
  void put(uint64_t hash, std::string summary);

  // Oldest first.
  const std::vector<SummaryCacheEntry>& entries() const { return entries_; }

 private:
  size_t capacity_;
  std::vector<SummaryCacheEntry> entries_;  // oldest first; small, so a linear search is fine
};

}  // namespace keel::detail
