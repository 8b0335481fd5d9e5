// acp/acp_server.hpp — keel as an ACP (Agent Client Protocol) agent, so editors that speak it
// (Zed, JetBrains IDEs, Neovim plugins) run keel as their agent over stdin/stdout.
//
// Each ACP session is a keel session in the store (its id is the session id), built through the
// one assembly path with the session's folder as the workspace: `keel chat --session ID` continues
// it. A prompt is one turn; its events stream as `session/update`; calls the workspace's policy
// asks about become `session/request_permission`; `session/cancel` stops the turn.
//
// Thread-safety: serve_acp() owns its sessions; each turn runs on a thread of its own.
#pragma once

#include <chrono>
#include <functional>
#include <string>

#include "keel/assembly.hpp"
#include "keel/result.hpp"

namespace keel::acp {

struct AcpServerOptions {
  // The model and settings every session is built with (the workspace is each session's cwd).
  assembly::HostInputs inputs;
  // Lines for the operator (stderr): a session that did not start, MCP servers an editor sent.
  std::function<void(const std::string&)> notice;
  // How long a permission question waits for the editor before the call is denied.
  std::chrono::milliseconds permission_timeout = std::chrono::minutes(10);
};

// Serves ACP on `in_fd`/`out_fd` until the input ends, then cancels the turns in flight and waits
// for them. Unavailable when the input cannot be read.
Status serve_acp(const AcpServerOptions& options, int in_fd, int out_fd);

}  // namespace keel::acp
