// A person's approval of a queued skill proposal: the action runs now, under the workspace's
// policy with the approval answering what the policy would ask about.
#include <memory>

#include "keel/skill_runner.hpp"
#include "skills/skill_action.hpp"
#include "core/text/text_util.hpp"

namespace keel {

Result<SkillProposal> approve_skill_proposal(Store& store, int64_t id, const ToolRegistry& tools,
                                             const ApprovalPolicy& approvals, std::stop_token stop,
                                             std::shared_ptr<const SecretRedactor> redactor) {
  using detail::concat;
  KEEL_ASSIGN_OR_RETURN(SkillProposal p, store.get_skill_proposal(id));
  if (p.status != ProposalStatus::kPending) {
    return Status::FailedPrecondition(
        concat({"skill proposal ", std::to_string(id), " is ", proposal_status_name(p.status), ", not pending"}));
  }
  KEEL_TRY(store.decide_skill_proposal(id, ProposalStatus::kApproved, "approved"));
  ProposalStatus final_status = ProposalStatus::kExecuted;
  std::string result = "approved";
  if (!p.tool.empty()) {
    ToolExecutorOptions o;
    o.threads = 1;
    o.workspace_root = p.workspace;
    o.redactor = std::move(redactor);
    ToolExecutor executor(tools, o);
    detail::ActionEnv env;
    env.store = &store;
    env.tools = &tools;
    env.executor = &executor;
    env.approvals = &approvals;
    env.workspace = p.workspace;
    env.stop = stop;
    Result<detail::ActionRun> run =
        detail::run_action_call(env, p.tool, p.arguments, true, concat({"approved proposal ", std::to_string(id)}));
    if (!run.ok()) {
      final_status = ProposalStatus::kFailed;
      result = run.status().message();
    } else if (run->kind == detail::ActionRun::Kind::kDenied) {
      final_status = ProposalStatus::kFailed;
      result = concat({"refused by the approval policy: ", run->reason});
    } else {
      final_status = run->result.ok() ? ProposalStatus::kExecuted : ProposalStatus::kFailed;
      result = run->result.content;
    }
  }
  KEEL_TRY(store.decide_skill_proposal(id, final_status, result));
  return store.get_skill_proposal(id);
}

}  // namespace keel
