// The context pipeline inside the loop: before every model call the working history is measured
// and, when it no longer fits, compacted (digests, a model-written summary, tail fallback). Every
// compaction is a visible guard and a line of the next continuation prompt.
#include <algorithm>

#include "core/context/summary_cache.hpp"
#include "keel/core/agent_machine.hpp"

namespace keel {

Decision AgentMachine::next_model_call() {
  for (std::string& text : pending_guidance_) commit(Message::user(std::move(text)));
  pending_guidance_.clear();
  if (force_compaction_) {
    force_compaction_ = false;
    ContextPolicy forced = config_.context;
    double threshold = forced.threshold > 0 && forced.threshold <= 1 ? forced.threshold : 0.8;
    size_t now = context_.measure(history_, tools_).total();
    forced.context_window = std::max<size_t>(1, static_cast<size_t>(static_cast<double>(now / 2) / threshold));
    forced.microcompact_always = true;
    forced_context_.emplace(forced, config_.token_counter);
  }
  ContextManager& cm = forced_context_ ? *forced_context_ : context_;
  if (cm.policy().context_window == 0) return call_model();
  CompactionStep step = cm.compact(history_, tools_, rounds_used_);
  if (!step.summary_needed()) {
    note_compaction(std::move(step.report));
    return call_model();
  }
  pending_summary_ = std::move(step.summary);
  compaction_so_far_ = std::move(step.report);
  Summarize s;
  s.request.history = pending_summary_->messages;
  s.request.tools_enabled = false;
  s.request.round = model_calls_ + 1;
  s.messages = pending_summary_->span_end - pending_summary_->span_begin;
  s.span_hash = pending_summary_->span_hash;
  s.cache_scope = detail::kSummaryCacheScope;
  s.cache_key = detail::summary_cache_key(s.span_hash);
  phase_ = AgentPhase::kAwaitingSummary;
  return decide(std::move(s));
}

Decision AgentMachine::on_summary(const std::string* text, const Status* error) {
  ContextManager& cm = forced_context_ ? *forced_context_ : context_;
  CompactionReport second;
  if (text != nullptr) {
    second = cm.apply_summary(history_, *text, rounds_used_);
  } else {
    second = cm.summary_failed(history_, error->message().empty() ? error->to_string() : error->message(), rounds_used_);
  }
  pending_summary_.reset();
  // One report for the whole step: what ran before the summary request, then the rest.
  CompactionReport merged = std::move(compaction_so_far_);
  for (CompactionStage st : second.stages) merged.stages.push_back(st);
  merged.tokens_after = second.tokens_after;
  merged.results_truncated += second.results_truncated;
  merged.messages_digested += second.messages_digested;
  merged.messages_summarized += second.messages_summarized;
  merged.messages_dropped += second.messages_dropped;
  merged.tool_blocks_dropped += second.tool_blocks_dropped;
  merged.still_over_limit = second.still_over_limit;
  if (!second.summary_error.empty()) merged.summary_error = second.summary_error;
  for (auto& id : second.released_call_ids) merged.released_call_ids.push_back(std::move(id));
  if (!second.note.empty()) merged.note = second.note;
  note_compaction(std::move(merged));
  return call_model();
}

void AgentMachine::note_compaction(CompactionReport report) {
  if (forced_context_) {
    forced_context_.reset();
    context_.invalidate();  // another manager edited the history
  }
  if (report.stages.empty()) return;
  // A result that left the context may be read again: it is no longer a duplicate.
  for (const std::string& id : report.released_call_ids) {
    std::erase_if(successful_calls_, [&](const SuccessfulCall& c) { return c.call_id == id; });
  }
  // Old results leaving the recency window are digested every round as routine; the guard and
  // the note for the model are for compaction the limit forced.
  bool forced = report.limit > 0 && report.tokens_before > report.limit;
  for (CompactionStage st : report.stages) forced |= st != CompactionStage::kMicrocompact;
  if (!forced) {
    compaction_ = std::move(report);
    return;
  }
  std::string stages;
  for (CompactionStage st : report.stages) stages += (stages.empty() ? "" : ", ") + std::string(compaction_stage_name(st));
  std::string detail = "context compacted (" + stages + "): " + std::to_string(report.tokens_before) + " → " +
                       std::to_string(report.tokens_after) + " tokens";
  if (report.still_over_limit) detail += "; still over the limit of " + std::to_string(report.limit);
  if (!report.summary_error.empty()) detail += "; summary: " + report.summary_error;
  guards_.push_back({GuardKind::kContextCompacted, detail, "", ""});
  if (!report.note.empty()) guard_notes_.push_back(report.note);
  compaction_ = std::move(report);
}

}  // namespace keel
