// Per-message token counts kept aligned with a history that only grows between calls, so each
// pass counts only the appended messages. Edits made by the context pipeline itself go through
// recount(), replace_range() and keep_only(), which keep the ledger aligned.
//
// Thread-safety: not thread-safe (owned by one ContextManager).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "keel/core/token_counter.hpp"
#include "keel/message.hpp"

namespace keel::detail {

class TokenLedger {
 public:
  // `counter` must outlive the ledger.
  explicit TokenLedger(const TokenCounter& counter) : counter_(&counter) {}

  // Aligns the ledger with `history`: counts the messages appended since the last call, or all
  // of them when the known prefix no longer matches (shrunk, or first/last known message differs).
  // Returns the first index it counted (history.size() when nothing was new; 0 after a reset).
  size_t sync(std::span<const Message> history);
  // sync() in steps, for a caller that edits each appended message right after counting it (while
  // it is still in cache): validate() resets on a mismatch and returns the first index not yet
  // counted; append(history, i) then counts message i == size(), in order.
  size_t validate(std::span<const Message> history);
  void append(std::span<const Message> history, size_t i);
  // Forgets everything; the next sync() counts the whole history.
  void reset();

  size_t size() const { return counts_.size(); }
  size_t at(size_t i) const { return counts_[i]; }
  // Sum over all messages.
  size_t total() const { return total_; }
  // Sums by role (kSystem, kUser, kAssistant, kTool).
  size_t by_role(Role role) const { return by_role_[static_cast<size_t>(role)]; }

  // Message i of `history` changed in place (same role); counts it again.
  void recount(std::span<const Message> history, size_t i);
  // history[begin] now holds a replacement and [begin + 1, end) was erased from it.
  void replace_range(std::span<const Message> history, size_t begin, size_t end);
  // Messages with keep[i] == false were erased from the history (order kept).
  void keep_only(std::span<const Message> history, const std::vector<bool>& keep);

 private:
  struct Signature {
    Role role = Role::kUser;
    size_t content_size = 0;
    size_t calls = 0;
    uint64_t head = 0;  // hash of the first bytes of the content
    bool operator==(const Signature&) const = default;
  };
  static Signature signature(const Message& m);
  void remember(std::span<const Message> history);
  void add(const Message& m, size_t n);

  const TokenCounter* counter_;
  std::vector<size_t> counts_;
  std::vector<Role> roles_;
  std::array<size_t, 4> by_role_{};
  size_t total_ = 0;
  Signature first_;
  Signature last_;
};

}  // namespace keel::detail
