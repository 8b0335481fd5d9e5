// `keel acp`: keel as an Agent Client Protocol agent on stdin/stdout, for editors (Zed, JetBrains
// IDEs, Neovim plugins). The protocol is src/acp; this reads the flags and hands them over.
#include <CLI/CLI.hpp>
#include <cstdio>

#include "acp/acp_server.hpp"
#include "cli/command_table.hpp"
#include "cli/commands.hpp"

namespace keel::cli {
namespace {

struct AcpArgs {
  std::optional<std::string> model, base_url, api_key, approve_mode, sandbox;
  std::optional<int> max_rounds;
  bool no_stream = false;
};

int acp_command(const AcpArgs& args) {
  acp::AcpServerOptions options;
  options.inputs.model = args.model;
  options.inputs.base_url = args.base_url;
  options.inputs.api_key = args.api_key;
  options.inputs.approve_mode = args.approve_mode;
  options.inputs.sandbox = args.sandbox;
  options.inputs.max_rounds = args.max_rounds;
  if (args.no_stream) options.inputs.stream = false;
  // stdout carries the protocol: everything for the operator goes to stderr (editors log it).
  options.notice = [](const std::string& line) { std::fprintf(stderr, "keel acp: %s\n", line.c_str()); };
  Status served = acp::serve_acp(options, 0, 1);
  if (!served.ok()) {
    std::fprintf(stderr, "keel acp: %s\n", served.message().c_str());
    return kExitUsage;
  }
  return kExitOk;
}

}  // namespace

void add_acp_command(CLI::App& app, CommandAction& action) {
  auto args = std::make_shared<AcpArgs>();
  CLI::App* cmd = app.add_subcommand("acp", command_summary("acp"));
  cmd->add_option("--model,-m", args->model, "Model, as for keel run");
  cmd->add_option("--base-url", args->base_url, "OpenAI-compatible base URL");
  cmd->add_option("--api-key", args->api_key, "API key (default: $OPENAI_API_KEY)");
  cmd->add_option("--max-rounds", args->max_rounds, "Tool rounds per turn (default 20)")->check(CLI::Range(1, 1000));
  cmd->add_option("--approve-mode", args->approve_mode, kApproveModeHelp);
  cmd->add_option("--sandbox", args->sandbox, kSandboxHelp);
  cmd->add_flag("--no-stream", args->no_stream, "Ask the backend for whole replies");
  cmd->callback([&action, args] { action = [args] { return acp_command(*args); }; });
}

}  // namespace keel::cli
