// `keel skills run ID... [--trigger T] [--input JSON|@file] [--model M] [--json]`: runs executable
// skills (with their dependencies) on one input and prints each skill's status, metrics, output
// and action. The subcommands about proposals are registered from skills_proposals_command.cpp.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/agent_setup.hpp"
#include "cli/commands.hpp"
#include "cli/interrupt.hpp"
#include "cli/json_events.hpp"
#include "assembly/skills_setup.hpp"
#include "assembly/store_access.hpp"
#include "cli/store_output.hpp"

namespace keel::cli {
namespace {

using json = nlohmann::ordered_json;

constexpr int kExitBackend = 4;
constexpr int kExitAborted = 130;

constexpr const char* kRunFooter =
    "Selects the named skills and those with a --trigger, plus everything they depend on, and runs them level by\n"
    "level (independent skills in parallel). Without a model configured, skills with a heuristic use it.\n"
    "Exit codes: 0 every skill succeeded or was skipped, 2 usage, configuration or skill-loading error (also an\n"
    "input that does not match a skill's inputSchema), 3 a skill or an action failed, 4 backend error.\n";

struct SkillRunArgs {
  std::vector<std::string> ids;
  std::vector<std::string> triggers;
  std::string input = "{}";
  assembly::SkillModelFlags model;
  std::optional<std::string> workspace;
  bool json = false;
};

Result<nlohmann::json> read_input(const std::string& arg) {
  std::string text = arg;
  if (!arg.empty() && arg.front() == '@') {
    std::ifstream in(arg.substr(1), std::ios::binary);
    if (!in) {
      std::string msg = "--input: cannot read the file '";
      msg.append(arg.substr(1)).append("'");
      return Status::InvalidArgument(std::move(msg));
    }
    std::stringstream ss;
    ss << in.rdbuf();
    text = ss.str();
  }
  nlohmann::json v = nlohmann::json::parse(text, nullptr, false);
  if (v.is_discarded()) return Status::InvalidArgument("--input is not valid JSON; pass a JSON object or @FILE");
  return v;
}

json parsed_or_text(const std::string& text) {
  json v = json::parse(text, nullptr, false);
  return v.is_discarded() ? json(text) : v;
}

json outcome_json(const SkillOutcome& o) {
  json j = {{"skill", o.id},        {"status", skill_status_name(o.status)},
            {"backend", o.backend}, {"duration_ms", o.duration_ms},
            {"retries", o.retries}, {"skipped", o.skipped}};
  if (!o.reason.empty()) j["reason"] = o.reason;
  if (o.status == SkillStatus::kFailed) j["error_code"] = error_code_name(o.error_code);
  if (!o.repairs.empty()) j["repairs"] = o.repairs;
  if (!o.output.empty()) j["output"] = parsed_or_text(o.output);
  if (o.status == SkillStatus::kFailed && !o.raw_output.empty()) j["raw_output"] = o.raw_output;
  if (o.action.state != SkillActionState::kNone) {
    json a = {{"state", skill_action_state_name(o.action.state)},
              {"tool", o.action.tool},
              {"arguments", parsed_or_text(o.action.arguments)},
              {"detail", o.action.detail}};
    if (o.action.proposal_id != 0) a["proposal_id"] = o.action.proposal_id;
    j["action"] = a;
  }
  return j;
}

void print_jsonl(const std::string& type, json body) {
  json line = {{"v", 1}, {"type", type}};
  for (auto it = body.begin(); it != body.end(); ++it) line[it.key()] = it.value();
  std::string s = line.dump(-1, ' ', false, json::error_handler_t::replace);
  s.push_back('\n');
  std::fwrite(s.data(), 1, s.size(), stdout);
  std::fflush(stdout);
}

void print_text(const SkillOutcome& o) {
  std::string line = o.id;
  line.append(": ").append(skill_status_name(o.status));
  if (!o.backend.empty()) line.append(" · ").append(o.backend);
  line.append(" · ").append(std::to_string(o.duration_ms)).append(" ms · ");
  line.append(std::to_string(o.retries)).append(o.retries == 1 ? " retry" : " retries");
  std::printf("%s\n", line.c_str());
  if (!o.reason.empty()) std::printf("  %s\n", o.reason.c_str());
  if (!o.repairs.empty()) std::printf("  repaired: %s\n", one_line(json(o.repairs).dump(), 300).c_str());
  if (!o.output.empty()) {
    std::string pretty = parsed_or_text(o.output).dump(2, ' ', false, json::error_handler_t::replace);
    std::string indented = "  ";
    for (char c : pretty) {
      indented.push_back(c);
      if (c == '\n') indented.append("  ");
    }
    std::printf("%s\n", indented.c_str());
  }
  if (o.status == SkillStatus::kFailed && !o.raw_output.empty()) {
    std::printf("  raw output: %s\n", one_line(o.raw_output, 500).c_str());
  }
  if (o.action.state != SkillActionState::kNone) {
    std::string a = "  action ";
    a.append(skill_action_state_name(o.action.state));
    if (!o.action.tool.empty())
      a.append(": ").append(o.action.tool).append(" ").append(one_line(o.action.arguments, 200));
    if (!o.action.detail.empty()) a.append(" — ").append(o.action.detail);
    std::printf("%s\n", a.c_str());
  }
  std::fflush(stdout);
}

int run_skills(const SkillRunArgs& args) {
  std::stop_token stop = install_interrupt_handler();
  if (args.ids.empty() && args.triggers.empty()) {
    return usage_failure(args.json, "name at least one skill id or --trigger");
  }
  Result<nlohmann::json> input = read_input(args.input);
  if (!input.ok()) return usage_failure(args.json, input.status().message());
  Result<assembly::SkillsWorkspace> ws = assembly::open_skills_workspace(args.workspace, args.model);
  if (!ws.ok()) return usage_failure(args.json, ws.status().message());
  Result<std::unique_ptr<LlmClient>> client = assembly::make_backend(ws->config);
  if (!client.ok()) return usage_failure(args.json, client.status().message());
  Result<std::unique_ptr<Store>> store = assembly::open_default_store();
  if (!store.ok()) return usage_failure(args.json, store.status().message());
  Result<std::unique_ptr<ToolRegistry>> tools = assembly::make_action_tools(*ws, store->get());
  if (!tools.ok()) return usage_failure(args.json, tools.status().message());

  const bool rules = ws->config.model.kind == ModelSettings::Kind::kRules && !assembly::uses_lanes(ws->config);
  SkillRunnerOptions options;
  options.rules_model = rules;
  options.model_factory = assembly::make_skill_model_factory(*ws);
  options.store = store->get();
  options.workspace = ws->workspace;
  options.tools = tools->get();
  options.approvals = ws->config.approvals;
  Result<std::unique_ptr<SkillRunner>> runner =
      SkillRunner::create(std::move(ws->skills), **client, std::move(options));
  if (!runner.ok()) return usage_failure(args.json, runner.status().message());
  Result<std::vector<std::string>> selected = (*runner)->select(args.ids, args.triggers);
  if (!selected.ok()) return usage_failure(args.json, selected.status().message());
  if (Status s = (*runner)->validate_input(*selected, *input); !s.ok()) return usage_failure(args.json, s.message());
  if (rules && !args.json) {
    std::fprintf(stderr,
                 "keel: no model configured; skills with a heuristic use it, the others need --model or KEEL_MODEL\n");
  }

  SkillRunRequest request;
  request.ids = args.ids;
  request.triggers = args.triggers;
  request.stop = stop;
  const bool as_json = args.json;
  request.on_event = [as_json](const SkillEvent& e) {
    if (as_json) {
      if (e.kind == SkillEvent::Kind::kStarted) {
        print_jsonl("skill_started", {{"run_id", e.run_id}, {"skill", e.skill}});
      } else {
        json body = outcome_json(*e.outcome);
        body["run_id"] = e.run_id;
        print_jsonl("skill_finished", std::move(body));
      }
    } else if (e.kind == SkillEvent::Kind::kFinished) {
      print_text(*e.outcome);
    }
  };
  Result<SkillGraphResult> result = (*runner)->run(request, *input);
  if (!result.ok()) return usage_failure(args.json, result.status().message());
  for (const std::string& w : result->warnings) std::fprintf(stderr, "keel: %s\n", w.c_str());
  int code = kExitOk;
  if (stop.stop_requested()) {
    code = kExitAborted;
  } else if (result->backend_failed()) {
    code = kExitBackend;
  } else if (!result->ok()) {
    code = kExitRunFailed;
  }
  if (as_json) {
    print_jsonl("skills_finished", {{"run_id", result->run_id},
                                    {"ok", result->ok()},
                                    {"duration_ms", result->duration_ms},
                                    {"context", parsed_or_text(result->context)},
                                    {"exit_code", code}});
  } else {
    std::fprintf(stderr, "keel: skill run %s %s in %lld ms\n", result->run_id.c_str(),
                 result->ok() ? "succeeded" : "failed", static_cast<long long>(result->duration_ms));
  }
  return code;
}

}  // namespace

void add_executable_skill_commands(CLI::App& skills, CommandAction& action) {
  auto run = std::make_shared<SkillRunArgs>();
  CLI::App* cmd = skills.add_subcommand("run", "Run executable skills (and what they depend on) on an input");
  cmd->add_option("id", run->ids, "Skill ids to run");
  cmd->add_option("--trigger,-t", run->triggers, "Also run the skills with this trigger (repeatable)");
  cmd->add_option("--input,-i", run->input, "The input: a JSON object, or @FILE holding one (default {})");
  cmd->add_option("--model,-m", run->model.model, "Model for skills that do not name one (as for keel run)");
  cmd->add_option("--base-url", run->model.base_url, "OpenAI-compatible base URL for that model");
  cmd->add_option("--api-key", run->model.api_key, "API key (default: $OPENAI_API_KEY)");
  cmd->add_option("--workspace,-w", run->workspace, "Workspace folder (default: current directory)");
  cmd->add_flag("--json", run->json,
                "Print JSON Lines: skill_started, skill_finished (status, metrics, output, action), skills_finished");
  cmd->footer(kRunFooter);
  cmd->callback([&action, run]() { action = [run]() { return run_skills(*run); }; });
  add_skill_proposal_commands(skills, action);
}

}  // namespace keel::cli
