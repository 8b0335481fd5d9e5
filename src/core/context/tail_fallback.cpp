#include "core/context/tail_fallback.hpp"

#include <algorithm>

#include "core/context/history_layout.hpp"
#include "core/context/microcompact_digest.hpp"
#include "core/context/report_stages.hpp"
#include "core/guards/result_budget.hpp"

namespace keel::detail {
namespace {

// What is left of a result cut as a last resort, at least, in bytes: enough to stay useful.
constexpr size_t kMinKeptBytes = 200;
// Room for the "[result truncated — original size: N chars]" note apply_result_budget adds.
constexpr size_t kNoteBytes = 64;

enum class UnitKind { kToolBlock, kPlain, kSummary };

struct Unit {
  size_t begin = 0;
  size_t end = 0;
  UnitKind kind = UnitKind::kPlain;
};

// Droppable units in drop order: tool blocks, then plain messages, then summaries; oldest first.
std::vector<Unit> droppable_units(const std::vector<Message>& history, const HistoryLayout& l) {
  std::vector<Unit> blocks, plain, summaries;
  size_t end = std::min(l.last_round_start, history.size());
  for (size_t i = l.first; i < end;) {
    if (i == l.task) {
      ++i;
      continue;
    }
    const Message& m = history[i];
    if (m.role == Role::kAssistant && !m.tool_calls.empty()) {
      size_t j = i + 1;
      while (j < end && history[j].role == Role::kTool) ++j;
      blocks.push_back({i, j, UnitKind::kToolBlock});
      i = j;
      continue;
    }
    (is_summary(m) ? summaries : plain).push_back({i, i + 1, is_summary(m) ? UnitKind::kSummary : UnitKind::kPlain});
    ++i;
  }
  blocks.insert(blocks.end(), plain.begin(), plain.end());
  blocks.insert(blocks.end(), summaries.begin(), summaries.end());
  return blocks;
}

// Cuts the last round's tool results, largest first, until the history fits or none is left.
void cut_last_round(std::vector<Message>& history, TokenLedger& ledger, size_t fixed_tokens, size_t limit,
                    size_t last_round_start, CompactionReport& report) {
  std::vector<size_t> results;
  for (size_t i = last_round_start; i < history.size(); ++i) {
    if (history[i].role == Role::kTool) results.push_back(i);
  }
  std::stable_sort(results.begin(), results.end(), [&](size_t a, size_t b) { return ledger.at(a) > ledger.at(b); });
  for (size_t i : results) {
    size_t total = ledger.total() + fixed_tokens;
    if (total <= limit) return;
    Message& m = history[i];
    size_t tokens = ledger.at(i);
    size_t excess = total - limit;
    size_t keep_tokens = tokens > excess ? tokens - excess : 0;
    size_t budget = static_cast<size_t>(static_cast<double>(m.content.size()) * static_cast<double>(keep_tokens) /
                                        static_cast<double>(std::max<size_t>(tokens, 1)));
    budget = std::max(budget > kNoteBytes ? budget - kNoteBytes : 0, kMinKeptBytes);
    if (!apply_result_budget(m.content, budget)) continue;
    m.metadata["truncated"] = "true";
    ledger.recount(history, i);
    ++report.results_truncated;
    add_stage(report, CompactionStage::kResultBudget);
  }
}

}  // namespace

size_t run_tail_fallback(std::vector<Message>& history, TokenLedger& ledger, size_t fixed_tokens, size_t limit,
                         CompactionReport& report) {
  HistoryLayout layout = find_layout(history, 0);
  size_t total = ledger.total() + fixed_tokens;
  std::vector<bool> keep(history.size(), true);
  size_t dropped = 0;
  size_t plain_dropped = 0;
  for (const Unit& u : droppable_units(history, layout)) {
    if (total <= limit) break;
    for (size_t i = u.begin; i < u.end; ++i) {
      keep[i] = false;
      total -= ledger.at(i);
      if (history[i].role == Role::kTool && !is_compacted(history[i]))
        report.released_call_ids.push_back(history[i].tool_call_id);
    }
    dropped += u.end - u.begin;
    if (u.kind == UnitKind::kToolBlock)
      ++report.tool_blocks_dropped;
    else
      plain_dropped += u.end - u.begin;
  }
  if (dropped > 0) {
    // Chat templates refuse a conversation whose first turn after the system prompt is not the
    // user's: what the drops left of the earlier turns starts with a user message, so an answer
    // (or a tool block) whose question was dropped goes too.
    const size_t bound = std::min({layout.task, layout.last_round_start, history.size()});
    for (size_t i = layout.first; i < bound; ++i) {
      if (!keep[i]) continue;
      if (history[i].role == Role::kUser) break;
      keep[i] = false;
      ++dropped;
      if (history[i].role == Role::kTool) {
        if (!is_compacted(history[i])) report.released_call_ids.push_back(history[i].tool_call_id);
      } else {
        ++plain_dropped;
      }
    }
    size_t w = 0;
    for (size_t r = 0; r < history.size(); ++r) {
      if (!keep[r]) continue;
      if (w != r) history[w] = std::move(history[r]);
      ++w;
    }
    history.resize(w);
    ledger.keep_only(history, keep);
    report.messages_dropped += dropped;
    add_stage(report, CompactionStage::kTailFallback);
  }
  // Every dropped message lay before the last round, so it moved down by exactly `dropped`.
  if (ledger.total() + fixed_tokens > limit) {
    cut_last_round(history, ledger, fixed_tokens, limit, layout.last_round_start - dropped, report);
  }
  return plain_dropped;
}

}  // namespace keel::detail
