// `keel run`: resolve configuration, build the backend and tools, run one task, map the outcome
// to an exit code.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "cli/commands.hpp"
#include "cli/interrupt.hpp"
#include "cli/json_events.hpp"
#include "cli/text_output.hpp"
#include "cli/tty_approver.hpp"
#include "keel/agent.hpp"
#include "keel/builtin_tools.hpp"
#include "keel/config.hpp"
#include "keel/openai_client.hpp"
#include "keel/rules_model.hpp"

namespace keel::cli {
namespace {

constexpr const char* kRulesNotice =
    "keel: no model configured; using the built-in rules model (deterministic: it lists, reads and searches files, "
    "counts lines and tells the date and time). Set --model or KEEL_MODEL to use a real model.";

constexpr const char* kNoTtyDenial =
    "this call needs approval and keel is not running in an interactive terminal; rerun with --yes to allow "
    "high-risk tools";

Result<std::unique_ptr<LlmClient>> make_backend(const KeelConfig& config) {
  if (config.model.kind == ModelSettings::Kind::kRules) return make_rules_model();
  OpenAiOptions o;
  o.base_url = config.model.base_url;
  o.api_key = config.model.api_key;
  o.model = config.model.model;
  o.connect_timeout_ms = config.connect_timeout_ms;
  o.request_timeout_ms = config.request_timeout_ms;
  o.stream_idle_timeout_ms = config.stream_idle_timeout_ms;
  o.retry.max_attempts = config.retry.max_attempts;
  o.retry.initial_delay_ms = config.retry.initial_delay_ms;
  o.retry.max_delay_ms = config.retry.max_delay_ms;
  KEEL_TRY(validate_openai_options(o));
  return make_openai_client(std::move(o));
}

// The editable repair prompt: <workspace>/.keel/prompts/repair.md, else the user's
// $XDG_CONFIG_HOME/keel/prompts/repair.md; empty (keel's default) when neither exists.
std::string load_repair_prompt(const std::string& workspace, const std::map<std::string, std::string>& env) {
  std::vector<std::filesystem::path> candidates = {std::filesystem::path(workspace) / ".keel/prompts/repair.md"};
  auto xdg = env.find("XDG_CONFIG_HOME");
  auto home = env.find("HOME");
  if (xdg != env.end() && !xdg->second.empty()) {
    candidates.push_back(std::filesystem::path(xdg->second) / "keel/prompts/repair.md");
  } else if (home != env.end() && !home->second.empty()) {
    candidates.push_back(std::filesystem::path(home->second) / ".config/keel/prompts/repair.md");
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

}  // namespace

std::string resolve_workspace(const std::optional<std::string>& flag, std::string& error) {
  std::error_code ec;
  std::filesystem::path p = flag ? std::filesystem::path(*flag) : std::filesystem::current_path(ec);
  std::filesystem::path canonical = std::filesystem::canonical(p, ec);
  if (ec || !std::filesystem::is_directory(canonical, ec)) {
    error = "workspace '" + p.string() + "' is not an existing directory";
    return {};
  }
  return canonical.string();
}

int run_command(const RunArgs& args) {
  std::stop_token stop = install_interrupt_handler();  // first: Ctrl-C during set-up is a clean abort too
  std::unique_ptr<JsonEventsPlugin> json_out;
  if (args.json) json_out = std::make_unique<JsonEventsPlugin>(stdout, !args.no_stream);
  auto usage_error = [&](const std::string& message) {
    if (json_out) json_out->error("usage", message, kExitUsage);
    std::fprintf(stderr, "keel: %s\n", message.c_str());
    return kExitUsage;
  };
  if (args.task.find_first_not_of(" \t\r\n") == std::string::npos) return usage_error("the task is empty");

  std::string error;
  std::string workspace = resolve_workspace(args.workspace, error);
  if (workspace.empty()) return usage_error(error);

  ConfigInputs inputs;
  inputs.model = args.model;
  inputs.base_url = args.base_url;
  inputs.api_key = args.api_key;
  inputs.max_rounds = args.max_rounds;
  if (args.no_stream) inputs.stream = false;
  inputs.env = current_environment();
  inputs.workspace = workspace;
  if (const char* home = std::getenv("HOME")) inputs.home = home;
  Result<KeelConfig> config = resolve_config(inputs);
  if (!config.ok()) return usage_error(config.status().message());

  Result<std::unique_ptr<LlmClient>> llm = make_backend(*config);
  if (!llm.ok()) return usage_error(llm.status().message());

  ToolRegistry tools;
  BuiltinToolOptions tool_options;
  tool_options.workspace_root = workspace;
  tool_options.enable_shell = config->shell_enabled;
  tool_options.shell_timeout_ms = config->shell_timeout_ms;
  if (Status s = register_builtin_tools(tools, tool_options); !s.ok()) return usage_error(s.message());

  AgentOptions options;
  options.config.max_rounds = config->max_rounds;
  options.config.repair_prompt = load_repair_prompt(workspace, inputs.env);
  options.workspace = workspace;
  for (const auto& rule : config->intents) options.intents.push_back(rule);
  options.planner.enabled = config->planner_enabled;
  options.planner.timeout_ms = config->planner_timeout_ms;
  options.stream = config->stream;
  Agent agent(**llm, tools, options);

  if (json_out) {
    if (config->model.kind == ModelSettings::Kind::kRules) json_out->notice(kRulesNotice);
    agent.add_hooks(std::shared_ptr<Hooks>(json_out.get(), [](Hooks*) {}));
  } else {
    if (config->model.kind == ModelSettings::Kind::kRules) std::fprintf(stderr, "%s\n", kRulesNotice);
    agent.add_hooks(std::make_shared<TextOutputPlugin>(stdout, stderr));
  }
  if (args.yes) {
    agent.set_approver(make_approve_all());
  } else if (auto tty = make_tty_approver()) {
    agent.set_approver(std::move(tty));
  } else {
    agent.set_approver(make_deny_all(kNoTtyDenial));
  }

  Result<RunOutcome> outcome = agent.run(args.task, stop);
  if (!outcome.ok()) return usage_error(outcome.status().message());
  return exit_code_for(*outcome);
}

}  // namespace keel::cli
