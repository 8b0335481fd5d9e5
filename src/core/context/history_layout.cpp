#include "core/context/history_layout.hpp"

namespace keel::detail {
namespace {

bool has_kind(const Message& m, const char* kind) {
  auto it = m.metadata.find("kind");
  return it != m.metadata.end() && it->second == kind;
}

}  // namespace

bool is_summary(const Message& m) {
  return m.role == Role::kUser && has_kind(m, "summary");
}

HistoryLayout find_layout(std::span<const Message> history, int recency_rounds) {
  HistoryLayout l;
  l.size = history.size();
  l.first = (!history.empty() && history[0].role == Role::kSystem) ? 1 : 0;
  size_t first_user = kNoIndex;
  size_t tagged_task = kNoIndex;
  size_t last_assistant = kNoIndex;
  for (size_t i = l.first; i < history.size(); ++i) {
    const Message& m = history[i];
    if (m.role == Role::kAssistant) {
      last_assistant = i;
    } else if (m.role == Role::kUser && !m.metadata.empty()) {
      if (has_kind(m, "task"))
        tagged_task = i;
      else if (first_user == kNoIndex && !has_kind(m, "summary"))
        first_user = i;
    } else if (m.role == Role::kUser && first_user == kNoIndex) {
      first_user = i;
    }
  }
  l.task = tagged_task != kNoIndex ? tagged_task : first_user;
  if (last_assistant != kNoIndex)
    l.last_round_start = last_assistant;
  else
    l.last_round_start = history.empty() ? 0 : history.size() - 1;

  if (recency_rounds <= 0) {
    l.recency_start = history.size();
  } else {
    l.recency_start = l.first;
    int rounds = 0;
    for (size_t i = history.size(); i > l.first; --i) {
      const Message& m = history[i - 1];
      if (m.role == Role::kAssistant && !m.tool_calls.empty() && ++rounds == recency_rounds) {
        l.recency_start = i - 1;
        break;
      }
    }
  }
  return l;
}

}  // namespace keel::detail
