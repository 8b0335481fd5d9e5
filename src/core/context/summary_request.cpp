#include "core/context/summary_request.hpp"

#include <algorithm>

#include "core/context/summary_cache.hpp"
#include "core/context/text_cut.hpp"

namespace keel::detail {
namespace {

// A long message is rendered by its start: the summary needs the gist, and the budget is shared.
constexpr size_t kRenderChars = 2000;
constexpr size_t kRenderArgumentChars = 300;

std::string status_of(const Message& m) {
  auto it = m.metadata.find("status");
  return it == m.metadata.end() ? "ok" : it->second;
}

std::string render(const Message& m) {
  switch (m.role) {
    case Role::kSystem:
      return "[system] " + cut_at_word(m.content, kRenderChars);
    case Role::kUser: {
      if (!is_summary(m)) return "[user] " + cut_at_word(m.content, kRenderChars);
      std::string_view text = m.content;
      if (text.substr(0, kSummaryHeader.size()) == kSummaryHeader) text.remove_prefix(kSummaryHeader.size());
      return "[earlier summary] " + std::string(text);
    }
    case Role::kAssistant: {
      std::string out = "[assistant]";
      if (!m.content.empty()) out += " " + cut_at_word(m.content, kRenderChars);
      for (const ToolCall& c : m.tool_calls)
        out += "\n-> call " + c.name + " " + cut_at_word(c.arguments, kRenderArgumentChars);
      return out;
    }
    case Role::kTool: {
      std::string status = status_of(m);
      std::string head = "[result of " + (m.name.empty() ? std::string("tool") : m.name);
      if (status != "ok") head += ", " + status;
      return head + "] " + cut_at_word(m.content, kRenderChars);
    }
  }
  return {};
}

struct Range {
  size_t begin = 0;
  size_t end = 0;
  size_t size() const { return end > begin ? end - begin : 0; }
};

// Earlier runs (between the system prompt and the task) first, when there are at least two
// messages; else the current run's older part.
Range choose_range(const HistoryLayout& l) {
  if (l.task != kNoIndex && l.task >= l.first + 2) return {l.first, l.task};
  Range r;
  r.begin = l.task == kNoIndex ? l.first : l.task + 1;
  r.end = std::min({l.recency_start, l.last_round_start, l.size});
  return r;
}

}  // namespace

Result<SummaryRequest> plan_summary(std::span<const Message> history, const HistoryLayout& layout,
                                    const TokenCounter& counter, std::string_view prompt, size_t input_budget) {
  Range range = choose_range(layout);
  if (range.size() < 2) {
    return Status::FailedPrecondition("fewer than 2 unprotected messages outside the recency window to summarize");
  }
  std::vector<std::string> pieces;
  size_t used = 0;
  size_t end = range.begin;
  for (; end < range.end; ++end) {
    std::string piece = render(history[end]);
    size_t cost = counter.count(piece) + 1;
    if (used + cost > input_budget) break;
    used += cost;
    pieces.push_back(std::move(piece));
  }
  // Never split a tool block: the span must not end right before one of its results.
  while (end > range.begin && end < history.size() && history[end].role == Role::kTool) --end;
  if (end - range.begin < 2) {
    return Status::FailedPrecondition("the older history does not fit in a summary request of " +
                                      std::to_string(input_budget) + " tokens");
  }
  size_t covered = end - range.begin;
  std::string body = "Summarize this earlier part of the conversation (" + std::to_string(covered) + " messages):\n";
  for (size_t i = 0; i < covered; ++i) body += "\n" + pieces[i] + "\n";

  SummaryRequest req;
  req.messages.push_back(Message::system(std::string(prompt)));
  req.messages.push_back(Message::user(std::move(body)));
  req.span_begin = range.begin;
  req.span_end = end;
  req.span_hash = span_hash(history.subspan(range.begin, covered));
  return req;
}

Message make_summary_message(std::string_view text, size_t covered) {
  Message m = Message::user(std::string(kSummaryHeader) + std::string(text));
  m.metadata["kind"] = "summary";
  m.metadata["compacted"] = "summary";
  m.metadata["summarized_messages"] = std::to_string(covered);
  return m;
}

}  // namespace keel::detail
