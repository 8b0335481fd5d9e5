// The command hooks of settings files as keel::Hooks; see command_hooks.hpp.
#include "runtime/command_hooks.hpp"

#include <chrono>
#include <cstdio>
#include <set>

#include "base/child_env.hpp"
#include "base/subprocess.hpp"
#include "core/text/text_util.hpp"

namespace keel::detail {
namespace {

std::string trimmed(std::string_view s) { return std::string(trim(s)); }

using nlohmann::json;

constexpr const char* kStopActive = "hooks.stop_hook_active";
constexpr const char* kSessionContext = "hooks.session_context";

// A command as warnings name it: its first line, shortened.
std::string hook_shown(const HookCommand& c) {
  std::string s = c.command.substr(0, c.command.find('\n'));
  if (s.size() > 80) s = s.substr(0, 77) + "...";
  return "'" + s + "'";
}

// The call's arguments as JSON (a string when they are not JSON).
json hook_tool_input(const ToolCall& call) {
  json args = json::parse(call.arguments.empty() ? "{}" : call.arguments, nullptr, false);
  if (args.is_discarded()) return call.arguments;
  return args;
}

std::string hook_string(const json& j, const char* name) {
  auto it = j.find(name);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

const json* hook_specific(const json& j) {
  auto it = j.find("hookSpecificOutput");
  return it != j.end() && it->is_object() ? &*it : nullptr;
}

void append_paragraph(std::string& to, const std::string& text) {
  if (text.empty()) return;
  if (!to.empty()) to += "\n\n";
  to += text;
}

// Why a hook that ran blocks what it was asked about — exit code 2 (its stderr) or "decision":
// "block" (its reason), `fallback` when it gave no words — or nullopt when it does not block.
std::optional<std::string> block_reason(const CommandHooks::Ran& r, const std::string& fallback) {
  std::string why;
  if (r.exit_code == 2) why = r.err;
  else if (r.json && hook_string(*r.json, "decision") == "block") why = hook_string(*r.json, "reason");
  else return std::nullopt;
  return why.empty() ? fallback : why;
}

// Plain stdout or additionalContext of a successful command (UserPromptSubmit, SessionStart).
std::string hook_context(const CommandHooks::Ran& r) {
  if (r.exit_code != 0) return {};
  if (!r.json) return trimmed(r.out);
  std::string context;
  if (const json* s = hook_specific(*r.json)) append_paragraph(context, hook_string(*s, "additionalContext"));
  append_paragraph(context, hook_string(*r.json, "additionalContext"));
  return context;
}

}  // namespace

CommandHooks::CommandHooks(std::vector<HookCommand> commands, CommandHookOptions options)
    : commands_(std::move(commands)), options_(std::move(options)) {}
CommandHooks::~CommandHooks() = default;

std::shared_ptr<CommandHooks> CommandHooks::for_subagents() const {
  CommandHookOptions o = options_;
  o.subagent = true;
  return std::make_shared<CommandHooks>(commands_, std::move(o));
}

void CommandHooks::warn(const std::string& line) const {
  if (options_.warn) {
    options_.warn(line);
  } else {
    std::fprintf(stderr, "keel: %s\n", line.c_str());
  }
}

std::vector<CommandHooks::Ran> CommandHooks::fire(RunContext& ctx, const std::string& event, std::string_view subject,
                                                  json input) {
  std::vector<Ran> out;
  std::set<std::string> seen;
  for (const HookCommand& c : commands_) {
    if (c.event != event || !hook_matches(c, subject) || !seen.insert(c.command).second) continue;
    if (out.empty()) {  // the common fields, once
      input["session_id"] = ctx.session_id.empty() ? ctx.run_id : ctx.session_id;
      input["transcript_path"] = "";  // keel keeps runs in its database, not in a transcript file
      input["cwd"] = options_.workspace;
      input["hook_event_name"] = event;
      input["permission_mode"] = options_.permission_mode;
    }
    SubprocessRequest req;
    req.command = c.command;
    req.cwd = options_.workspace;
    req.timeout = std::chrono::seconds(c.timeout_s);
    req.input = input.dump(-1, ' ', false, json::error_handler_t::replace);
    req.separate_stderr = true;
    req.env = clean_environment(options_.pass_env,
                                {{"KEEL_PROJECT_DIR", options_.workspace}, {"CLAUDE_PROJECT_DIR", options_.workspace}});
    req.sandbox = options_.sandbox;
    Ran r;
    r.command = &c;
    Result<SubprocessResult> ran = run_subprocess(req);
    const std::string who = "the " + event + " hook " + hook_shown(c) + " (" + c.source + ")";
    if (!ran.ok()) {
      warn(who + " did not run: " + ran.status().message());
      out.push_back(std::move(r));
      continue;
    }
    r.started = true;
    r.out = std::move(ran->output);
    r.err = trimmed(ran->error_output);
    if (ran->end == SubprocessResult::End::kTimedOut) {
      r.timed_out = true;
      warn(who + " was killed after its timeout of " + std::to_string(c.timeout_s) + " s; the run goes on without it");
    } else if (ran->end != SubprocessResult::End::kExited) {
      warn(who + " was ended by signal " + std::to_string(ran->signal) + "; the run goes on without it");
    } else {
      r.exit_code = ran->exit_code;
      if (r.exit_code == 0) {
        std::string text = trimmed(r.out);
        if (!text.empty() && text.front() == '{') {
          json j = json::parse(text, nullptr, false);
          if (j.is_object()) {
            r.json = std::move(j);
          } else {
            warn(who + " printed output that starts like JSON but is not a JSON object; it is taken as text");
          }
        }
      } else if (r.exit_code != 2) {
        warn(who + " failed (exit code " + std::to_string(r.exit_code) + ")" + (r.err.empty() ? "" : ": " + r.err) +
             "; the run goes on");
      }
    }
    if (r.json) {
      if (std::string m = hook_string(*r.json, "systemMessage"); !m.empty()) warn(event + " hook: " + m);
      auto cont = r.json->find("continue");
      if (cont != r.json->end() && cont->is_boolean() && !cont->get<bool>()) {
        std::string why = hook_string(*r.json, "stopReason");
        if (ctx.stop_reason.empty()) ctx.stop_reason = "the " + event + " hook " + hook_shown(c) + " stopped the run" + (why.empty() ? "" : ": " + why);
      }
    }
    out.push_back(std::move(r));
  }
  return out;
}

void CommandHooks::on_run_started(RunContext& ctx) {
  ctx.metadata.erase(kStopActive);
  if (options_.subagent) return;
  const char* source = ctx.continued ? "resume" : "startup";
  std::string context;
  for (const Ran& r : fire(ctx, "SessionStart", source, {{"source", source}})) {
    append_paragraph(context, hook_context(r));
    if (r.exit_code == 2 && !r.err.empty()) warn("SessionStart hook: " + r.err);
  }
  if (!context.empty()) ctx.metadata[kSessionContext] = context;
}

void CommandHooks::on_prompt_submitted(RunContext& ctx, const std::string& task, PromptActions& actions) {
  if (options_.subagent) return;  // the parent model's task, not the user's prompt
  if (auto it = ctx.metadata.find(kSessionContext); it != ctx.metadata.end()) {
    append_paragraph(actions.context, it->second);
    ctx.metadata.erase(it);
  }
  for (const Ran& r : fire(ctx, "UserPromptSubmit", "", {{"prompt", task}})) {
    if (auto why = block_reason(r, "refused by the UserPromptSubmit hook " + hook_shown(*r.command))) {
      actions.refuse = true;
      append_paragraph(actions.reason, *why);
      continue;
    }
    append_paragraph(actions.context, hook_context(r));
  }
}

void CommandHooks::on_tool_use(RunContext& ctx, const ToolCall& call, const ToolSpec&, ToolUseDecision& decision) {
  using V = ToolUseDecision::Verdict;
  auto tighten = [&](V v, const std::string& reason) {
    // deny > ask > allow: the strictest answer of all hooks holds.
    auto rank = [](V x) { return x == V::kDeny ? 3 : x == V::kAsk ? 2 : x == V::kAllow ? 1 : 0; };
    if (rank(v) > rank(decision.verdict)) {
      decision.verdict = v;
      decision.reason = reason;
    }
  };
  json input = {{"tool_name", call.name}, {"tool_input", hook_tool_input(call)}, {"tool_use_id", call.id}};
  for (const Ran& r : fire(ctx, "PreToolUse", call.name, std::move(input))) {
    const std::string who = "the PreToolUse hook " + hook_shown(*r.command);
    if (r.exit_code == 2) {
      tighten(V::kDeny, r.err.empty() ? "refused by " + who : r.err);
      continue;
    }
    if (!r.json) continue;
    std::string verdict, reason;
    const json* s = hook_specific(*r.json);
    if (s != nullptr) {
      verdict = hook_string(*s, "permissionDecision");
      reason = hook_string(*s, "permissionDecisionReason");
    }
    if (verdict.empty()) {  // the older top-level form: "decision": "approve" | "block"
      std::string d = hook_string(*r.json, "decision");
      verdict = d == "approve" ? "allow" : d == "block" ? "deny" : "";
      reason = hook_string(*r.json, "reason");
    }
    if (verdict == "deny") tighten(V::kDeny, reason.empty() ? "refused by " + who : reason);
    else if (verdict == "ask") tighten(V::kAsk, reason.empty() ? who + " asks for approval" : reason);
    else if (verdict == "allow") tighten(V::kAllow, reason.empty() ? "allowed by " + who : reason);
    else if (!verdict.empty()) warn(who + " answered permissionDecision '" + verdict + "', which keel does not know; ignored");
    if (s != nullptr) {
      if (auto u = s->find("updatedInput"); u != s->end() && !u->is_null()) decision.arguments = u->dump();
    }
  }
}

void CommandHooks::on_permission_request(RunContext& ctx, const ApprovalRequest& request,
                                         std::optional<ApprovalDecision>& decision) {
  if (decision) return;
  json input = {{"tool_name", request.call.name}, {"tool_input", hook_tool_input(request.call)}};
  for (const Ran& r : fire(ctx, "PermissionRequest", request.call.name, std::move(input))) {
    const std::string who = "the PermissionRequest hook " + hook_shown(*r.command);
    if (r.exit_code == 2) {
      decision = ApprovalDecision{request.call.id, ApprovalVerdict::kDeny, r.err.empty() ? "denied by " + who : r.err};
      return;  // a refusal ends the question
    }
    const json* s = r.json ? hook_specific(*r.json) : nullptr;
    auto d = s != nullptr ? s->find("decision") : json::const_iterator();
    if (s == nullptr || d == s->end() || !d->is_object()) continue;
    std::string behavior = hook_string(*d, "behavior"), message = hook_string(*d, "message");
    if (d->contains("updatedInput")) warn(who + " returned updatedInput; keel applies updatedInput from PreToolUse hooks only");
    if (behavior == "deny") {
      decision = ApprovalDecision{request.call.id, ApprovalVerdict::kDeny, message.empty() ? "denied by " + who : message};
      return;
    }
    if (behavior == "allow" && !decision) {
      decision = ApprovalDecision{request.call.id, ApprovalVerdict::kAllow, message.empty() ? "allowed by " + who : message};
    }
  }
}

void CommandHooks::on_approval_requested(RunContext& ctx, const ApprovalRequest& request) {
  json input = {{"message", "keel needs your permission to use " + request.call.name},
                {"notification_type", "permission_prompt"}};
  (void)fire(ctx, "Notification", "permission_prompt", std::move(input));
}

void CommandHooks::on_tool_finished(RunContext& ctx, const ToolCall& call, ToolResult& result) {
  json response = {{"status", std::string(tool_status_name(result.status))}, {"content", result.content}};
  json input = {{"tool_name", call.name},
                {"tool_input", hook_tool_input(call)},
                {"tool_use_id", call.id},
                {"tool_response", std::move(response)}};
  std::string notes;
  for (const Ran& r : fire(ctx, "PostToolUse", call.name, std::move(input))) {
    if (auto why = block_reason(r, "")) append_paragraph(notes, *why);
    if (r.exit_code == 2 || !r.json) continue;
    if (const json* s = hook_specific(*r.json)) append_paragraph(notes, hook_string(*s, "additionalContext"));
  }
  if (!notes.empty()) result.content += "\n\n[hook] " + notes;
}

void CommandHooks::on_response_complete(RunContext& ctx, const std::string&, ResponseActions& actions) {
  const bool active = ctx.metadata.count(kStopActive) != 0;
  const std::string event = options_.subagent ? "SubagentStop" : "Stop";
  std::string reasons;
  for (const Ran& r : fire(ctx, event, "", {{"stop_hook_active", active}})) {
    if (auto why = block_reason(r, "the " + event + " hook " + hook_shown(*r.command) + " asks to go on")) {
      append_paragraph(reasons, *why);
    }
  }
  if (reasons.empty()) return;
  ctx.metadata[kStopActive] = "1";
  actions.another_round = true;
  append_paragraph(actions.message, reasons);
}

void CommandHooks::on_compaction_starting(RunContext& ctx, bool manual) {
  const char* trigger = manual ? "manual" : "auto";
  (void)fire(ctx, "PreCompact", trigger, {{"trigger", trigger}, {"custom_instructions", ""}});
}

void CommandHooks::on_run_finished(RunContext& ctx, const RunOutcome&) {
  if (options_.subagent) return;
  (void)fire(ctx, "SessionEnd", "", {{"reason", "other"}});
}

void CommandHooks::on_run_failed(RunContext& ctx, const RunOutcome&) {
  if (options_.subagent) return;
  (void)fire(ctx, "SessionEnd", "", {{"reason", "other"}});
}

}  // namespace keel::detail
