#include "keel/core/context_manager.hpp"

#include <algorithm>
#include <vector>

#include "core/context/microcompact_digest.hpp"
#include "core/context/history_layout.hpp"
#include "core/context/report_stages.hpp"
#include "core/context/summary_cache.hpp"
#include "core/context/summary_request.hpp"
#include "core/context/tail_fallback.hpp"
#include "core/context/token_ledger.hpp"
#include "core/guards/result_budget.hpp"
#include "core/text/text_util.hpp"

namespace keel {

std::string_view compaction_stage_name(CompactionStage stage) {
  switch (stage) {
    case CompactionStage::kResultBudget:
      return "result_budget";
    case CompactionStage::kMicrocompact:
      return "microcompact";
    case CompactionStage::kSummary:
      return "summary";
    case CompactionStage::kCachedSummary:
      return "cached_summary";
    case CompactionStage::kTailFallback:
      return "tail_fallback";
  }
  return "unknown";
}

namespace {

ContextPolicy normalized(ContextPolicy p) {
  if (!(p.threshold > 0.0 && p.threshold <= 1.0)) p.threshold = ContextPolicy{}.threshold;
  p.recency_rounds = std::max(0, p.recency_rounds);
  p.summary_cooldown_rounds = std::max(0, p.summary_cooldown_rounds);
  return p;
}

std::string plural(size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

std::string make_note(const CompactionReport& r, size_t plain_dropped) {
  std::vector<std::string> parts;
  if (r.results_truncated > 0)
    parts.push_back(plural(r.results_truncated, "tool result cut", "tool results cut") + " to fit");
  if (r.messages_digested > 0)
    parts.push_back(plural(r.messages_digested, "old tool result", "old tool results") + " digested");
  if (r.messages_summarized > 0)
    parts.push_back(plural(r.messages_summarized, "earlier message", "earlier messages") + " summarized");
  if (r.tool_blocks_dropped > 0)
    parts.push_back(plural(r.tool_blocks_dropped, "tool block", "tool blocks") + " dropped");
  if (plain_dropped > 0) parts.push_back(plural(plain_dropped, "older message", "older messages") + " dropped");
  if (parts.empty()) return {};
  std::string note = "Context compacted: ";
  for (size_t i = 0; i < parts.size(); ++i) note += (i == 0 ? "" : ", ") + parts[i];
  return note + "; re-read anything you need.";
}

}  // namespace

struct ContextManager::State {
  State(ContextPolicy p, std::shared_ptr<const TokenCounter> c)
      : policy(normalized(std::move(p))),
        counter(c ? std::move(c) : std::make_shared<EstimatingTokenCounter>()),
        ledger(*counter),
        cache(policy.summary_cache_entries) {}

  // A summary request handed out and not yet answered.
  struct Pending {
    size_t begin = 0;
    size_t end = 0;
    uint64_t hash = 0;
    size_t history_size = 0;
    CompactionReport report;
  };

  ContextPolicy policy;
  std::shared_ptr<const TokenCounter> counter;
  detail::TokenLedger ledger;
  detail::SummaryCache cache;
  std::vector<ToolSpec> counted_tools;  // what tool_tokens was counted from
  size_t tool_tokens = 0;       // tool definitions, as of the last compact() or measure()
  size_t digest_scan_from = 0;  // every tool result before this index is digested (always mode)
  size_t counted_from = 0;      // the first message the current compact() counted
  bool summarized = false;      // a summary was attempted at last_summary_round
  int last_summary_round = 0;
  std::optional<Pending> pending;

  size_t limit() const { return static_cast<size_t>(static_cast<double>(policy.context_window) * policy.threshold); }
  size_t total() const { return ledger.total() + tool_tokens; }
  bool over() const { return policy.context_window > 0 && total() > limit(); }

  void sync(std::span<const Message> history) {
    if (ledger.sync(history) == 0) digest_scan_from = 0;
  }

  // The tools are the same every round of a run: they are counted again only when they change
  // (comparing their texts costs far less than counting their tokens).
  void count_tools(std::span<const ToolSpec> tools) {
    if (std::equal(tools.begin(), tools.end(), counted_tools.begin(), counted_tools.end(), same_definition)) return;
    tool_tokens = 0;
    for (const ToolSpec& t : tools) tool_tokens += counter->count_tool(t);
    counted_tools.assign(tools.begin(), tools.end());
  }

  // Stage 2: results over the byte budget, not cut before.
  void budget_results(std::vector<Message>& history, CompactionReport& r) {
    size_t budget = policy.result_char_budget;
    if (budget == 0) return;
    for (size_t i = 0; i < history.size(); ++i) {
      Message& m = history[i];
      if (m.role != Role::kTool || m.content.size() <= budget || detail::is_compacted(m)) continue;
      auto t = m.metadata.find("truncated");
      if (t != m.metadata.end() && t->second == "true") continue;
      if (!detail::apply_result_budget(m.content, budget)) continue;
      m.metadata["truncated"] = "true";
      ledger.recount(history, i);
      ++r.results_truncated;
      detail::add_stage(r, CompactionStage::kResultBudget);
    }
  }

  // Digests message i when it is an undigested tool result; returns the tokens it saved.
  int64_t digest_at(std::vector<Message>& history, size_t i, CompactionReport& r) {
    size_t before = ledger.at(i);
    if (!detail::digest_message(history[i], policy.digest_chars)) return 0;
    ledger.recount(history, i);
    ++r.messages_digested;
    if (!history[i].tool_call_id.empty()) r.released_call_ids.push_back(history[i].tool_call_id);
    detail::add_stage(r, CompactionStage::kMicrocompact);
    return static_cast<int64_t>(before) - static_cast<int64_t>(ledger.at(i));
  }

  // Stage 1, fused with stage 3 in always mode: counts the messages appended since the last call
  // and digests those already outside the recency window while they are in cache (a cold pass
  // over a resumed history digests tens of thousands). Returns tokens_before.
  size_t count_appended(std::vector<Message>& history, CompactionReport& r) {
    size_t from = ledger.validate(history);
    if (from == 0) digest_scan_from = 0;
    counted_from = from;
    bool fuse = policy.context_window > 0 && policy.microcompact_always;
    detail::HistoryLayout l = fuse ? detail::find_layout(history, policy.recency_rounds) : detail::HistoryLayout{};
    int64_t saved = 0;
    for (size_t i = from; i < history.size(); ++i) {
      ledger.append(history, i);
      if (fuse && i >= l.first && i < l.recency_start && history[i].role == Role::kTool)
        saved += digest_at(history, i, r);
    }
    return static_cast<size_t>(static_cast<int64_t>(total()) + saved);
  }

  // Stage 3: digests of tool results older than the recency window (those count_appended() did
  // not already see).
  void microcompact(std::vector<Message>& history, CompactionReport& r) {
    if (!policy.microcompact_always && !over()) return;
    detail::HistoryLayout l = detail::find_layout(history, policy.recency_rounds);
    size_t from = policy.microcompact_always ? std::max(l.first, digest_scan_from) : l.first;
    size_t to = policy.microcompact_always ? std::min(l.recency_start, counted_from) : l.recency_start;
    for (size_t i = from; i < to; ++i) {
      if (!policy.microcompact_always && !over()) return;
      if (history[i].role == Role::kTool) (void)digest_at(history, i, r);
    }
    if (policy.microcompact_always) digest_scan_from = std::max(digest_scan_from, l.recency_start);
  }

  // Replaces [begin, end) by one summary message.
  void replace_span(std::vector<Message>& history, size_t begin, size_t end, std::string_view text,
                    CompactionReport& r) {
    for (size_t i = begin; i < end; ++i) {
      const Message& m = history[i];
      if (m.role == Role::kTool && !detail::is_compacted(m) && !m.tool_call_id.empty()) {
        r.released_call_ids.push_back(m.tool_call_id);
      }
    }
    history[begin] = detail::make_summary_message(text, end - begin);
    history.erase(history.begin() + static_cast<std::ptrdiff_t>(begin) + 1,
                  history.begin() + static_cast<std::ptrdiff_t>(end));
    ledger.replace_range(history, begin, end);
    digest_scan_from = 0;
    r.messages_summarized += end - begin;
  }

  // Tokens the rendered span may take in a summary request: the limit (or 7/8 of the window,
  // whichever is smaller, so the reply has room) less the prompt and message overheads.
  size_t summary_input_budget(std::string_view prompt) const {
    size_t window = policy.context_window;
    size_t room = std::min(limit(), window - window / 8);
    size_t fixed = counter->count(prompt) + 2 * counter->per_message_overhead() + 32;
    return room > fixed ? room - fixed : 0;
  }

  std::string prompt() const {
    return policy.summarize_prompt.empty() ? default_summarize_prompt() : policy.summarize_prompt;
  }

  // Stage 5 when still over, then the final figures and the note.
  CompactionReport finish(std::vector<Message>& history, CompactionReport r) {
    size_t plain_dropped = 0;
    if (over()) {
      plain_dropped = detail::run_tail_fallback(history, ledger, tool_tokens, limit(), r);
      digest_scan_from = 0;
    }
    r.tokens_after = total();
    r.still_over_limit = over();
    r.note = make_note(r, plain_dropped);
    return r;
  }

  bool cooling_down(int round) const {
    return summarized && round - last_summary_round < policy.summary_cooldown_rounds;
  }
};

ContextManager::ContextManager(ContextPolicy policy, std::shared_ptr<const TokenCounter> counter)
    : s_(std::make_unique<State>(std::move(policy), std::move(counter))) {}
ContextManager::~ContextManager() = default;
ContextManager::ContextManager(ContextManager&&) noexcept = default;
ContextManager& ContextManager::operator=(ContextManager&&) noexcept = default;

const ContextPolicy& ContextManager::policy() const {
  return s_->policy;
}
const TokenCounter& ContextManager::counter() const {
  return *s_->counter;
}

TokenBreakdown ContextManager::measure(std::span<const Message> history, std::span<const ToolSpec> tools) {
  s_->sync(history);
  s_->count_tools(tools);
  TokenBreakdown b;
  b.system = s_->ledger.by_role(Role::kSystem);
  b.tools = s_->tool_tokens;
  b.user = s_->ledger.by_role(Role::kUser);
  b.assistant = s_->ledger.by_role(Role::kAssistant);
  b.tool_results = s_->ledger.by_role(Role::kTool);
  return b;
}

CompactionStep ContextManager::compact(std::vector<Message>& history, std::span<const ToolSpec> tools, int round) {
  State& s = *s_;
  s.pending.reset();
  s.count_tools(tools);
  CompactionStep step;
  CompactionReport& r = step.report;
  r.tokens_before = s.count_appended(history, r);
  r.limit = s.limit();
  s.budget_results(history, r);
  if (s.policy.context_window == 0) {
    step.report = s.finish(history, std::move(r));
    return step;
  }
  s.microcompact(history, r);
  if (s.over()) {
    if (s.cooling_down(round)) {
      r.summary_error = "a summary was attempted at round " + std::to_string(s.last_summary_round) + " (cooldown of " +
                        std::to_string(s.policy.summary_cooldown_rounds) + " rounds)";
    } else {
      detail::HistoryLayout layout = detail::find_layout(history, s.policy.recency_rounds);
      std::string prompt = s.prompt();
      Result<SummaryRequest> plan =
          detail::plan_summary(history, layout, *s.counter, prompt, s.summary_input_budget(prompt));
      if (!plan.ok()) {
        r.summary_error = plan.status().message();
      } else if (std::optional<std::string> cached = s.cache.find(plan->span_hash)) {
        s.replace_span(history, plan->span_begin, plan->span_end, *cached, r);
        detail::add_stage(r, CompactionStage::kCachedSummary);
        s.summarized = true;
        s.last_summary_round = round;
      } else {
        s.pending = State::Pending{plan->span_begin, plan->span_end, plan->span_hash, history.size(), r};
        step.summary = std::move(*plan);
        return step;
      }
    }
  }
  step.report = s.finish(history, std::move(r));
  return step;
}

CompactionReport ContextManager::apply_summary(std::vector<Message>& history, std::string_view summary_text,
                                               int round) {
  State& s = *s_;
  if (!s.pending) {
    s.sync(history);
    CompactionReport r;
    r.tokens_before = s.total();
    r.limit = s.limit();
    r.summary_error = "no summary was requested";
    return s.finish(history, std::move(r));
  }
  State::Pending p = std::move(*s.pending);
  s.pending.reset();
  s.summarized = true;
  s.last_summary_round = round;
  CompactionReport r = std::move(p.report);
  std::string text(detail::trim(summary_text));
  bool same = history.size() == p.history_size && p.end <= history.size() &&
              detail::span_hash(std::span<const Message>(history).subspan(p.begin, p.end - p.begin)) == p.hash;
  s.sync(history);
  if (!same) {
    r.summary_error = "the history changed while the summary was being written; the summary was discarded";
  } else if (text.empty()) {
    r.summary_error = "the model returned an empty summary";
  } else {
    s.cache.put(p.hash, text);
    s.replace_span(history, p.begin, p.end, text, r);
    detail::add_stage(r, CompactionStage::kSummary);
  }
  return s.finish(history, std::move(r));
}

CompactionReport ContextManager::summary_failed(std::vector<Message>& history, std::string_view why, int round) {
  State& s = *s_;
  CompactionReport r;
  if (s.pending) {
    r = std::move(s.pending->report);
    s.pending.reset();
    s.summarized = true;
    s.last_summary_round = round;
  } else {
    r.limit = s.limit();
  }
  s.sync(history);
  if (r.tokens_before == 0) r.tokens_before = s.total();
  r.summary_error = "the summary call failed: " + std::string(why);
  return s.finish(history, std::move(r));
}

void ContextManager::invalidate() {
  s_->ledger.reset();
  s_->digest_scan_from = 0;
}

std::vector<SummaryCacheEntry> ContextManager::export_summary_cache() const {
  return s_->cache.entries();
}

void ContextManager::import_summary_cache(std::span<const SummaryCacheEntry> entries) {
  for (const SummaryCacheEntry& e : entries) s_->cache.put(e.span_hash, e.summary);
}

}  // namespace keel
