// keel/core/context_manager.hpp — the context pipeline: keeps the agent's working history under
// the model's context window, without blocking and without ever leaving an invalid history.
//
// After every tool phase the host (or AgentMachine) calls compact() on the working history. The
// stages, cheapest first, stop as soon as the history fits (total <= context_window * threshold):
//   1. accounting    per-message token counts (TokenCounter), cached between calls;
//   2. result budget tool results over policy.result_char_budget are cut (detail::apply_result_budget);
//   3. microcompact  tool results older than the last `recency_rounds` tool rounds become one-line
//                    digests "[tool → first line…]" (no model call; once per message);
//   4. summary       the older history (earlier runs' messages before a tagged task when there are
//                    at least two, else those between the task and the recency window) is replaced by
//                    one summary message written by the model: the host makes that call (compact()
//                    returns the request) and hands the text back to apply_summary(), or reports
//                    failure with summary_failed(); a cache keyed by the span's hash skips the call;
//   5. tail fallback the oldest tool blocks, then old plain messages, are dropped; as a last resort the
//                    results of the last round are cut. Always returns a valid history.
//
//   keel::ContextManager cm({.context_window = 32768});
//   keel::CompactionStep step = cm.compact(history, tools, round);
//   if (step.summary_needed()) {
//     Result<std::string> text = call_model(step.summary->messages);    // the host's I/O
//     report = text.ok() ? cm.apply_summary(history, *text, round)
//                        : cm.summary_failed(history, text.status().message(), round);
//   }
//
// History layout it relies on (AgentMachine's): a system prompt at index 0; the protected task is
// the last user message with metadata["kind"]=="task", else the first user message that is not a
// summary; an assistant message with tool_calls is followed by the tool messages answering it (a
// "tool round"); tool messages carry metadata["status"] ("ok", "error", ...). Never removed or
// rewritten: index 0 when it is a system message, the task, and the last round (the last assistant
// message and everything after it; its tool results may only be cut by the last-resort budget).
// A tool block is always dropped or summarized whole: no orphaned tool message, no unanswered call.
//
// Metadata the pipeline sets: digests metadata["compacted"]="digest" (other keys are kept); cut
// results ["truncated"]="true"; the summary message (Role::kUser, content "[Summary of earlier
// conversation]\n...") ["kind"]="summary", ["compacted"]="summary", ["summarized_messages"].
//
// Performance contract: the manager keeps per-message token counts aligned with the history it
// last saw and counts only messages appended since. Between calls the caller may only APPEND to
// the history; any other edit (a hook replacing it, a resume) must be followed by invalidate().
// A cheap check of the first and last known messages falls back to a full recount when it spots
// a violation, but cannot catch every in-place edit. measure() on some other sequence of messages
// recounts it; use count_breakdown() for one-off measurements instead.
//
// Thread-safety: ContextManager is not thread-safe; use one per run, from the thread driving it.
// Plain structs are values.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "keel/core/token_counter.hpp"
#include "keel/message.hpp"
#include "keel/tool_spec.hpp"

namespace keel {

struct ContextPolicy {
  // The model's context window in tokens. 0 = unknown: accounting and the result budget still run,
  // stages 3-5 do nothing.
  size_t context_window = 0;
  // Fraction of the window the history (messages + tool definitions) may fill before compaction
  // starts, in (0, 1]; the rest is headroom for the continuation prompt and the reply. Values
  // outside (0, 1] mean 0.8.
  double threshold = 0.8;
  // Tool rounds (an assistant call plus its results) at the end of the history kept verbatim. >= 0.
  int recency_rounds = 2;
  // After a summary attempt at round r (success, cache hit or failure), the summary stage is
  // skipped (straight to the tail fallback) before round r + summary_cooldown_rounds. Rounds are
  // the `round` arguments the caller passes. >= 0.
  int summary_cooldown_rounds = 3;
  // Longest key output of a digest, in code points, before it is cut at a word boundary with "…".
  size_t digest_chars = 120;
  // true: tool results are digested as soon as they leave the recency window. false: only while
  // the history is over the threshold, oldest first, until it fits.
  bool microcompact_always = true;
  // Summaries remembered by span hash (a repeated span reuses its summary without a model call);
  // the oldest entry is evicted first. 0 disables the cache.
  size_t summary_cache_entries = 16;
  // Largest tool result kept, in bytes of UTF-8; longer ones are cut at a line or sentence boundary
  // with a size note. 0: no cut here (AgentMachine already applies AgentConfig::result_char_budget
  // when it records a result; set this when results reach the history another way).
  size_t result_char_budget = 0;
  // The system prompt of the summary request. Empty: default_summarize_prompt() (the same text as
  // prompts/summarize.md in the source tree; hosts may load an edited copy into this field).
  std::string summarize_prompt;
};

// keel's summarize prompt (the same text as prompts/summarize.md).
std::string default_summarize_prompt();

enum class CompactionStage {
  kResultBudget,   // tool results cut to a byte budget
  kMicrocompact,   // old tool results digested
  kSummary,        // older history replaced by a model-written summary
  kCachedSummary,  // ... by a summary from the cache, without a model call
  kTailFallback,   // oldest blocks/messages dropped
};

// "result_budget", "microcompact", "summary", "cached_summary", "tail_fallback".
std::string_view compaction_stage_name(CompactionStage stage);

// What one compaction step did. All counts are of this step only.
struct CompactionReport {
  std::vector<CompactionStage> stages;  // each stage that changed something, once, in pipeline order
  size_t limit = 0;                     // context_window * threshold; 0 when the window is unknown
  size_t tokens_before = 0;             // messages + tool definitions, before this step
  size_t tokens_after = 0;              // ... after it
  size_t results_truncated = 0;         // tool results cut to a byte budget
  size_t messages_digested = 0;         // tool results replaced by digests
  size_t messages_summarized = 0;       // messages replaced by the summary
  size_t messages_dropped = 0;          // messages removed by the tail fallback
  size_t tool_blocks_dropped = 0;       // ... of which whole tool blocks
  bool still_over_limit = false;        // nothing more could be removed; history still valid
  std::string summary_error;            // why a summary was skipped, failed or discarded; else empty
  // Call ids whose full result left the context in this step (digested, summarized or dropped),
  // e.g. to let a duplicate-call guard allow re-reading them.
  std::vector<std::string> released_call_ids;
  // One sentence for the next continuation prompt, e.g. "Context compacted: 12 old tool results
  // digested, 3 tool blocks dropped; re-read anything you need." Empty when nothing changed.
  std::string note;
};

// The model call the host must make to summarize part of the history.
struct SummaryRequest {
  // Send these as the whole conversation, without tools: a system message (the summarize prompt)
  // and a user message rendering the span as compact text. The reply's text is the summary.
  std::vector<Message> messages;
  size_t span_begin = 0;   // first history index the summary will replace
  size_t span_end = 0;     // one past the last
  uint64_t span_hash = 0;  // FNV-1a of the span's roles, contents and calls (the cache key)
};

struct CompactionStep {
  // Set: call the model with summary->messages, then apply_summary() or summary_failed(); the
  // history must not change in between. Unset: the step is done and `report` is final.
  std::optional<SummaryRequest> summary;
  CompactionReport report;  // the stages applied so far
  bool summary_needed() const { return summary.has_value(); }
};

// One remembered summary, for hosts that persist the cache across runs.
struct SummaryCacheEntry {
  uint64_t span_hash = 0;
  std::string summary;  // the model's text, without the "[Summary of earlier conversation]" header
};

class ContextManager {
 public:
  // `counter` is shared read-only state; nullptr uses EstimatingTokenCounter with default options.
  explicit ContextManager(ContextPolicy policy, std::shared_ptr<const TokenCounter> counter = nullptr);
  ~ContextManager();
  ContextManager(ContextManager&&) noexcept;
  ContextManager& operator=(ContextManager&&) noexcept;

  // Tokens of the history plus the tool definitions, by category. Counts only messages appended
  // since the last call (see the performance contract above).
  TokenBreakdown measure(std::span<const Message> history, std::span<const ToolSpec> tools);

  // Runs stages 2-5 on `history` in place. Either finishes (the report is final) or stops at the
  // summary stage with a request. `round` is the caller's tool-round counter (cooldown clock).
  // A pending summary request not yet answered is abandoned.
  CompactionStep compact(std::vector<Message>& history, std::span<const ToolSpec> tools, int round);

  // Finishes a step that asked for a summary: replaces the span with one summary message (when
  // the history still holds that span and the text is not empty; otherwise the summary is
  // discarded and report.summary_error says why), remembers it in the cache, then runs the tail
  // fallback if still over. Without a pending request it just runs the fallback.
  CompactionReport apply_summary(std::vector<Message>& history, std::string_view summary_text, int round);
  // Finishes a step whose summary call failed (`why` goes to report.summary_error): tail fallback.
  // The cooldown starts as after a success, so a failing model is not asked every round.
  CompactionReport summary_failed(std::vector<Message>& history, std::string_view why, int round);

  // Forgets the cached token counts; call after editing the history other than by appending. A
  // pending summary request stays pending (apply_summary() checks that its span is unchanged).
  void invalidate();

  // The summary cache, oldest first, for persistence; import appends (evicting the oldest).
  std::vector<SummaryCacheEntry> export_summary_cache() const;
  void import_summary_cache(std::span<const SummaryCacheEntry> entries);

  const ContextPolicy& policy() const;
  const TokenCounter& counter() const;

 private:
  struct State;
  std::unique_ptr<State> s_;
};

}  // namespace keel
