// mcp/keel_mcp_handler.hpp — keel as an MCP server: its built-in tools, under the approval policy,
// and a run_agent tool, behind the transport-agnostic MessageHandler (stdio or Streamable HTTP).
//
// Approvals are non-interactive here: a call the policy allows runs, a call it would ask a person
// about is refused (isError, naming why), a call it denies is refused. Arguments are validated
// against each tool's schema; a bad call is a tool error the calling model can correct.
//
// Thread-safety: one KeelMcpServer serves any number of sessions and concurrent requests; tool
// calls run one batch at a time on its executor (a long call delays other calls, never pings).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>

#include "keel/core/approval_gate.hpp"
#include "keel/core/secret_redactor.hpp"
#include "keel/result.hpp"
#include "keel/tool_registry.hpp"
#include "mcp_server/message_handler.hpp"

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
  // Secrets replaced in every tool result before it goes to the client; nullptr: none.
  std::shared_ptr<const SecretRedactor> redactor;
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
