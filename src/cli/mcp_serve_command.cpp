// `keel mcp serve`: keel's built-in tools and a run_agent tool as an MCP server, on stdin/stdout
// or over Streamable HTTP, with the workspace's files, sessions, memory notes and skills as
// resources and prompts. Approvals follow the workspace's policy: what it would ask about is asked
// of the client's user (elicitation) when the client can ask, else refused.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>

#include "cli/agent_setup.hpp"
#include "cli/commands.hpp"
#include "keel/assembly.hpp"
#include "cli/mcp_http_serve.hpp"
#include "assembly/mcp_setup.hpp"
#include "assembly/store_access.hpp"
#include "cli/store_output.hpp"
#include "assembly/tool_setup.hpp"
#include "keel/config.hpp"
#include "mcp_server/keel_mcp_handler.hpp"
#include "mcp_server/keel_mcp_server_options.hpp"
#include "mcp_server/stdio_server.hpp"

namespace keel::cli {
namespace {

struct ServeArgs {
  std::optional<std::string> workspace, model, base_url, api_key, http, token;
  bool no_auth = false;
  std::optional<std::string> sandbox;  // --sandbox: the shell tool's and run_agent's sandbox
  bool no_agent = false;
};

// run_agent: a fresh quiet agent per task (its own session in the store), under the same policy.
Result<std::string> run_agent(const ServeArgs& args, const std::string& workspace, const std::string& task,
                              std::optional<int> max_rounds, std::stop_token stop) {
  AgentFlags flags;
  flags.model = args.model;
  flags.base_url = args.base_url;
  flags.api_key = args.api_key;
  flags.workspace = workspace;
  flags.max_rounds = max_rounds;
  flags.sandbox = args.sandbox;
  flags.quiet = true;
  flags.no_stream = true;
  KEEL_ASSIGN_OR_RETURN(std::unique_ptr<CliAgent> agent, CliAgent::create(flags));
  Result<RunOutcome> outcome = agent->agent().run(task, stop);
  if (!outcome.ok()) return outcome.status();
  if (!outcome->ok) return Status::Aborted(outcome->error);
  return outcome->answer;
}

int serve_command(const ServeArgs& args) {
  std::string error;
  std::string workspace = resolve_workspace(args.workspace, error);
  if (workspace.empty()) return report_usage_error(error);
  assembly::HostInputs inputs;
  inputs.model = args.model;
  inputs.base_url = args.base_url;
  inputs.api_key = args.api_key;
  inputs.sandbox = args.sandbox;
  Result<KeelConfig> config = assembly::resolve_host_config(inputs, workspace);
  if (!config.ok()) return report_usage_error(config.status().message());
  std::unique_ptr<Store> store;
  if (Result<std::unique_ptr<Store>> opened = assembly::open_default_store(); opened.ok()) store = std::move(*opened);

  ToolRegistry tools;
  if (Status s = assembly::register_host_tools(tools, *config, workspace, store.get(), nullptr); !s.ok()) {
    return report_usage_error(s.message());
  }
  HttpToken http_token;
  if (args.http) {  // before the tools are assembled: the token's value is then one of the secrets
    Result<HttpToken> resolved = resolve_http_token(args.token.value_or(""), args.no_auth);
    if (!resolved.ok()) return report_usage_error(resolved.status().message());
    http_token = std::move(*resolved);
  }
  Result<mcp::KeelMcpServerOptions> built = mcp::keel_mcp_server_options(
      *config, workspace, store.get(), tools, [](const std::string& line) { std::fprintf(stderr, "keel mcp: %s\n", line.c_str()); });
  if (!built.ok()) return report_usage_error(built.status().message());
  mcp::KeelMcpServerOptions options = std::move(*built);
  if (!args.no_agent) {
    options.run_agent = [args, workspace](const std::string& task, std::optional<int> rounds, std::stop_token stop) {
      return run_agent(args, workspace, task, rounds, stop);
    };
  }
  mcp::KeelMcpServer server(std::move(options));

  if (args.http) return serve_mcp_http(server, *args.http, http_token);
  std::unique_ptr<mcp::MessageHandler> session = server.new_session();
  mcp::StdioServeOptions io;
  Status served = mcp::serve_stdio(*session, io);
  if (!served.ok()) {
    std::fprintf(stderr, "keel: %s\n", served.message().c_str());
    return kExitUsage;
  }
  return kExitOk;
}

}  // namespace

void add_mcp_serve_command(CLI::App& mcp, CommandAction& action) {
  auto args = std::make_shared<ServeArgs>();
  CLI::App* serve = mcp.add_subcommand("serve", "Serve keel's tools and a run_agent tool over MCP (stdio by default)");
  serve->add_option("--workspace,-w", args->workspace, "Folder the tools are confined to (default: current directory)");
  serve->add_option("--http", args->http, "Serve Streamable HTTP on HOST:PORT at /mcp instead of stdio, e.g. 127.0.0.1:8765");
  serve->add_option("--token", args->token,
                    "HTTP: require Authorization: Bearer TOKEN (default: the one kept in $KEEL_HOME/serve-token)");
  serve->add_flag("--no-auth", args->no_auth,
                  "HTTP: require no token: every program and user on this machine can then call keel's tools here");
  serve->add_option("--model,-m", args->model, "Model for run_agent, as for keel run");
  serve->add_option("--base-url", args->base_url, "OpenAI-compatible base URL for run_agent");
  serve->add_option("--api-key", args->api_key, "API key for run_agent (default: $OPENAI_API_KEY)");
  serve->add_option("--sandbox", args->sandbox, kSandboxHelp);
  serve->add_flag("--no-agent", args->no_agent, "Do not offer the run_agent tool");
  serve->callback([&action, args] { action = [args] { return serve_command(*args); }; });
}

}  // namespace keel::cli
