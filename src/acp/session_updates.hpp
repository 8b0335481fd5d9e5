// acp/session_updates.hpp — a run's events as ACP `session/update` notifications: the answer
// and the reasoning as they stream, tool calls with their status and output, the plan. Also the
// shapes the approver and a loaded session's replay share (a tool call's title and kind).
//
// Thread-safety: the hooks run on the run's thread; notifications go out through the peer.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "acp/json_rpc_peer.hpp"
#include "keel/hooks.hpp"
#include "keel/message.hpp"

namespace keel::acp {

// ACP's kind of a keel tool ("read", "edit", "execute", ...), which editors show as an icon.
std::string tool_kind(const std::string& tool);
// A short title for a call: the tool and its main argument, e.g. "fs_read src/main.cpp".
std::string tool_title(const ToolCall& call);
// The call as an ACP ToolCall (status "pending"), arguments as rawInput.
nlohmann::json tool_call_json(const ToolCall& call);
// Text as an ACP ContentBlock.
nlohmann::json text_block(const std::string& text);

class SessionUpdates final : public Hooks {
 public:
  SessionUpdates(JsonRpcPeer& peer, std::string session_id) : peer_(peer), session_id_(std::move(session_id)) {}

  // Sends one update: {"sessionId", "update": {"sessionUpdate": kind, ...fields}}.
  void send(const std::string& kind, nlohmann::json fields);

  void on_run_started(RunContext&) override;
  void on_model_delta(RunContext&, std::string_view text) override;
  void on_reasoning_delta(RunContext&, std::string_view text) override;
  void on_model_reply(RunContext&, const ModelReply& reply) override;
  void on_tool_call(RunContext&, const ToolCall& call) override;
  void on_approval_decided(RunContext&, const ApprovalRequest&, const ApprovalDecision&) override;
  void on_tool_result(RunContext&, const ToolCall& call, const ToolResult& result) override;
  void on_plan_step(RunContext&, const PlanStepUpdate& step) override;
  void on_run_finished(RunContext&, const RunOutcome& outcome) override;

 private:
  JsonRpcPeer& peer_;
  std::string session_id_;
  bool answer_streamed_ = false;     // the answer went out as deltas (since the last call with tools)
  bool streamed_reasoning_ = false;  // this model call's reasoning went out as deltas
  std::vector<nlohmann::json> plan_;
};

}  // namespace keel::acp
