// `keel mcp list | call | trust | accept | login | serve`: the configured MCP servers, a direct
// tool call, trusting a workspace server, accepting changed tool definitions (the tool lock), an
// OAuth sign-in, and keel as an MCP server (mcp_serve_command.cpp).
#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "cli/command_table.hpp"
#include "cli/commands.hpp"
#include "cli/interrupt.hpp"
#include "cli/oauth_browser_sign_in.hpp"
#include "keel/assembly.hpp"
#include "assembly/mcp_oauth_files.hpp"
#include "assembly/mcp_setup.hpp"
#include "assembly/mcp_tool_lock.hpp"
#include "assembly/store_access.hpp"
#include "cli/store_output.hpp"
#include "keel/config.hpp"
#include "keel/mcp.hpp"

namespace keel::cli {
namespace {

using json = nlohmann::ordered_json;

constexpr int kExitToolError = 3;
constexpr int kExitServerError = 4;

struct McpArgs {
  std::optional<std::string> workspace;
  bool json = false;
  std::string server, tool, arguments = "{}";
  int sign_in_timeout_s = 300;
};

void warn_line(const std::string& line) { std::fprintf(stderr, "keel: %s\n", line.c_str()); }

// The configuration of the workspace, for the mcp commands.
Result<KeelConfig> load_config(const std::string& workspace) {
  return assembly::resolve_host_config({}, workspace);
}

struct Context {
  std::string workspace;
  KeelConfig config;
  std::unique_ptr<Store> store;  // may be null: then workspace servers are untrusted
};

// Workspace, config and store, or an exit code after reporting.
std::optional<Context> open_context(const std::optional<std::string>& flag, int& code) {
  Context c;
  std::string error;
  c.workspace = resolve_workspace(flag, error);
  if (c.workspace.empty()) {
    code = report_usage_error(error);
    return std::nullopt;
  }
  Result<KeelConfig> config = load_config(c.workspace);
  if (!config.ok()) {
    code = report_usage_error(config.status().message());
    return std::nullopt;
  }
  c.config = std::move(*config);
  Result<std::unique_ptr<Store>> store = assembly::open_default_store();
  if (store.ok()) c.store = std::move(*store);
  return c;
}

// The configured server `name` when it may start; otherwise nullptr and `code` after reporting.
const McpServerConfig* trusted_server(const Context& c, const std::string& name, int& code) {
  for (const auto& s : c.config.mcp_servers) {
    if (s.name != name) continue;
    if (!assembly::mcp_server_trusted(s, c.store.get(), c.workspace)) {
      code = report_usage_error("MCP server '" + s.name + "' from " + s.source + " is not trusted; run `keel mcp trust " +
                                s.name + "` first");
      return nullptr;
    }
    return &s;
  }
  std::fprintf(stderr, "keel: no MCP server named '%s' (see keel mcp list)\n", name.c_str());
  code = kExitNotFound;
  return nullptr;
}

// A client connected to the configured server `name` when it may start; otherwise nullptr and
// `code` after reporting. `server` is set to its configuration.
std::unique_ptr<McpClient> connect_trusted(const Context& c, const std::string& name, const McpServerConfig*& server,
                                           int& code) {
  server = trusted_server(c, name, code);
  if (server == nullptr) return nullptr;
  McpClientHooks hooks;
  assembly::attach_mcp_oauth_files(hooks, c.config.mcp_servers, warn_line);
  Result<std::unique_ptr<McpClient>> client = McpClient::connect(*server, std::move(hooks));
  if (!client.ok()) {
    std::fprintf(stderr, "keel: %s\n", client.status().message().c_str());
    code = kExitServerError;
    return nullptr;
  }
  return std::move(client).value();
}

json tool_json(const McpToolInfo& t) {
  json o = {{"name", t.name}, {"description", t.description}};
  o["input_schema"] = json::parse(t.input_schema.dump());
  if (!t.annotations.empty()) o["annotations"] = json::parse(t.annotations.dump());
  return o;
}

int list_command(const McpArgs& args) {
  int code = 0;
  std::optional<Context> c = open_context(args.workspace, code);
  if (!c) return code;
  std::unique_ptr<McpHub> hub = assembly::make_mcp_hub(c->config, c->workspace, c->store.get());
  hub->connect_all();
  std::vector<McpServerStatus> servers = hub->status();
  hub->close_all();
  if (args.json) {
    json out = json::array();
    for (const auto& s : servers) {
      json tools = json::array();
      for (const auto& t : s.tools) tools.push_back(tool_json(t));
      json o = {{"name", s.name}, {"state", s.state}, {"transport", s.transport}, {"source", s.source}};
      if (!s.error.empty()) o["error"] = s.error;
      if (!s.held_tools.empty()) o["held_tools"] = s.held_tools;
      if (!s.server_info.is_null()) o["server_info"] = json::parse(s.server_info.dump());
      o["tools"] = std::move(tools);
      out.push_back(std::move(o));
    }
    std::printf("%s\n", out.dump(2, ' ', false, json::error_handler_t::replace).c_str());
    return kExitOk;
  }
  if (servers.empty()) {
    std::fprintf(stderr, "no MCP servers configured (add them to %s/.mcp.json or keel.yaml `mcpServers`)\n",
                 c->workspace.c_str());
    return kExitOk;
  }
  for (const auto& s : servers) {
    std::printf("%s  %s  %s  (%s)\n", s.name.c_str(), s.state.c_str(), s.transport.c_str(), s.source.c_str());
    if (!s.error.empty()) std::printf("  %s\n", s.error.c_str());
    for (const auto& t : s.tools) {
      std::printf("  %-40s %s\n", mcp_tool_name(s.name, t.name).c_str(), one_line(t.description, 80).c_str());
    }
    for (const auto& held : s.held_tools) std::printf("  held back: %s\n", held.c_str());
  }
  return kExitOk;
}

int call_command(const McpArgs& args) {
  int code = 0;
  std::optional<Context> c = open_context(args.workspace, code);
  if (!c) return code;
  json parsed = json::parse(args.arguments, nullptr, false);
  if (parsed.is_discarded() || !parsed.is_object()) {
    return report_usage_error("the arguments must be a JSON object, e.g. '{\"path\": \".\"}'");
  }
  const McpServerConfig* server = nullptr;
  std::unique_ptr<McpClient> client = connect_trusted(*c, args.server, server, code);
  if (!client) return code;
  Result<McpToolResult> result = client->call_tool(args.tool, nlohmann::json::parse(parsed.dump()));
  client->close();
  if (!result.ok()) {
    std::fprintf(stderr, "keel: %s\n", result.status().message().c_str());
    return result.status().code() == ErrorCode::kInvalidArgument ? kExitUsage : kExitServerError;
  }
  if (args.json) {
    json out = {{"content", json::parse(result->content.dump())}, {"isError", result->is_error}};
    if (!result->structured.is_null()) out["structuredContent"] = json::parse(result->structured.dump());
    std::printf("%s\n", out.dump(2, ' ', false, json::error_handler_t::replace).c_str());
  } else {
    std::printf("%s\n", result->text().c_str());
  }
  return result->is_error ? kExitToolError : kExitOk;
}

int trust_command(const McpArgs& args) {
  int code = 0;
  std::optional<Context> c = open_context(args.workspace, code);
  if (!c) return code;
  if (!c->store) return report_usage_error("the database cannot be opened, so trust cannot be remembered");
  for (const auto& s : c->config.mcp_servers) {
    if (s.name != args.server) continue;
    if (!s.from_workspace) {
      std::printf("MCP server '%s' comes from your user config (%s); it is trusted already\n", s.name.c_str(),
                  s.source.c_str());
      return kExitOk;
    }
    ApprovalRule rule;
    rule.workspace = c->workspace;
    rule.tool = assembly::mcp_trust_tool(s);
    rule.pattern = assembly::mcp_trust_fingerprint(s);
    rule.verdict = ApprovalVerdict::kAllow;
    Status added = c->store->add_approval_rule(rule);
    if (!added.ok()) return report_store_error(added);
    std::printf("trusted MCP server '%s' (%s) for %s\n", s.name.c_str(), rule.pattern.c_str(), c->workspace.c_str());
    return kExitOk;
  }
  std::fprintf(stderr, "keel: no MCP server named '%s' (see keel mcp list)\n", args.server.c_str());
  return kExitNotFound;
}

// Lists the server's tools as they are now, shows what changed since they were accepted, and
// records them as accepted.
int accept_command(const McpArgs& args) {
  int code = 0;
  std::optional<Context> c = open_context(args.workspace, code);
  if (!c) return code;
  if (!c->store) return report_usage_error("the database cannot be opened, so accepted tools cannot be recorded");
  const McpServerConfig* server = nullptr;
  std::unique_ptr<McpClient> client = connect_trusted(*c, args.server, server, code);
  if (!client) return code;
  Result<std::vector<McpToolInfo>> tools = client->list_tools();
  client->close();
  if (!tools.ok()) {
    std::fprintf(stderr, "keel: %s\n", tools.status().message().c_str());
    return kExitServerError;
  }
  Result<std::vector<McpToolLock>> before = c->store->list_mcp_tool_locks(c->workspace, server->name);
  if (!before.ok()) return report_store_error(before.status());
  Result<std::vector<std::string>> accepted = assembly::accept_mcp_tools(*c->store, c->workspace, server->name, *tools);
  if (!accepted.ok()) return report_store_error(accepted.status());
  for (const std::string& name : *accepted) {
    std::string change = "new";
    for (const McpToolLock& l : *before) {
      if (l.tool != name) continue;
      for (const McpToolInfo& t : *tools) {
        if (t.name == name) change = assembly::describe_tool_change(l.definition, assembly::mcp_tool_definition(t));
      }
    }
    std::printf("accepted %s: %s\n", mcp_tool_name(server->name, name).c_str(), change.c_str());
  }
  std::printf("%zu of %zu tools of MCP server '%s' accepted for %s (the others were unchanged)\n", accepted->size(),
              tools->size(), server->name.c_str(), c->workspace.c_str());
  return kExitOk;
}

// Connects to the server, signing in through a browser when it asks for OAuth, and keeps the
// tokens for later runs.
int login_command(const McpArgs& args) {
  int code = 0;
  std::optional<Context> c = open_context(args.workspace, code);
  if (!c) return code;
  const McpServerConfig* server = trusted_server(*c, args.server, code);
  if (server == nullptr) return code;
  if (server->transport == McpTransportKind::kStdio) {
    return report_usage_error("MCP server '" + server->name +
                              "' is a local process (stdio); only HTTP servers sign in with OAuth");
  }
  const std::stop_token stop = install_interrupt_handler();
  const auto timeout = std::chrono::seconds(args.sign_in_timeout_s);
  int sign_ins = 0;
  McpClientHooks hooks;
  assembly::attach_mcp_oauth_files(hooks, c->config.mcp_servers, warn_line);
  hooks.on_authorize = [&](std::string_view name, const std::string& url, const std::string& redirect) {
    ++sign_ins;
    return sign_in_through_browser(std::string(name), url, redirect, timeout, stop);
  };
  McpServerConfig config = *server;
  config.startup_timeout_ms = std::max<int64_t>(config.startup_timeout_ms, args.sign_in_timeout_s * 1000LL + 60000);
  Result<std::unique_ptr<McpClient>> client = McpClient::connect(config, std::move(hooks));
  if (!client.ok()) {
    std::fprintf(stderr, "keel: %s\n", client.status().message().c_str());
    return kExitServerError;
  }
  Result<std::vector<McpToolInfo>> tools = (*client)->list_tools();
  (*client)->close();
  if (!tools.ok()) {
    std::fprintf(stderr, "keel: %s\n", tools.status().message().c_str());
    return kExitServerError;
  }
  Result<std::filesystem::path> file = assembly::mcp_oauth_file(server->name, server->url);
  if (sign_ins > 0) {
    std::printf("signed in to MCP server '%s' (%zu tools); the sign-in is kept in %s\n", server->name.c_str(),
                tools->size(), file.ok() ? file->c_str() : "memory only");
  } else {
    std::printf("MCP server '%s' did not ask keel to sign in (already signed in, or it needs no OAuth); %zu tools\n",
                server->name.c_str(), tools->size());
  }
  return kExitOk;
}

}  // namespace

void add_mcp_commands(CLI::App& app, CommandAction& action) {
  CLI::App* mcp = app.add_subcommand("mcp", command_summary("mcp"));
  mcp->require_subcommand(1);
  mcp->footer(
      "Servers come from .mcp.json in the workspace ({\"mcpServers\": {NAME: {\"command\", \"args\", \"env\"} | "
      "{\"type\": \"http\", \"url\", \"headers\"}}}) and `mcpServers` in keel.yaml or your user config.\n"
      "Their tools appear to agents as NAME__tool. Workspace servers start only after `keel mcp trust NAME`.\n"
      "A tool whose definition changed since keel first saw it in this workspace is held back until `keel mcp "
      "accept NAME`.\n"
      "An HTTP server behind OAuth: `keel mcp login NAME` signs in once; later runs use and refresh the kept tokens.\n"
      "Exit codes: 0 ok, 1 no such server, 2 usage or configuration error, 3 the tool reported an error, 4 the "
      "server failed.");
  auto args = std::make_shared<McpArgs>();

  CLI::App* list = mcp->add_subcommand("list", "Start each configured server and show its state and tools");
  list->add_option("--workspace,-w", args->workspace, "Workspace folder (default: current directory)");
  list->add_flag("--json", args->json, "Print JSON");
  list->callback([&action, args] { action = [args] { return list_command(*args); }; });

  CLI::App* call = mcp->add_subcommand("call", "Call one tool of one server and print its result");
  call->add_option("server", args->server, "Server name")->required();
  call->add_option("tool", args->tool, "Tool name, as the server calls it")->required();
  call->add_option("arguments", args->arguments, "Arguments as a JSON object (default {})");
  call->add_option("--workspace,-w", args->workspace, "Workspace folder (default: current directory)");
  call->add_flag("--json", args->json, "Print the raw result (content blocks, isError, structuredContent)");
  call->callback([&action, args] { action = [args] { return call_command(*args); }; });

  CLI::App* trust = mcp->add_subcommand("trust", "Allow a server declared by the workspace to start");
  trust->add_option("server", args->server, "Server name")->required();
  trust->add_option("--workspace,-w", args->workspace, "Workspace folder (default: current directory)");
  trust->callback([&action, args] { action = [args] { return trust_command(*args); }; });

  CLI::App* accept = mcp->add_subcommand(
      "accept", "Accept a server's tool definitions as they are now (tools whose definition changed are held back)");
  accept->add_option("server", args->server, "Server name")->required();
  accept->add_option("--workspace,-w", args->workspace, "Workspace folder (default: current directory)");
  accept->callback([&action, args] { action = [args] { return accept_command(*args); }; });

  CLI::App* login = mcp->add_subcommand(
      "login", "Sign in to an HTTP server that asks for OAuth: prints a URL to open, receives the browser's return "
               "on a loopback address, and keeps the tokens under $KEEL_HOME/mcp-oauth");
  login->add_option("server", args->server, "Server name")->required();
  login->add_option("--workspace,-w", args->workspace, "Workspace folder (default: current directory)");
  login->add_option("--timeout", args->sign_in_timeout_s, "Seconds to wait for the browser (default 300)")
      ->check(CLI::Range(1, 3600));
  login->callback([&action, args] { action = [args] { return login_command(*args); }; });

  add_mcp_serve_command(*mcp, action);
}

}  // namespace keel::cli
