#include "cli/agent_setup.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "cli/commands.hpp"
#include "cli/store_access.hpp"
#include "cli/text_output.hpp"
#include "cli/tty_approver.hpp"
#include "cli/mcp_setup.hpp"
#include "cli/skills_setup.hpp"
#include "cli/tool_setup.hpp"
#include "cli/local_backend.hpp"
#include "keel/cassette.hpp"
#include "keel/lanes.hpp"
#include "keel/spawn_agent.hpp"
#include "keel/anthropic_client.hpp"
#include "keel/openai_client.hpp"
#include "keel/rules_model.hpp"

namespace keel::cli {
namespace {

constexpr const char* kRulesNotice =
    "keel: no model configured; using the built-in rules model (deterministic: it lists, reads and searches files, "
    "counts lines and tells the date and time). Set --model or KEEL_MODEL to use a real model.";

}  // namespace

// An editable prompt: <workspace>/.keel/prompts/NAME, else the user's
// $XDG_CONFIG_HOME/keel/prompts/NAME (~/.config/...); empty (keel's default) when neither exists.
std::string load_prompt(const std::string& name, const std::string& workspace,
                        const std::map<std::string, std::string>& env) {
  std::vector<std::filesystem::path> candidates = {std::filesystem::path(workspace) / ".keel/prompts" / name};
  auto xdg = env.find("XDG_CONFIG_HOME");
  auto home = env.find("HOME");
  if (xdg != env.end() && !xdg->second.empty()) {
    candidates.push_back(std::filesystem::path(xdg->second) / "keel/prompts" / name);
  } else if (home != env.end() && !home->second.empty()) {
    candidates.push_back(std::filesystem::path(home->second) / ".config/keel/prompts" / name);
  }
  for (const auto& path : candidates) {
    std::ifstream in(path, std::ios::binary);
    if (!in) continue;
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  return {};
}

namespace {

// The fields every HTTP backend's options share: server, key, model, timeouts and retries.
template <class Options>
Options http_backend_options(const ModelSettings& model, const KeelConfig& config) {
  Options o;
  o.base_url = model.base_url;
  o.api_key = model.api_key;
  o.model = model.model;
  o.connect_timeout_ms = config.connect_timeout_ms;
  o.request_timeout_ms = config.request_timeout_ms;
  o.stream_idle_timeout_ms = config.stream_idle_timeout_ms;
  o.retry.max_attempts = config.retry.max_attempts;
  o.retry.initial_delay_ms = config.retry.initial_delay_ms;
  o.retry.max_delay_ms = config.retry.max_delay_ms;
  return o;
}

// One backend: the rules model, a cassette's replay, the Anthropic or an OpenAI-compatible client.
Result<std::unique_ptr<LlmClient>> make_single_backend(const ModelSettings& model, const KeelConfig& config) {
  if (model.kind == ModelSettings::Kind::kRules) return make_rules_model();
  if (model.kind == ModelSettings::Kind::kReplay) return make_replay_client(model.model);
  if (model.kind == ModelSettings::Kind::kLocal) return make_local_backend(model, config);
  if (model.kind == ModelSettings::Kind::kAnthropic) {
    AnthropicOptions a = http_backend_options<AnthropicOptions>(model, config);
    KEEL_TRY(validate_anthropic_options(a));
    return make_anthropic_client(std::move(a));
  }
  OpenAiOptions o = http_backend_options<OpenAiOptions>(model, config);
  KEEL_TRY(validate_openai_options(o));
  return make_openai_client(std::move(o));
}

// keel.yaml's lanes as a cascade; each lane's client is made on its first use.
Result<std::unique_ptr<LlmClient>> make_lanes_backend(const KeelConfig& config) {
  std::vector<LaneSpec> specs;
  for (const LaneConfig& lane : config.lanes) {
    LaneSpec spec;
    spec.label = lane.model;
    spec.timeout_floor_ms = lane.timeout_floor_ms;
    spec.rate_limit_per_minute = lane.rate_limit_per_minute;
    std::optional<ModelSettings> settings = lane.settings;
    std::string error = lane.load_error;
    spec.create = [settings, error, config]() -> Result<std::unique_ptr<LlmClient>> {
      if (!settings) return Status::InvalidArgument(error);
      return make_single_backend(*settings, config);
    };
    specs.push_back(std::move(spec));
  }
  return make_lane_cascade(std::move(specs));
}

}  // namespace

bool uses_lanes(const KeelConfig& config) { return !config.lanes.empty() && config.model.source != "--model"; }

Result<std::unique_ptr<LlmClient>> make_backend(const KeelConfig& config) {
  if (uses_lanes(config)) return make_lanes_backend(config);
  return make_single_backend(config.model, config);
}

std::optional<std::string> stored_workspace(const std::string& id) {
  Result<std::unique_ptr<Store>> store = open_cli_store();
  if (!store.ok()) return std::nullopt;
  std::string session_id = id;
  if (id.rfind("r_", 0) == 0) {
    Result<RunRecord> run = (*store)->get_run(id);
    if (!run.ok()) return std::nullopt;
    session_id = run->session_id;
  }
  Result<SessionRecord> session = (*store)->get_session(session_id);
  std::error_code ec;
  if (!session.ok() || session->workspace.empty() || !std::filesystem::is_directory(session->workspace, ec)) {
    return std::nullopt;
  }
  return session->workspace;
}

int usage_failure(bool json, const std::string& message) {
  if (json) JsonEventsPlugin(stdout, false).error("usage", message, kExitUsage);
  std::fprintf(stderr, "keel: %s\n", message.c_str());
  return kExitUsage;
}

int CliAgent::fail(const std::string& kind, const std::string& message, int exit_code) const {
  if (json_out_) json_out_->error(kind, message, exit_code);
  std::fprintf(stderr, "keel: %s\n", message.c_str());
  return exit_code;
}

Result<std::unique_ptr<CliAgent>> CliAgent::create(const AgentFlags& flags) {
  std::unique_ptr<CliAgent> a(new CliAgent());
  std::string error;
  a->workspace_ = resolve_workspace(flags.workspace, error);
  if (a->workspace_.empty()) return Status::InvalidArgument(error);

  ConfigInputs inputs;
  inputs.model = flags.model;
  inputs.base_url = flags.base_url;
  inputs.api_key = flags.api_key;
  inputs.max_rounds = flags.max_rounds;
  if (flags.no_stream) inputs.stream = false;
  inputs.approve_mode = flags.approve_mode;
  inputs.env = current_environment();
  inputs.workspace = a->workspace_;
  if (const char* home = std::getenv("HOME")) inputs.home = home;
  KEEL_ASSIGN_OR_RETURN(a->config_, resolve_config(inputs));
  KEEL_ASSIGN_OR_RETURN(a->llm_, make_backend(a->config_));
  if (flags.record) {
    KEEL_ASSIGN_OR_RETURN(a->llm_, make_recording_client(std::move(a->llm_), *flags.record));
  }

  a->tools_ = std::make_unique<ToolRegistry>();
  if (!flags.ephemeral) {
    KEEL_ASSIGN_OR_RETURN(a->store_, open_cli_store());
  }
  KEEL_TRY(register_cli_tools(*a->tools_, a->config_, a->workspace_, a->store_.get(), !flags.quiet));
  bool quiet = flags.quiet;
  bool json_out = flags.json;
  auto notice = [quiet, json_out](const std::string& line) {
    if (quiet) return;
    if (json_out) {
      JsonEventsPlugin(stdout, false).notice(line);
    } else {
      std::fprintf(stderr, "keel: %s\n", line.c_str());
    }
  };
  AgentOptions options;
  if (a->config_.skills.enabled) {
    KnowledgeSkillSet skills = load_cli_knowledge_skills(a->config_, a->workspace_, a->store_.get());
    for (const std::string& problem : skills.problems) notice("warning: " + problem);
    const bool any_enabled =
        std::any_of(skills.skills.begin(), skills.skills.end(), [](const KnowledgeSkill& s) { return s.enabled; });
    if (any_enabled) KEEL_TRY(register_load_skill_tool(*a->tools_, skills.skills));
    options.knowledge_skills = std::move(skills.skills);
    options.skill_disclosure.share_percent = a->config_.skills.disclosure_percent;
    // run_skill: the executable skills (the workspace's and the built-in ones). A skill.json that
    // does not load only costs the agent this tool.
    Result<std::vector<ExecutableSkill>> executable = load_executable_skills(a->config_.skill_dirs);
    if (!executable.ok()) {
      notice("warning: run_skill is not offered: " + executable.status().message());
    } else {
      SkillsWorkspace ws;
      ws.workspace = a->workspace_;
      ws.env = inputs.env;
      ws.home = inputs.home;
      SkillRunnerOptions so;
      so.threads = 2;
      so.rules_model = a->config_.model.kind == ModelSettings::Kind::kRules && !uses_lanes(a->config_);
      so.model_factory = make_skill_model_factory(ws);
      so.store = a->store_.get();
      so.workspace = a->workspace_;
      so.tools = a->tools_.get();
      so.approvals = a->config_.approvals;
      Result<std::unique_ptr<SkillRunner>> runner = SkillRunner::create(std::move(*executable), *a->llm_, so);
      if (!runner.ok()) {
        notice("warning: run_skill is not offered: " + runner.status().message());
      } else {
        a->skills_ = std::move(*runner);
        KEEL_TRY(a->tools_->add(make_run_skill_tool(*a->skills_)));
      }
    }
  }
  KEEL_ASSIGN_OR_RETURN(a->mcp_,
                        start_mcp_servers(a->config_, a->workspace_, a->store_.get(), *a->tools_, notice));

  options.config.max_rounds = a->config_.max_rounds;
  options.config.repair_prompt = load_prompt("repair.md", a->workspace_, inputs.env);
  options.workspace = a->workspace_;
  for (const auto& rule : a->config_.intents) options.intents.push_back(rule);
  options.planner.enabled = a->config_.planner_enabled;
  options.planner.timeout_ms = a->config_.planner_timeout_ms;
  options.stream = a->config_.stream;
  options.store = a->store_.get();
  options.approvals = a->config_.approvals;
  options.config.context.context_window = static_cast<size_t>(a->config_.context_window);
  if (!uses_lanes(a->config_)) {
    if (size_t local = local_context_window(a->config_); local > 0) options.config.context.context_window = local;
  }
  {
    std::string warning;
    options.config.token_counter = make_token_counter(a->config_, &warning);
    if (!warning.empty()) notice("warning: " + warning);
  }
  options.config.context.threshold = a->config_.context_threshold_percent / 100.0;
  options.config.context.recency_rounds = a->config_.context_recency_rounds;
  options.config.context.summary_cooldown_rounds = a->config_.context_summary_cooldown_rounds;
  options.config.context.summarize_prompt = load_prompt("summarize.md", a->workspace_, inputs.env);
  a->agent_ = std::make_unique<Agent>(*a->llm_, *a->tools_, options);
  if (!flags.ephemeral) {
    if (std::shared_ptr<Hooks> kv = make_local_state_hooks(*a->llm_, a->config_)) a->agent_->add_hooks(kv);
  }

  bool rules = a->config_.model.kind == ModelSettings::Kind::kRules && !uses_lanes(a->config_);
  if (flags.quiet) {
    // nothing is printed
  } else if (flags.json) {
    a->json_out_ = std::make_unique<JsonEventsPlugin>(stdout, !flags.no_stream);
    if (rules) a->json_out_->notice(kRulesNotice);
    a->agent_->add_hooks(std::shared_ptr<Hooks>(a->json_out_.get(), [](Hooks*) {}));
  } else {
    if (rules) std::fprintf(stderr, "%s\n", kRulesNotice);
    a->agent_->add_hooks(std::make_shared<TextOutputPlugin>(stdout, stderr));
  }
  // --yes answers what the policy asks about; what the policy refuses stays refused.
  Agent* agent = a->agent_.get();
  auto remember = [agent](const std::string& tool, ApprovalVerdict verdict) {
    return agent->remember_approval(tool, "", verdict);
  };
  std::shared_ptr<Approver> approver;
  if (flags.yes) {
    approver = make_approve_all();
  } else if (flags.quiet) {
    approver = make_non_interactive_approver();
  } else if (auto tty = make_tty_approver(remember)) {
    approver = std::move(tty);
  } else {
    approver = make_non_interactive_approver();
  }
  a->agent_->set_approver(approver);
  // Sub-agents share the backend, store, policy and approver; their saved "always" answers go
  // through the store like the parent's.
  KEEL_TRY(register_spawn_agent_tool(*a->tools_, *a->llm_, options, approver));
  return a;
}

}  // namespace keel::cli
