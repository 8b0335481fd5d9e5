#include "api/serve_agent_factory.hpp"

#include <algorithm>

#include "keel/assembly/secrets.hpp"
#include "keel/executable_skill.hpp"
#include "keel/knowledge_skills.hpp"

namespace keel::api {
namespace {

// A profile's inputs: its own settings over the command line's.
assembly::HostInputs profile_inputs(const ServeAgentFlags& flags, const AgentProfileConfig& profile) {
  assembly::HostInputs in = flags;
  if (profile.model) in.model = profile.model;
  if (profile.base_url) in.base_url = profile.base_url;
  if (profile.max_rounds) in.max_rounds = profile.max_rounds;
  if (profile.approve_mode) in.approve_mode = profile.approve_mode;
  return in;
}

std::string describe_model(const KeelConfig& c) {
  if (assembly::uses_lanes(c)) {
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
  KEEL_ASSIGN_OR_RETURN(f->workspace_, assembly::resolve_workspace(flags.workspace));
  f->store_ = &store;
  KEEL_ASSIGN_OR_RETURN(f->base_, assembly::resolve_host_config(flags, f->workspace_));
  f->host_.store = true;
  f->host_.asker = std::move(asker);
  f->host_.spawn_agent = false;  // the registry is shared by concurrent runs with approvers of their own
  f->host_.notice = notice;

  // Profiles: "keel" is the top-level setup; keel.yaml's profiles follow in file order.
  auto add_profile = [&](const AgentProfileConfig* p) -> Status {
    auto entry = std::make_unique<Profile>();
    if (p != nullptr) {
      Result<KeelConfig> cfg = assembly::resolve_host_config(profile_inputs(flags, *p), f->workspace_);
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
    KEEL_ASSIGN_OR_RETURN(std::unique_ptr<LlmClient> probe, assembly::make_backend(entry->config));
    entry->idle.push_back(std::move(probe));
    f->profiles_.push_back(std::move(entry));
    return Status::Ok();
  };
  KEEL_TRY(add_profile(nullptr));
  for (const AgentProfileConfig& p : f->base_.profiles) {
    if (p.name == "keel") return Status::InvalidArgument("profile name 'keel' is taken by the default setup; rename it");
    KEEL_TRY(add_profile(&p));
  }

  KEEL_ASSIGN_OR_RETURN(f->skills_llm_, assembly::make_backend(f->base_));
  KEEL_ASSIGN_OR_RETURN(f->toolbox_, assembly::Toolbox::create(f->base_, f->workspace_, &store, *f->skills_llm_,
                                                               f->host_));
  return f;
}

std::vector<ProfileInfo> ServeAgentFactory::profiles() const {
  std::vector<ProfileInfo> out;
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
    KEEL_ASSIGN_OR_RETURN(client, assembly::make_backend(profile.config));
  }
  Profile* owner = &profile;
  return std::shared_ptr<LlmClient>(client.release(), [owner](LlmClient* c) {
    std::lock_guard lock(owner->mu);
    owner->idle.emplace_back(c);  // kept with its open connections for the next run
  });
}

Result<ServeAgentFactory::Profile*> ServeAgentFactory::find_profile(const RunSettings& settings) const {
  const std::string& name = settings.profile.empty() ? profiles_.front()->info.name : settings.profile;
  auto it = std::find_if(profiles_.begin(), profiles_.end(), [&](const auto& p) { return p->info.name == name; });
  if (it == profiles_.end()) return Status::InvalidArgument("no profile '" + name + "'");
  return it->get();
}

Result<assembly::AgentBlueprint> ServeAgentFactory::blueprint(const RunSettings& settings, LlmClient& llm) const {
  KEEL_ASSIGN_OR_RETURN(Profile * found, find_profile(settings));
  const Profile& profile = *found;
  assembly::HostOptions per_run = host_;
  per_run.notice = nullptr;  // warnings were printed once, at start
  assembly::AgentBlueprint b = assembly::agent_blueprint(profile.config, workspace_, store_, *toolbox_, llm, per_run);
  KEEL_TRY(b.problem);
  AgentOptions& options = b.options;
  if (settings.max_rounds) options.config.max_rounds = *settings.max_rounds;
  if (settings.approval_mode) {  // the client's: only tightens unless approvals.client_may_loosen
    KEEL_TRY(apply_requested_approval_mode(options.approvals, *settings.approval_mode, "the run's approval_mode"));
  }
  options.tool_allowlist = profile.tools;
  return b;
}

Result<std::unique_ptr<AgentLease>> ServeAgentFactory::make(const RunSettings& settings,
                                                            std::function<bool()> suspend_on_stop) {
  KEEL_ASSIGN_OR_RETURN(Profile * profile, find_profile(settings));
  auto lease = std::make_unique<AgentLease>();
  KEEL_ASSIGN_OR_RETURN(lease->llm, take_backend(*profile));
  KEEL_ASSIGN_OR_RETURN(assembly::AgentBlueprint b, blueprint(settings, *lease->llm));
  b.options.suspend_on_stop = std::move(suspend_on_stop);
  lease->agent = std::make_unique<Agent>(*lease->llm, toolbox_->registry(), std::move(b.options));
  for (const std::shared_ptr<Hooks>& hooks : b.hooks) lease->agent->add_hooks(hooks);
  return lease;
}

}  // namespace keel::api

namespace keel::api {
namespace {

nlohmann::json proposal_json(const SkillProposal& p) {
  nlohmann::json args = nlohmann::json::parse(p.arguments, nullptr, false);
  return {{"id", p.public_id},  {"skill", p.skill},   {"tool", p.tool},
          {"arguments", args.is_discarded() ? nlohmann::json(p.arguments) : args},
          {"summary", p.summary}, {"status", proposal_status_name(p.status)}, {"result", p.result},
          {"created_ms", p.created_ms}};
}

}  // namespace

SkillsAccess ServeAgentFactory::skills_access() {
  SkillsAccess access;
  access.list = [this] {
    nlohmann::json knowledge = nlohmann::json::array();
    for (const KnowledgeSkill& k : toolbox_->knowledge_skills()) {
      knowledge.push_back({{"name", k.name}, {"description", k.description}, {"enabled", k.enabled}});
    }
    nlohmann::json executable = toolbox_->executable_skills();
    nlohmann::json proposals = nlohmann::json::array();
    Result<std::vector<SkillProposal>> pending = store_->list_skill_proposals(workspace_, ProposalStatus::kPending);
    if (pending.ok()) {
      for (const SkillProposal& p : *pending) proposals.push_back(proposal_json(p));
    }
    return nlohmann::json{{"knowledge", knowledge}, {"executable", executable}, {"proposals", proposals}};
  };
  access.decide = [this](const std::string& public_id, bool approve) -> Result<nlohmann::json> {
    // By public id within this workspace only: another workspace's proposal is the same NotFound.
    KEEL_ASSIGN_OR_RETURN(SkillProposal p, store_->find_skill_proposal(workspace_, public_id));
    const int64_t id = p.id;
    if (approve) {
      KEEL_ASSIGN_OR_RETURN(SkillProposal done, approve_skill_proposal(*store_, id, toolbox_->registry(), base_.approvals, {},
                                                                       assembly::make_redactor(base_, current_environment())));
      return proposal_json(done);
    }
    KEEL_TRY(store_->decide_skill_proposal(id, ProposalStatus::kRejected, "rejected in the web API"));
    KEEL_ASSIGN_OR_RETURN(SkillProposal done, store_->get_skill_proposal(id));
    return proposal_json(done);
  };
  return access;
}

}  // namespace keel::api
