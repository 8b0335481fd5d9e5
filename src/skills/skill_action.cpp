#include "skills/skill_action.hpp"

#include <algorithm>
#include <vector>

#include "core/guards/call_signature.hpp"
#include "runtime/approval_policy.hpp"
#include "core/text/text_util.hpp"
#include "core/text/utf8_text.hpp"

namespace keel::detail {
namespace {

using nlohmann::json;

std::string compact(const json& v) {
  return v.dump(-1, ' ', false, json::error_handler_t::replace);
}

// `text` on one line, cut to about `max` bytes without splitting a UTF-8 character.
std::string one_line(std::string_view text, size_t max) {
  std::string out;
  for (char c : text) out.push_back(static_cast<unsigned char>(c) < 0x20 ? ' ' : c);
  if (out.size() <= max) return out;
  out.resize(utf8_char_start(out, max));
  out.append("…");
  return out;
}

void log_decision(const ActionEnv& env, std::string_view tool, std::string_view arguments, ApprovalVerdict verdict,
                  std::string_view reason) {
  if (env.store == nullptr) return;
  ApprovalRecord r;
  r.workspace = env.workspace;
  r.tool = std::string(tool);
  r.arguments = std::string(arguments);
  r.verdict = verdict;
  r.reason = std::string(reason);
  (void)env.store->record_approval(r);  // an audit line that fails to save must not undo the action
}

std::string summary_of(const CompiledSkill& skill, const json& output, std::string_view tool, std::string_view args) {
  if (output.is_object()) {
    auto it = output.find("summary");
    if (it != output.end() && it->is_string() && !it->get_ref<const std::string&>().empty()) {
      return one_line(it->get_ref<const std::string&>(), 200);
    }
  }
  if (tool.empty()) return one_line(concat({skill.id(), ": output for review"}), 200);
  return one_line(concat({skill.id(), ": ", tool, " ", args}), 200);
}

SkillActionOutcome queue(const ActionEnv& env, const CompiledSkill& skill, const json& output, std::string_view run_id,
                         SkillActionOutcome a, std::string_view why) {
  if (env.store == nullptr) {
    a.state = SkillActionState::kNotQueued;
    a.detail = concat({"not queued: there is no database to keep proposals in (", why, ")"});
    return a;
  }
  SkillProposal p;
  p.workspace = env.workspace;
  p.skill = skill.id();
  p.run_id = std::string(run_id);
  p.tool = a.tool;
  p.arguments = a.arguments;
  p.output = compact(output);
  p.summary = summary_of(skill, output, a.tool, a.arguments);
  Result<int64_t> id = env.store->add_skill_proposal(p);
  if (!id.ok()) {
    a.state = SkillActionState::kNotQueued;
    a.detail = concat({"not queued: ", id.status().message()});
    return a;
  }
  a.state = SkillActionState::kQueued;
  a.proposal_id = *id;
  // The number is `keel skills proposals`' handle; keel serve's API knows it by its public id.
  Result<SkillProposal> stored = env.store->get_skill_proposal(*id);
  const std::string public_id = stored.ok() ? " [" + stored->public_id + "]" : std::string();
  a.detail = concat({"queued as proposal ", std::to_string(*id), public_id, " (", why, "); see keel skills proposals"});
  return a;
}

bool auto_run_enabled(const ActionEnv& env, const std::string& skill) {
  if (env.store == nullptr) return false;
  Result<std::vector<SkillSetting>> settings = env.store->list_skill_settings(env.workspace);
  if (!settings.ok()) return false;
  for (const SkillSetting& s : *settings) {
    if (s.skill == skill) return s.auto_run.value_or(false);
  }
  return false;
}

SkillActionOutcome auto_run(const ActionEnv& env, const CompiledSkill& skill, const json& output,
                            std::string_view run_id, SkillActionOutcome a) {
  if (env.tools == nullptr || env.executor == nullptr) {
    return queue(env, skill, output, run_id, std::move(a), "auto-run is on, but no tools were given to run it");
  }
  Result<ActionRun> run = run_action_call(env, a.tool, a.arguments, false, concat({"auto-run of skill ", skill.id()}));
  if (!run.ok()) {
    a.state = SkillActionState::kFailed;
    a.detail = run.status().message();
    return a;
  }
  switch (run->kind) {
    case ActionRun::Kind::kAsk: {
      std::string why = concat({"the approval policy asks before ", a.tool, " runs: ", run->reason});
      return queue(env, skill, output, run_id, std::move(a), why);
    }
    case ActionRun::Kind::kDenied:
      a.state = SkillActionState::kFailed;
      a.detail = concat({"refused by the approval policy: ", run->reason});
      return a;
    case ActionRun::Kind::kRan:
      a.state = run->result.ok() ? SkillActionState::kExecuted : SkillActionState::kFailed;
      a.detail = one_line(run->result.content, 500);
      return a;
  }
  return a;
}

}  // namespace

Result<ActionRun> run_action_call(const ActionEnv& env, std::string_view tool, std::string_view arguments,
                                  bool approved_by_person, std::string_view who) {
  const Tool* t = env.tools == nullptr ? nullptr : env.tools->find(tool);
  if (t == nullptr || env.executor == nullptr) {
    return Status::NotFound(concat({"the action's tool '", tool, "' is not available here; see keel tools list"}));
  }
  Result<std::string> canonical = canonical_arguments(arguments);
  if (!canonical.ok()) {
    return Status::InvalidArgument(
        concat({"the action's arguments are not a JSON object: ", canonical.status().message()}));
  }
  ApprovalPolicy none;
  KEEL_ASSIGN_OR_RETURN(
      std::shared_ptr<ApprovalPolicyGate> gate,
      load_approval_gate(env.approvals != nullptr ? *env.approvals : none, Risk::kHigh, env.store, env.workspace));
  ToolCall call;
  call.id = "skill_action";
  call.name = std::string(tool);
  call.arguments = std::string(arguments);
  GateVerdict verdict = gate->check(call, *canonical, t->spec());
  ActionRun run;
  if (verdict.kind == GateVerdict::Kind::kDeny) {
    run.kind = ActionRun::Kind::kDenied;
    run.reason = verdict.reason;
    log_decision(env, tool, *canonical, ApprovalVerdict::kDeny, verdict.reason);
    return run;
  }
  if (verdict.kind == GateVerdict::Kind::kAsk && !approved_by_person) {
    run.kind = ActionRun::Kind::kAsk;
    run.reason = verdict.reason;
    return run;
  }
  log_decision(env, tool, *canonical, ApprovalVerdict::kAllow, who);
  std::vector<ToolResult> results = env.executor->run_batch(std::span<const ToolCall>(&call, 1), {}, env.stop);
  run.kind = ActionRun::Kind::kRan;
  if (!results.empty()) run.result = std::move(results.front());
  return run;
}

SkillActionOutcome handle_skill_action(const ActionEnv& env, const CompiledSkill& skill, const json& output,
                                       std::string_view run_id) {
  const SkillManifest& m = skill.manifest();
  SkillActionOutcome a;
  if (m.action) {
    a.tool = m.action->tool;
    json args;
    try {
      args = output.at(json::json_pointer(m.action->arguments_pointer));
    } catch (const json::exception&) {
      args = nullptr;
    }
    if (!args.is_object()) {
      a.state = SkillActionState::kFailed;
      a.detail = concat({"the output has no JSON object at '", m.action->arguments_pointer, "' for the arguments of ",
                         a.tool, " (the action's argumentsPointer)"});
      return a;
    }
    a.arguments = compact(args);
  } else {
    a.arguments = "{}";
  }
  switch (m.approval_mode) {
    case SkillApprovalMode::kAdvisory:
      if (!m.action) return SkillActionOutcome{};
      a.state = SkillActionState::kAdvice;
      a.detail = "advisory: reported, not run";
      return a;
    case SkillApprovalMode::kProposal:
      return queue(env, skill, output, run_id, std::move(a), "the skill's approval mode is proposal");
    case SkillApprovalMode::kAutoRunEligible:
      if (!m.action) return SkillActionOutcome{};
      if (!auto_run_enabled(env, m.id)) {
        return queue(env, skill, output, run_id, std::move(a),
                     concat({"auto-run is off for ", m.id, " in this workspace; turn it on with keel skills autorun ",
                             m.id, " on"}));
      }
      return auto_run(env, skill, output, run_id, std::move(a));
  }
  return a;
}

}  // namespace keel::detail
