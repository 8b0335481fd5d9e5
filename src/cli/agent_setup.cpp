#include "cli/agent_setup.hpp"

#include <cstdio>

#include "cli/commands.hpp"
#include "cli/text_output.hpp"
#include "cli/tty_approver.hpp"
#include "cli/tty_asker.hpp"
#include "keel/cassette.hpp"

namespace keel::cli {
namespace {

constexpr const char* kRulesNotice =
    "keel: no model configured; using the built-in rules model (deterministic: it lists, reads and searches files, "
    "counts lines, aggregates CSV columns with a plan and tells the date and time). Set --model or KEEL_MODEL to use "
    "a real model.";

}  // namespace

std::string resolve_workspace(const std::optional<std::string>& flag, std::string& error) {
  Result<std::string> workspace = assembly::resolve_workspace(flag);
  if (!workspace.ok()) {
    error = workspace.status().message();
    return {};
  }
  return *workspace;
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
  assembly::HostInputs in;
  in.model = flags.model;
  in.base_url = flags.base_url;
  in.api_key = flags.api_key;
  in.workspace = flags.workspace;
  in.max_rounds = flags.max_rounds;
  in.max_tokens = flags.max_tokens;
  in.max_cost = flags.max_cost;
  in.approve_mode = flags.approve_mode;
  in.sandbox = flags.sandbox;
  if (flags.no_stream) in.stream = false;

  const bool quiet = flags.quiet;
  const bool json_out = flags.json;
  assembly::HostOptions host;
  host.store = !flags.ephemeral;
  if (!quiet) host.asker = make_tty_asker();  // nullptr without a terminal: nobody to ask
  host.notice = [quiet, json_out](const std::string& line) {
    if (quiet) return;
    if (json_out) {
      JsonEventsPlugin(stdout, false).notice(line);
    } else {
      std::fprintf(stderr, "keel: %s\n", line.c_str());
    }
  };
  assembly::BackendWrapper record;
  if (flags.record) {
    std::string file = *flags.record;
    record = [file](std::unique_ptr<LlmClient> llm) { return make_recording_client(std::move(llm), file); };
  }
  KEEL_ASSIGN_OR_RETURN(a->assembled_, assembly::AssembledAgent::create(in, host, record));
  Agent& agent = a->assembled_->agent();

  // The notice is for a user who configured no model; `--model rules` is a choice, not an omission.
  const bool rules = assembly::uses_rules_model(a->assembled_->config()) && !flags.model;
  if (quiet) {
    // nothing is printed
  } else if (json_out) {
    a->json_out_ = std::make_unique<JsonEventsPlugin>(stdout, !flags.no_stream);
    if (rules) a->json_out_->notice(kRulesNotice);
    agent.add_hooks(std::shared_ptr<Hooks>(a->json_out_.get(), [](Hooks*) {}));
  } else {
    if (rules) std::fprintf(stderr, "%s\n", kRulesNotice);
    agent.add_hooks(std::make_shared<TextOutputPlugin>(stdout, stderr));
  }
  // --yes answers what the policy asks about; what the policy refuses stays refused.
  Agent* remembered = &agent;
  auto remember = [remembered](const std::string& tool, ApprovalVerdict verdict) {
    return remembered->remember_approval(tool, "", verdict);
  };
  std::shared_ptr<Approver> approver;
  if (flags.yes) {
    approver = make_approve_all();
  } else if (quiet) {
    approver = make_non_interactive_approver();
  } else if (auto tty = make_tty_approver(remember)) {
    approver = std::move(tty);
  } else {
    approver = make_non_interactive_approver();
  }
  KEEL_TRY(a->assembled_->set_approver(std::move(approver)));
  return a;
}

}  // namespace keel::cli
