#include "core/context/token_ledger.hpp"

#include <algorithm>

namespace keel::detail {

TokenLedger::Signature TokenLedger::signature(const Message& m) {
  Signature s;
  s.role = m.role;
  s.content_size = m.content.size();
  s.calls = m.tool_calls.size();
  uint64_t h = 1469598103934665603ULL;
  size_t n = std::min<size_t>(m.content.size(), 32);
  for (size_t i = 0; i < n; ++i) h = (h ^ static_cast<unsigned char>(m.content[i])) * 1099511628211ULL;
  s.head = h;
  return s;
}

void TokenLedger::reset() {
  counts_.clear();
  roles_.clear();
  by_role_ = {};
  total_ = 0;
}

void TokenLedger::add(const Message& m, size_t n) {
  counts_.push_back(n);
  roles_.push_back(m.role);
  by_role_[static_cast<size_t>(m.role)] += n;
  total_ += n;
}

void TokenLedger::remember(std::span<const Message> history) {
  if (history.empty()) return;
  first_ = signature(history.front());
  last_ = signature(history.back());
}

size_t TokenLedger::validate(std::span<const Message> history) {
  size_t known = counts_.size();
  if (known > history.size() ||
      (known > 0 && (signature(history.front()) != first_ || signature(history[known - 1]) != last_))) {
    reset();
    known = 0;
  }
  if (counts_.capacity() < history.size()) {  // geometric: the history grows a few messages a round
    size_t want = std::max(history.size(), 2 * counts_.capacity());
    counts_.reserve(want);
    roles_.reserve(want);
  }
  return known;
}

void TokenLedger::append(std::span<const Message> history, size_t i) {
  add(history[i], counter_->count_message(history[i]));
  if (i + 1 == history.size()) remember(history);
}

size_t TokenLedger::sync(std::span<const Message> history) {
  size_t known = validate(history);
  for (size_t i = known; i < history.size(); ++i) append(history, i);
  return known;
}

void TokenLedger::recount(std::span<const Message> history, size_t i) {
  size_t n = counter_->count_message(history[i]);
  size_t slot = static_cast<size_t>(roles_[i]);
  by_role_[slot] = by_role_[slot] - counts_[i];
  total_ -= counts_[i];
  counts_[i] = n;
  roles_[i] = history[i].role;
  by_role_[static_cast<size_t>(roles_[i])] += n;
  total_ += n;
  if (i == 0 || i + 1 == history.size()) remember(history);
}

void TokenLedger::replace_range(std::span<const Message> history, size_t begin, size_t end) {
  for (size_t i = begin; i < end; ++i) {
    by_role_[static_cast<size_t>(roles_[i])] -= counts_[i];
    total_ -= counts_[i];
  }
  counts_.erase(counts_.begin() + static_cast<std::ptrdiff_t>(begin) + 1,
                counts_.begin() + static_cast<std::ptrdiff_t>(end));
  roles_.erase(roles_.begin() + static_cast<std::ptrdiff_t>(begin) + 1,
               roles_.begin() + static_cast<std::ptrdiff_t>(end));
  counts_[begin] = counter_->count_message(history[begin]);
  roles_[begin] = history[begin].role;
  by_role_[static_cast<size_t>(roles_[begin])] += counts_[begin];
  total_ += counts_[begin];
  remember(history);
}

void TokenLedger::keep_only(std::span<const Message> history, const std::vector<bool>& keep) {
  size_t out = 0;
  for (size_t i = 0; i < counts_.size(); ++i) {
    if (keep[i]) {
      counts_[out] = counts_[i];
      roles_[out] = roles_[i];
      ++out;
    } else {
      by_role_[static_cast<size_t>(roles_[i])] -= counts_[i];
      total_ -= counts_[i];
    }
  }
  counts_.resize(out);
  roles_.resize(out);
  remember(history);
}

}  // namespace keel::detail
