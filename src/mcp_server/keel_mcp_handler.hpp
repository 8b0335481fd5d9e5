// mcp/keel_mcp_handler.hpp — keel as an MCP server: its built-in tools, under the approval policy,
// a run_agent tool, and the resources, prompts and completions of its catalogs, behind the
// transport-agnostic MessageHandler (stdio or Streamable HTTP).
//
// Approvals: a call the policy allows runs; a call it would ask a person about is asked of the
// client's user with elicitation/create when the client declared that capability (an answer other
// than an explicit allow, or none within approval_timeout, refuses it), and refused (isError,
// saying how to allow it) when it did not; a call the policy denies is refused. Arguments are validated
// against each tool's schema; a bad call is a tool error the calling model can correct.
//
// A call with a progress token gets progress 0 when it starts and 1 of 1 when it ends; a client
// that set a logging level gets each call's log line as notifications/message. Subscribed
// resources are checked every watch_interval and notifications/resources/updated goes out on the
// session's outbox (stdio, or the HTTP session's GET stream).
//
// Thread-safety: one KeelMcpServer serves any number of sessions and concurrent requests; tool
// calls run one batch at a time on its executor (a long call delays other calls, never pings).
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "keel/core/approval_gate.hpp"
#include "keel/core/secret_redactor.hpp"
#include "keel/result.hpp"
#include "keel/tool_registry.hpp"
#include "mcp_server/message_handler.hpp"
#include "mcp_server/server_catalog.hpp"

namespace keel::mcp {

struct KeelMcpServerOptions {
  const ToolRegistry* tools = nullptr;             // required; must outlive the server
  std::shared_ptr<const ApprovalGate> gate;        // null: risk alone decides (high is refused)
  std::string workspace_root;                      // handed to tools
  std::string instructions;                        // sent in the initialize result
  // Runs a keel agent on `task` and returns its answer; null: no run_agent tool.
  std::function<Result<std::string>(const std::string& task, std::optional<int> max_rounds, std::stop_token stop)>
      run_agent;
  std::function<void(const std::string& line)> on_log;  // one line per tool call and refusal
  // Secrets replaced in every tool result, resource and prompt before it goes to the client;
  // nullptr: none.
  std::shared_ptr<const SecretRedactor> redactor;
  // Resources, resource templates, prompts and completions, asked in this order; empty: tools only.
  std::vector<std::shared_ptr<const ServerCatalog>> catalogs;
  // Tools the server implements itself, listed after the registry's (one whose name the registry
  // or run_agent already has is left out).
  std::vector<ServerTool> server_tools;
  std::chrono::milliseconds watch_interval = std::chrono::seconds(1);  // subscribed resources checked this often
  std::chrono::milliseconds approval_timeout = std::chrono::minutes(10);  // an unanswered approval refuses the call
};

class KeelMcpServer {
 public:
  explicit KeelMcpServer(KeelMcpServerOptions options);
  ~KeelMcpServer();
  KeelMcpServer(const KeelMcpServer&) = delete;
  KeelMcpServer& operator=(const KeelMcpServer&) = delete;

  // A handler for a new session; it borrows this server, which must outlive it.
  std::unique_ptr<MessageHandler> new_session();

  class Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace keel::mcp
