// Carrying out an observation in its workspace (workspace_work.hpp).
#include "autopilot/workspace_work.hpp"

#include <atomic>
#include <mutex>
#include <nlohmann/json.hpp>

#include "assembly/skills_setup.hpp"
#include "keel/approver.hpp"
#include "keel/assembly.hpp"
#include "keel/core/run_budget.hpp"
#include "core/text/utf8_text.hpp"
#include "keel/skill_runner.hpp"

namespace keel::autopilot {
namespace {

// Counts the tokens of every reply and refuses calls once the attempt's caps are spent.
struct AttemptCaps {
  int64_t max_tokens = 0;
  double max_cost = 0;
};

class MeteredClient final : public LlmClient {
 public:
  MeteredClient(LlmClient& inner, RunBudget budget) : inner_(inner), budget_(budget) {}

  Result<ModelReply> complete(const ModelRequest& request, const CallOptions& options) override {
    if (std::string guard = spent_guard(); !guard.empty()) return Status::ResourceExhausted(guard);
    Result<ModelReply> reply = inner_.complete(request, options);
    if (reply.ok()) {
      std::lock_guard lock(mu_);
      used_ += reply->usage;
    }
    return reply;
  }
  std::string describe() const override { return inner_.describe(); }

  Usage used() const {
    std::lock_guard lock(mu_);
    return used_;
  }
  double cost() const { return budget_.cost_of(used()); }

  // Non-empty when a per-run cap is spent: the guard's message.
  std::string spent_guard() const {
    const Usage u = used();
    switch (budget_.reached(u)) {
      case RunBudget::Cap::kTokens:
        return "run token cap " + std::to_string(budget_.max_tokens) + " reached (" +
               std::to_string(u.prompt_tokens + u.completion_tokens) +
               " tokens used); autopilot.budget.max_tokens_per_run raises it";
      case RunBudget::Cap::kCost:
        return "run cost cap reached; autopilot.budget.max_cost_per_run raises it";
      case RunBudget::Cap::kNone:
        break;
    }
    return {};
  }

 private:
  LlmClient& inner_;
  RunBudget budget_;
  mutable std::mutex mu_;
  Usage used_;
};

// The caps of one attempt (the autopilot's per-run caps) at the prices of `config`'s model.
RunBudget attempt_budget(const AttemptCaps& caps, const KeelConfig& config) {
  RunBudget b;
  b.max_tokens = caps.max_tokens;
  b.max_cost = caps.max_cost;
  if (const ModelPrice* price = model_price(config)) {
    b.input_price_per_mtok = price->input_per_mtok;
    b.output_price_per_mtok = price->output_per_mtok;
  }
  return b;
}

ObservationOutcome failed(std::string why) {
  ObservationOutcome out;
  out.kind = ObservationOutcome::Kind::kFailed;
  out.error = std::move(why);
  return out;
}

ObservationOutcome run_skills(const std::string& workspace, Store* store, const AttemptCaps& caps, const Observation& ob,
                              const AutopilotTriggerConfig& trigger, std::stop_token stop) {
  Result<assembly::SkillsWorkspace> ws = assembly::open_skills_workspace(workspace, {});
  if (!ws.ok()) return failed(ws.status().message());
  Result<std::unique_ptr<LlmClient>> client = assembly::make_backend(ws->config);
  if (!client.ok()) return failed(client.status().message());
  MeteredClient meter(**client, attempt_budget(caps, ws->config));
  Result<std::unique_ptr<ToolRegistry>> tools = assembly::make_action_tools(*ws, store);
  if (!tools.ok()) return failed(tools.status().message());
  SkillRunnerOptions options;
  options.rules_model = assembly::uses_rules_model(ws->config);
  options.model_factory = assembly::make_skill_model_factory(*ws);
  options.store = store;
  options.workspace = ws->workspace;
  options.tools = tools->get();
  options.approvals = ws->config.approvals;
  Result<std::unique_ptr<SkillRunner>> runner = SkillRunner::create(std::move(ws->skills), meter, std::move(options));
  if (!runner.ok()) return failed(runner.status().message());
  nlohmann::json input = nlohmann::json::parse(ob.payload, nullptr, false);
  if (!input.is_object()) input = nlohmann::json::object();
  Result<std::vector<std::string>> selected = (*runner)->select(trigger.skills, trigger.skill_triggers);
  if (!selected.ok()) return failed(selected.status().message());
  if (Status s = (*runner)->validate_input(*selected, input); !s.ok()) return failed(s.message());
  SkillRunRequest request;
  request.ids = trigger.skills;
  request.triggers = trigger.skill_triggers;
  request.stop = stop;
  Result<SkillGraphResult> result = (*runner)->run(request, input);
  ObservationOutcome out;
  const Usage used = meter.used();
  out.tokens = used.prompt_tokens + used.completion_tokens;
  out.cost = meter.cost();
  if (!result.ok()) {
    out.kind = ObservationOutcome::Kind::kFailed;
    out.error = result.status().message();
    return out;
  }
  out.trace_id = result->run_id;
  std::string summary = "skill run " + result->run_id + ":";
  std::string first_error;
  for (const SkillOutcome& s : result->skills) {
    summary.append(" ").append(s.id).append(" ").append(skill_status_name(s.status));
    if (s.action.state == SkillActionState::kQueued) ++out.proposals;
    const bool bad = s.status == SkillStatus::kFailed || s.status == SkillStatus::kBlocked ||
                     s.action.state == SkillActionState::kFailed;
    if (bad && first_error.empty()) {
      first_error = "skill " + s.id + " " + std::string(skill_status_name(s.status)) + ": " +
                    (s.reason.empty() ? s.action.detail : s.reason);
    }
  }
  if (out.proposals > 0) summary.append("; ").append(std::to_string(out.proposals)).append(" proposal(s) queued");
  if (result->ok()) {
    out.kind = ObservationOutcome::Kind::kDone;
    out.result = summary;
  } else {
    out.kind = ObservationOutcome::Kind::kFailed;
    std::string guard = meter.spent_guard();
    out.error = guard.empty() ? first_error : first_error + " (" + guard + ")";
  }
  return out;
}

ObservationOutcome run_task(const std::string& workspace, const AttemptCaps& caps, const Observation& ob,
                            const AutopilotTriggerConfig& trigger, std::stop_token stop) {
  assembly::HostInputs in;
  in.workspace = workspace;
  if (caps.max_tokens > 0) in.max_tokens = caps.max_tokens;  // the run's own budget guard enforces them
  if (caps.max_cost > 0) in.max_cost = caps.max_cost;
  in.stream = false;
  assembly::HostOptions host;
  host.spawn_agent = false;
  host.notice = [](const std::string&) {};
  Result<std::unique_ptr<assembly::AssembledAgent>> agent = assembly::AssembledAgent::create(in, host);
  if (!agent.ok()) return failed(agent.status().message());
  Status approver = (*agent)->set_approver(
      make_deny_all("the autopilot runs unattended: calls that need approval are refused (use a skill whose "
                    "approvalMode is proposal to have a person decide)"));
  if (!approver.ok()) return failed(approver.message());
  Result<RunOutcome> run = (*agent)->agent().run(fill_task_template(trigger.task, ob), stop);
  if (!run.ok()) return failed(run.status().message());
  ObservationOutcome out;
  out.tokens = run->usage.prompt_tokens + run->usage.completion_tokens;
  out.cost = attempt_budget(caps, (*agent)->config()).cost_of(run->usage);
  out.trace_id = run->run_id;
  if (!run->ok) {
    out.kind = ObservationOutcome::Kind::kFailed;
    out.error = run->error;
    return out;
  }
  out.kind = ObservationOutcome::Kind::kDone;
  const size_t shown = detail::utf8_cut_length(run->answer, 300);
  std::string answer = shown < run->answer.size() ? run->answer.substr(0, shown) + "…" : run->answer;
  out.result = "session " + run->session_id + " run " + run->run_id + ": " + answer;
  return out;
}

}  // namespace

std::string fill_task_template(const std::string& task, const Observation& ob) {
  const std::pair<const char*, std::string> fields[] = {
      {"{{source}}", ob.source}, {"{{kind}}", ob.kind}, {"{{subject}}", ob.subject}, {"{{payload}}", ob.payload}};
  std::string out;
  for (size_t i = 0; i < task.size();) {
    bool replaced = false;
    for (const auto& [key, value] : fields) {
      if (task.compare(i, std::char_traits<char>::length(key), key) == 0) {
        out.append(value);
        i += std::char_traits<char>::length(key);
        replaced = true;
        break;
      }
    }
    if (!replaced) out.push_back(task[i++]);
  }
  return out;
}

ObservationWork make_workspace_work(const std::string& workspace, Store* store, const AutopilotConfig& config) {
  const AttemptCaps caps{config.max_tokens_per_run, config.max_cost_per_run};
  return [workspace, store, caps](const Observation& ob, const AutopilotTriggerConfig& trigger, std::stop_token stop) {
    if (!trigger.task.empty()) return run_task(workspace, caps, ob, trigger, stop);
    return run_skills(workspace, store, caps, ob, trigger, stop);
  };
}

}  // namespace keel::autopilot
