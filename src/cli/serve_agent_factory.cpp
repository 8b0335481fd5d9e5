#include "cli/serve_agent_factory.hpp"

#include <algorithm>
#include <cstdlib>

#include "cli/agent_setup.hpp"
#include "cli/local_backend.hpp"
#include "cli/mcp_setup.hpp"
#include "cli/commands.hpp"
#include "cli/skills_setup.hpp"
#include "cli/tool_setup.hpp"
#include "keel/knowledge_skills.hpp"

namespace keel::cli {
namespace {

ConfigInputs inputs_for(const ServeAgentFlags& flags, const AgentProfileConfig* profile, const std::string& workspace) {
  ConfigInputs in;
  in.model = profile && profile->model ? profile->model : flags.model;
  in.base_url = profile && profile->base_url ? profile->base_url : flags.base_url;
  in.api_key = flags.api_key;
  in.max_rounds = profile && profile->max_rounds ? profile->max_rounds : flags.max_rounds;
  in.approve_mode = profile && profile->approve_mode ? profile->approve_mode : flags.approve_mode;
  in.env = current_environment();
  in.workspace = workspace;
  if (const char* home = std::getenv("HOME")) in.home = home;
  return in;
}

std::string describe_model(const KeelConfig& c) {
  if (uses_lanes(c)) {
    std::string lanes = "lanes:";
    for (const LaneConfig& lane : c.lanes) lanes += " " + lane.model;
    return lanes;
  }
  if (c.model.kind == ModelSettings::Kind::kRules) return "rules";
  return c.model.model.empty() ? c.model.base_url : c.model.model;
}

}  // namespace

ServeAgentFactory::~ServeAgentFactory() = default;

Result<std::unique_ptr<ServeAgentFactory>> ServeAgentFactory::create(
    const ServeAgentFlags& flags, Store& store, std::shared_ptr<UserAsker> asker,
    const std::function<void(const std::string&)>& notice) {
  std::unique_ptr<ServeAgentFactory> f(new ServeAgentFactory());
  std::string error;
  f->workspace_ = resolve_workspace(flags.workspace, error);
  if (f->workspace_.empty()) return Status::InvalidArgument(error);
  f->store_ = &store;
  ConfigInputs base_inputs = inputs_for(flags, nullptr, f->workspace_);
  f->env_ = base_inputs.env;
  KEEL_ASSIGN_OR_RETURN(f->base_, resolve_config(base_inputs));

  // Profiles: "keel" is the top-level setup; keel.yaml's profiles follow in file order.
  auto add_profile = [&](const AgentProfileConfig* p) -> Status {
    auto entry = std::make_unique<Profile>();
    if (p != nullptr) {
      Result<KeelConfig> cfg = resolve_config(inputs_for(flags, p, f->workspace_));
      if (!cfg.ok()) return Status::InvalidArgument("profile '" + p->name + "': " + cfg.status().message());
      entry->config = std::move(*cfg);
      entry->info.name = p->name;
      entry->info.description = p->description;
      entry->tools = p->tools;
    } else {
      entry->config = f->base_;
      entry->info.name = "keel";
      entry->info.description = "the workspace's default agent";
    }
    entry->info.model = describe_model(entry->config);
    entry->info.max_rounds = entry->config.max_rounds;
    KEEL_ASSIGN_OR_RETURN(std::unique_ptr<LlmClient> probe, make_backend(entry->config));
    entry->idle.push_back(std::move(probe));
    f->profiles_.push_back(std::move(entry));
    return Status::Ok();
  };
  KEEL_TRY(add_profile(nullptr));
  for (const AgentProfileConfig& p : f->base_.profiles) {
    if (p.name == "keel") return Status::InvalidArgument("profile name 'keel' is taken by the default setup; rename it");
    KEEL_TRY(add_profile(&p));
  }

  f->tools_ = std::make_unique<ToolRegistry>();
  KEEL_TRY(register_cli_tools(*f->tools_, f->base_, f->workspace_, &store, false, std::move(asker)));
  if (f->base_.skills.enabled) {
    KnowledgeSkillSet skills = load_cli_knowledge_skills(f->base_, f->workspace_, &store);
    for (const std::string& problem : skills.problems) notice("warning: " + problem);
    if (std::any_of(skills.skills.begin(), skills.skills.end(), [](const KnowledgeSkill& s) { return s.enabled; })) {
      KEEL_TRY(register_load_skill_tool(*f->tools_, skills.skills));
    }
    f->knowledge_ = std::move(skills.skills);
    Result<std::vector<ExecutableSkill>> executable = load_executable_skills(f->base_.skill_dirs);
    if (!executable.ok()) {
      notice("warning: run_skill is not offered: " + executable.status().message());
    } else {
      SkillsWorkspace ws;
      ws.workspace = f->workspace_;
      ws.env = f->env_;
      ws.home = base_inputs.home;
      KEEL_ASSIGN_OR_RETURN(f->skills_llm_, make_backend(f->base_));
      SkillRunnerOptions so;
      so.threads = 2;
      so.rules_model = f->base_.model.kind == ModelSettings::Kind::kRules && !uses_lanes(f->base_);
      so.model_factory = make_skill_model_factory(ws);
      so.store = &store;
      so.workspace = f->workspace_;
      so.tools = f->tools_.get();
      so.approvals = f->base_.approvals;
      for (const ExecutableSkill& s : *executable) {
        f->executable_.push_back({{"id", s.manifest.id},
                                  {"description", s.manifest.description},
                                  {"approval", skill_approval_mode_name(s.manifest.approval_mode)}});
      }
      Result<std::unique_ptr<SkillRunner>> runner = SkillRunner::create(std::move(*executable), *f->skills_llm_, so);
      if (!runner.ok()) {
        notice("warning: run_skill is not offered: " + runner.status().message());
      } else {
        f->skills_ = std::move(*runner);
        KEEL_TRY(f->tools_->add(make_run_skill_tool(*f->skills_)));
      }
    }
  }
  KEEL_ASSIGN_OR_RETURN(f->mcp_, start_mcp_servers(f->base_, f->workspace_, &store, *f->tools_, notice));
  return f;
}

std::vector<api::ProfileInfo> ServeAgentFactory::profiles() const {
  std::vector<api::ProfileInfo> out;
  for (const auto& p : profiles_) out.push_back(p->info);
  return out;
}

Result<std::shared_ptr<LlmClient>> ServeAgentFactory::take_backend(Profile& profile) {
  std::unique_ptr<LlmClient> client;
  {
    std::lock_guard lock(profile.mu);
    if (!profile.idle.empty()) {
      client = std::move(profile.idle.back());
      profile.idle.pop_back();
    }
  }
  if (!client) {
    KEEL_ASSIGN_OR_RETURN(client, make_backend(profile.config));
  }
  Profile* owner = &profile;
  return std::shared_ptr<LlmClient>(client.release(), [owner](LlmClient* c) {
    std::lock_guard lock(owner->mu);
    owner->idle.emplace_back(c);  // kept with its open connections for the next run
  });
}

Result<std::unique_ptr<api::AgentLease>> ServeAgentFactory::make(const api::RunSettings& settings,
                                                                 std::function<bool()> suspend_on_stop) {
  const std::string& name = settings.profile.empty() ? profiles_.front()->info.name : settings.profile;
  auto it = std::find_if(profiles_.begin(), profiles_.end(), [&](const auto& p) { return p->info.name == name; });
  if (it == profiles_.end()) return Status::InvalidArgument("no profile '" + name + "'");
  Profile& profile = **it;
  const KeelConfig& c = profile.config;
  auto lease = std::make_unique<api::AgentLease>();
  KEEL_ASSIGN_OR_RETURN(lease->llm, take_backend(profile));
  AgentOptions options;
  options.config.max_rounds = settings.max_rounds.value_or(c.max_rounds);
  options.config.repair_prompt = load_prompt("repair.md", workspace_, env_);
  options.workspace = workspace_;
  for (const auto& rule : c.intents) options.intents.push_back(rule);
  options.stream = c.stream;
  options.store = store_;
  options.approvals = c.approvals;
  if (settings.approval_mode) {
    std::optional<ApprovalMode> mode = parse_approval_mode(*settings.approval_mode);
    if (!mode) return Status::InvalidArgument("approval_mode must be auto, confirm or deny");
    options.approvals.override_mode = mode;
    options.approvals.override_source = "the run's approval_mode";
  }
  options.config.context.context_window = static_cast<size_t>(c.context_window);
  if (!uses_lanes(c)) {
    if (size_t local = local_context_window(c); local > 0) options.config.context.context_window = local;
  }
  options.config.token_counter = make_token_counter(c, nullptr);
  options.config.context.threshold = c.context_threshold_percent / 100.0;
  options.config.context.recency_rounds = c.context_recency_rounds;
  options.config.context.summary_cooldown_rounds = c.context_summary_cooldown_rounds;
  options.config.context.summarize_prompt = load_prompt("summarize.md", workspace_, env_);
  options.knowledge_skills = knowledge_;
  options.skill_disclosure.share_percent = c.skills.disclosure_percent;
  options.tool_allowlist = profile.tools;
  options.suspend_on_stop = std::move(suspend_on_stop);
  lease->agent = std::make_unique<Agent>(*lease->llm, *tools_, std::move(options));
  return lease;
}

}  // namespace keel::cli

namespace keel::cli {
namespace {

nlohmann::json proposal_json(const SkillProposal& p) {
  nlohmann::json args = nlohmann::json::parse(p.arguments, nullptr, false);
  return {{"id", p.id},         {"skill", p.skill},   {"tool", p.tool},
          {"arguments", args.is_discarded() ? nlohmann::json(p.arguments) : args},
          {"summary", p.summary}, {"status", proposal_status_name(p.status)}, {"result", p.result},
          {"created_ms", p.created_ms}};
}

}  // namespace

api::SkillsAccess ServeAgentFactory::skills_access() {
  api::SkillsAccess access;
  access.list = [this] {
    nlohmann::json knowledge = nlohmann::json::array();
    for (const KnowledgeSkill& k : knowledge_) {
      knowledge.push_back({{"name", k.name}, {"description", k.description}, {"enabled", k.enabled}});
    }
    nlohmann::json executable = skills_ ? executable_ : nlohmann::json::array();
    nlohmann::json proposals = nlohmann::json::array();
    Result<std::vector<SkillProposal>> pending = store_->list_skill_proposals(workspace_, ProposalStatus::kPending);
    if (pending.ok()) {
      for (const SkillProposal& p : *pending) proposals.push_back(proposal_json(p));
    }
    return nlohmann::json{{"knowledge", knowledge}, {"executable", executable}, {"proposals", proposals}};
  };
  access.decide = [this](int64_t id, bool approve) -> Result<nlohmann::json> {
    KEEL_ASSIGN_OR_RETURN(SkillProposal p, store_->get_skill_proposal(id));
    if (p.workspace != workspace_) return Status::NotFound("no skill proposal " + std::to_string(id) + " in this workspace");
    if (approve) {
      KEEL_ASSIGN_OR_RETURN(SkillProposal done, approve_skill_proposal(*store_, id, *tools_, base_.approvals));
      return proposal_json(done);
    }
    KEEL_TRY(store_->decide_skill_proposal(id, ProposalStatus::kRejected, "rejected in the web API"));
    KEEL_ASSIGN_OR_RETURN(SkillProposal done, store_->get_skill_proposal(id));
    return proposal_json(done);
  };
  return access;
}

}  // namespace keel::cli
