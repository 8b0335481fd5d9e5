// Turns a run's hooks into the JSON events of `keel run --json` (docs/events.md), for every host
// that reports runs as JSON: the CLI writes them as lines, keel serve streams them.
#include "runtime/run_event_json.hpp"

#include "keel/core/agent_machine.hpp"

namespace keel::detail {
namespace {

using nlohmann::json;

constexpr size_t kMaxContentInEvent = 16 * 1024;

json call_json(const ToolCall& c) {
  json args = json::parse(c.arguments.empty() ? "{}" : c.arguments, nullptr, false);
  return {{"id", c.id}, {"name", c.name}, {"arguments", args.is_discarded() ? json(c.arguments) : args}};
}

}  // namespace

int exit_code_for(const RunOutcome& o) {
  if (o.ok) return 0;
  switch (o.failure) {
    case FailureKind::kBackend: return 4;
    case FailureKind::kAborted: return 130;
    default: return 3;
  }
}

RunEventJson::RunEventJson(Sink sink, bool stream_deltas) : sink_(std::move(sink)), stream_deltas_(stream_deltas) {}

void RunEventJson::emit(std::string_view type, nlohmann::json body, const RunContext* ctx) {
  sink_(type, std::move(body), ctx);
}

void RunEventJson::on_run_started(RunContext& ctx) {
  json body = {{"task", ctx.task}, {"model", ctx.model}};
  if (!ctx.session_id.empty()) body["session_id"] = ctx.session_id;
  emit("run_started", std::move(body), &ctx);
}
void RunEventJson::on_user_message(RunContext& ctx, const Message& m) {
  emit("user_message", {{"content", m.content}}, &ctx);
}
void RunEventJson::on_context(RunContext& ctx, const TokenBreakdown& t, size_t context_window) {
  emit("context",
                 {{"tokens",
                   {{"system", t.system},
                    {"tools", t.tools},
                    {"user", t.user},
                    {"assistant", t.assistant},
                    {"tool_results", t.tool_results},
                    {"total", t.total()}}},
                  {"context_window", context_window}},
                 &ctx);
}
void RunEventJson::on_compaction(RunContext& ctx, const CompactionReport& r) {
  json stages = json::array();
  for (CompactionStage s : r.stages) stages.push_back(compaction_stage_name(s));
  json body = {{"stages", stages},
               {"tokens_before", r.tokens_before},
               {"tokens_after", r.tokens_after},
               {"limit", r.limit},
               {"results_truncated", r.results_truncated},
               {"messages_digested", r.messages_digested},
               {"messages_summarized", r.messages_summarized},
               {"messages_dropped", r.messages_dropped},
               {"tool_blocks_dropped", r.tool_blocks_dropped},
               {"still_over_limit", r.still_over_limit},
               {"note", r.note}};
  if (!r.summary_error.empty()) body["summary_error"] = r.summary_error;
  emit("compaction", std::move(body), &ctx);
}
void RunEventJson::on_model_delta(RunContext& ctx, std::string_view text) {
  if (stream_deltas_) emit("model_delta", {{"text", text}}, &ctx);
}
void RunEventJson::on_reasoning_delta(RunContext& ctx, std::string_view text) {
  if (stream_deltas_) emit("reasoning_delta", {{"text", text}}, &ctx);
}
void RunEventJson::on_call_announced(RunContext& ctx, std::string_view name) {
  if (stream_deltas_) emit("call_announced", {{"name", name}}, &ctx);
}
void RunEventJson::on_model_retry(RunContext& ctx, int attempt, const Status& why, int64_t delay_ms) {
  emit("model_retry", {{"attempt", attempt}, {"error", why.to_string()}, {"delay_ms", delay_ms}}, &ctx);
}
void RunEventJson::on_model_reply(RunContext& ctx, const ModelReply& r) {
  json calls = json::array();
  for (const auto& c : r.tool_calls) calls.push_back(call_json(c));
  json usage = {{"prompt_tokens", r.usage.prompt_tokens}, {"completion_tokens", r.usage.completion_tokens}};
  if (r.usage.cached_prompt_tokens > 0) {
    usage["cached_prompt_tokens"] = r.usage.cached_prompt_tokens;
    usage["prompt_tokens_evaluated"] = r.usage.prompt_tokens - r.usage.cached_prompt_tokens;
  }
  json body = {{"text", r.text}, {"tool_calls", calls}, {"finish_reason", r.finish_reason}, {"usage", std::move(usage)}};
  if (!r.reasoning.empty()) body["reasoning"] = r.reasoning;
  emit("model_reply", std::move(body), &ctx);
}
void RunEventJson::on_tool_call(RunContext& ctx, const ToolCall& c) { emit("tool_call", call_json(c), &ctx); }
void RunEventJson::on_approval_requested(RunContext& ctx, const ApprovalRequest& r) {
  emit("approval_requested", {{"call", call_json(r.call)}, {"risk", risk_name(r.risk)}, {"reason", r.reason}}, &ctx);
}
void RunEventJson::on_approval_decided(RunContext& ctx, const ApprovalRequest& r, const ApprovalDecision& d) {
  emit("approval_decided", {{"call_id", r.call.id}, {"verdict", approval_verdict_name(d.verdict)}, {"reason", d.reason}}, &ctx);
}
void RunEventJson::on_tool_result(RunContext& ctx, const ToolCall& c, const ToolResult& r) {
  bool cut = r.content.size() > kMaxContentInEvent;
  json body = {{"id", c.id},         {"name", c.name}, {"status", tool_status_name(r.status)},
               {"content", cut ? r.content.substr(0, kMaxContentInEvent) : r.content},
               {"duration_ms", r.duration_ms}, {"cached", r.cached}};
  if (cut) body["content_cut_at"] = kMaxContentInEvent;
  emit("tool_result", std::move(body), &ctx);
}
void RunEventJson::on_guard_fired(RunContext& ctx, const GuardEvent& g) {
  emit("guard_fired", {{"kind", guard_kind_name(g.kind)}, {"detail", g.detail}, {"tool", g.tool}, {"call_id", g.call_id}}, &ctx);
}
void RunEventJson::on_plan_step(RunContext& ctx, const PlanStepUpdate& u) {
  json body = {{"index", u.index},  {"steps", u.steps},     {"state", plan_step_state_name(u.state)},
               {"tool", u.tool},    {"save_as", u.save_as}, {"alias_inferred", u.alias_inferred}};
  if (!u.why.empty()) body["why"] = u.why;
  if (!u.call_id.empty()) body["call_id"] = u.call_id;
  if (!u.arguments.empty()) body["arguments"] = json::parse(u.arguments, nullptr, false);
  if (!u.detail.empty()) body["detail"] = u.detail;
  emit("plan_step", std::move(body), &ctx);
}
void RunEventJson::on_status_changed(RunContext& ctx, RunStatus s) {
  json body = {{"status", run_status_name(s)}};
  if (s == RunStatus::kCallingModel && ctx.machine != nullptr) body["phase"] = agent_phase_name(ctx.machine->phase());
  auto planner = ctx.metadata.find("planner");
  if (s == RunStatus::kCallingModel && planner != ctx.metadata.end() && ctx.round == 1) body["planner"] = planner->second;
  emit("status", std::move(body), &ctx);
}

namespace {
json outcome_json(const RunOutcome& o) {
  return {{"rounds", o.rounds},
          {"model_calls", o.model_calls},
          {"tool_calls", o.tool_calls},
          {"usage", {{"prompt_tokens", o.usage.prompt_tokens}, {"completion_tokens", o.usage.completion_tokens}}},
          {"duration_ms", o.duration_ms},
          {"exit_code", exit_code_for(o)},
          {"session_id", o.session_id}};
}
}  // namespace

void RunEventJson::on_run_finished(RunContext& ctx, const RunOutcome& o) {
  json body = outcome_json(o);
  body["answer"] = o.answer;
  emit("run_finished", std::move(body), &ctx);
}
void RunEventJson::on_run_failed(RunContext& ctx, const RunOutcome& o) {
  json body = outcome_json(o);
  body["kind"] = failure_kind_name(o.failure);
  body["error"] = o.error;
  emit("run_failed", std::move(body), &ctx);
}

}  // namespace keel::detail
