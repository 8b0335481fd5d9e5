// The decision points of keel::Agent that hooks take part in (keel/hooks.hpp): a tool call before
// the approval policy decides on it (on_tool_use: refuse, rewrite, ask, or answer a question the
// policy would have asked), and the task of a run before the model sees it (on_prompt_submitted).
//
// A hook never loosens a policy refusal: the policy decides on the call as the hooks left it
// (rewritten arguments included, after they passed the tool's schema), and a hook's allow only
// turns the policy's "ask" into "run".
#include <nlohmann/json.hpp>

#include "core/loop/risk_verdict.hpp"
#include "runtime/agent_impl.hpp"

namespace keel {

// The run's gate with the hooks' say first. Lives for one run; `impl` and `ctx` outlive it.
class Agent::Impl::HookedGate final : public ApprovalGate {
 public:
  HookedGate(Impl& impl, RunContext& ctx, std::shared_ptr<const ApprovalGate> inner, Risk threshold)
      : impl_(impl), ctx_(ctx), inner_(std::move(inner)), threshold_(threshold) {}

  GateVerdict check(const ToolCall& call, std::string_view canonical_args, const ToolSpec& spec) const override {
    using V = ToolUseDecision::Verdict;
    ToolUseDecision hooks = impl_.tool_use(ctx_, call, spec);
    ToolCall effective = call;
    std::string canonical(canonical_args);
    if (hooks.arguments) {
      nlohmann::json args = nlohmann::json::parse(*hooks.arguments, nullptr, false);
      if (args.is_discarded() || !args.is_object()) {
        return GateVerdict::deny("a hook rewrote the arguments of " + call.name + " into something that is not a JSON object");
      }
      if (Status valid = impl_.validate_arguments(call.name, args); !valid.ok()) {
        return GateVerdict::deny("a hook rewrote the arguments of " + call.name + " and they do not fit the tool: " +
                                 valid.message());
      }
      effective.arguments = args.dump();
      canonical = effective.arguments;  // nlohmann's objects keep their keys sorted: canonical already
      impl_.set_rewrite(call.id, effective.arguments);
    }
    GateVerdict policy =
        inner_ ? inner_->check(effective, canonical, spec) : detail::risk_verdict(call.name, spec.risk, threshold_);
    if (policy.kind == GateVerdict::Kind::kDeny) return policy;  // the operator's refusal holds
    switch (hooks.verdict) {
      case V::kDeny: return GateVerdict::deny(hooks.reason);
      case V::kAsk:
        return policy.kind == GateVerdict::Kind::kAsk ? GateVerdict::ask(policy.reason + "; " + hooks.reason)
                                                      : GateVerdict::ask(hooks.reason);
      case V::kAllow:
        return policy.kind == GateVerdict::Kind::kAsk ? GateVerdict::allow(hooks.reason) : policy;
      case V::kNone: break;
    }
    return policy;
  }

 private:
  Impl& impl_;
  RunContext& ctx_;
  std::shared_ptr<const ApprovalGate> inner_;
  Risk threshold_;
};

ToolUseDecision Agent::Impl::tool_use(RunContext& ctx, const ToolCall& call, const ToolSpec& spec) {
  ToolUseDecision d;
  emit([&](Hooks& h) { h.on_tool_use(ctx, call, spec, d); });
  return d;
}

Status Agent::Impl::validate_arguments(const std::string& tool, const nlohmann::json& args) const {
  if (tools_.find(tool) == nullptr) return Status::Ok();  // a client's tool: its caller checks
  return tools_.validate_arguments(tool, args);
}

void Agent::Impl::set_rewrite(const std::string& call_id, std::string arguments) {
  std::lock_guard<std::mutex> lock(rewrite_mutex_);
  rewrites_[call_id] = std::move(arguments);
}

ToolCall Agent::Impl::rewritten(const ToolCall& call) {
  std::lock_guard<std::mutex> lock(rewrite_mutex_);
  ToolCall out = call;
  if (auto it = rewrites_.find(call.id); it != rewrites_.end()) out.arguments = it->second;
  return out;
}

std::shared_ptr<const ApprovalGate> Agent::Impl::hooked_gate(RunContext& ctx, std::shared_ptr<const ApprovalGate> inner,
                                                             Risk threshold) {
  {
    std::lock_guard<std::mutex> lock(rewrite_mutex_);
    rewrites_.clear();
  }
  return std::make_shared<HookedGate>(*this, ctx, std::move(inner), threshold);
}

PromptActions Agent::Impl::prompt_submitted(RunContext& ctx, const std::string& task) {
  PromptActions actions;
  emit([&](Hooks& h) { h.on_prompt_submitted(ctx, task, actions); });
  return actions;
}

}  // namespace keel
