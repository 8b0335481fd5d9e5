// What happens to a succeeded skill's action under its approval mode (seed 002's three tiers), and
// running one action call under the workspace's approval policy without asking anyone.
//
// Thread-safety: called from the thread that runs the graph (or approves a proposal), one at a
// time per ToolExecutor.
#pragma once

#include <nlohmann/json.hpp>
#include <stop_token>
#include <string>
#include <string_view>

#include "keel/config.hpp"
#include "keel/skill_runner.hpp"
#include "keel/store/store.hpp"
#include "keel/tool_executor.hpp"
#include "keel/tool_registry.hpp"
#include "skills/compiled_skill.hpp"

namespace keel::detail {

// Where actions run. Pointers are borrowed; store, tools and executor may be null.
struct ActionEnv {
  Store* store = nullptr;
  const ToolRegistry* tools = nullptr;
  ToolExecutor* executor = nullptr;  // runs calls of `tools` in `workspace`
  const ApprovalPolicy* approvals = nullptr;
  std::string workspace;
  std::stop_token stop;
};

// The result of trying one action call.
struct ActionRun {
  enum class Kind {
    kRan,     // the tool ran; `result` says how it went
    kAsk,     // the policy would ask a person first; nothing ran (`reason`)
    kDenied,  // the policy refused it (`reason` names the rule)
  };
  Kind kind = Kind::kAsk;
  ToolResult result;
  std::string reason;
};

// Checks `tool`(`arguments`) against the policy and the workspace's saved rules and runs it when
// allowed; with `approved_by_person`, a call the policy would ask about runs too. The decision is
// logged in the store's approvals with `who` as its reason when it ran. Errors: NotFound for an
// unknown tool, InvalidArgument for arguments that are not a JSON object, or a policy that does
// not compile.
Result<ActionRun> run_action_call(const ActionEnv& env, std::string_view tool, std::string_view arguments,
                                  bool approved_by_person, std::string_view who);

// The action outcome of `skill` after it produced `output`, per its approval mode: advice,
// a queued proposal, or (auto-run on and allowed) the tool run now.
SkillActionOutcome handle_skill_action(const ActionEnv& env, const CompiledSkill& skill, const nlohmann::json& output,
                                       std::string_view run_id);

}  // namespace keel::detail
