#include "cli/text_output.hpp"

#include <map>
#include <nlohmann/json.hpp>

#include "core/parsing/json/json_view.hpp"

namespace keel::cli {
namespace {

constexpr const char* kStreamedKey = "text.streamed";  // "1" while the current reply's text is on stdout

void flush_line(std::FILE* f, RunContext& ctx) {
  if (ctx.metadata[kStreamedKey] == "1") {
    std::fputc('\n', f);
    std::fflush(f);
    ctx.metadata[kStreamedKey] = "0";
  }
}

}  // namespace

std::string short_arguments(const std::string& json_text, size_t max_value) {
  // Read in place (a line is printed per tool call): keys in order, the last of a repeated key,
  // values as a document would print them.
  const std::string_view text = json_text.empty() ? std::string_view("{}") : std::string_view(json_text);
  const detail::StrictJson scanned = detail::scan_strict_json(text);
  const detail::JsonView args(text.substr(scanned.begin, scanned.end - scanned.begin));
  if (!scanned.ok || !args.is_object()) return json_text.substr(0, max_value);
  std::map<std::string, detail::JsonView> members;
  detail::JsonView::Items items = args.items();
  detail::JsonView key, value;
  while (items.next(key, value)) members.insert_or_assign(key.str(), value);
  std::string out;
  for (const auto& [name, v] : members) {
    std::string shown = v.is_string() ? v.str() : nlohmann::json::parse(v.raw()).dump();
    for (char& c : shown) {
      if (c == '\n' || c == '\r' || c == '\t') c = ' ';
    }
    if (shown.size() > max_value) shown = shown.substr(0, max_value) + "…";
    out += (out.empty() ? "" : " ") + name + "=" + shown;
  }
  return out;
}

void TextOutputPlugin::on_model_delta(RunContext& ctx, std::string_view text) {
  std::fwrite(text.data(), 1, text.size(), out_);
  std::fflush(out_);
  if (!text.empty()) ctx.metadata[kStreamedKey] = "1";
  ctx.metadata["text.answer_streamed"] = "1";
}

void TextOutputPlugin::on_model_retry(RunContext& ctx, int attempt, const Status& why, int64_t delay_ms) {
  flush_line(out_, ctx);
  std::fprintf(err_, "  … model call attempt %d failed (%s); retrying in %.1f s\n", attempt, why.to_string().c_str(),
               static_cast<double>(delay_ms) / 1000.0);
}

void TextOutputPlugin::on_model_reply(RunContext& ctx, const ModelReply& reply) {
  flush_line(out_, ctx);
  // Text that came with tool calls was narration; only the final reply counts as the answer.
  if (!reply.tool_calls.empty()) ctx.metadata["text.answer_streamed"] = "0";
}

void TextOutputPlugin::on_approval_decided(RunContext&, const ApprovalRequest& r, const ApprovalDecision& d) {
  const char* what = d.verdict == ApprovalVerdict::kDeny ? "denied" : "approved";
  std::fprintf(err_, "  %s %s %s%s%s\n", what, r.call.name.c_str(), short_arguments(r.call.arguments).c_str(),
               d.reason.empty() ? "" : ": ", d.reason.c_str());
}

void TextOutputPlugin::on_tool_result(RunContext& ctx, const ToolCall& c, const ToolResult& r) {
  flush_line(out_, ctx);
  // A cache hit did not run: "(cached)" instead of its duration.
  std::string line = std::string(r.ok() ? "  ✓ " : "  ✗ ") + c.name + " " + short_arguments(c.arguments) + "  (" +
                     (r.cached ? std::string("cached") : std::to_string(r.duration_ms) + " ms");
  if (!r.ok()) {
    std::string msg = r.content.substr(0, 160);
    for (char& ch : msg) {
      if (ch == '\n') ch = ' ';
    }
    line += ", " + std::string(tool_status_name(r.status)) + "): " + msg;
  } else {
    line += ")";
  }
  std::fprintf(err_, "%s\n", line.c_str());
}

void TextOutputPlugin::on_guard_fired(RunContext& ctx, const GuardEvent& g) {
  flush_line(out_, ctx);
  std::fprintf(err_, "  ! %s: %s\n", std::string(guard_kind_name(g.kind)).c_str(), g.detail.c_str());
}

void TextOutputPlugin::on_plan_step(RunContext& ctx, const PlanStepUpdate& u) {
  if (u.state == PlanStepState::kExecuting) return;  // the tool line shows it running
  flush_line(out_, ctx);
  std::string line = "  plan " + std::to_string(u.index + 1) + "/" + std::to_string(u.steps) + " " + u.tool + " [" +
                     std::string(plan_step_state_name(u.state)) + "]";
  if (!u.detail.empty()) line += ": " + u.detail;
  std::fprintf(err_, "%s\n", line.c_str());
}

void TextOutputPlugin::on_run_finished(RunContext& ctx, const RunOutcome& o) {
  if (ctx.metadata["text.answer_streamed"] != "1") {
    std::fprintf(out_, "%s\n", o.answer.c_str());
  } else {
    flush_line(out_, ctx);
  }
  std::fflush(out_);
}

void TextOutputPlugin::on_run_failed(RunContext& ctx, const RunOutcome& o) {
  flush_line(out_, ctx);
  std::fprintf(err_, "keel: run failed (%s): %s\n", std::string(failure_kind_name(o.failure)).c_str(), o.error.c_str());
}

}  // namespace keel::cli
