// keel/core/hosted_machine.hpp — the agent state machine behind a JSON boundary.
//
// Hosts written in another language (the WebAssembly package in the browser and at the edge) drive
// the same AgentMachine as the native runtime through JSON: a spec in, then one decision out per
// event in. A decision carries what the host needs to act without a second copy of the core's
// rules: the full model request (messages in send order, tools, sampling) and the messages the step
// committed (what a session store persists before acting).
//
//   auto m = keel::HostedMachine::create(R"({"tools":[{"name":"fs_read","read_only":true}],"task":"hi"})"_json);
//   json d = m->start();                                   // {"action":"call_model","request":{...},...}
//   d = m->step({{"type","model_replied"},{"reply",{{"text","hello"}}}});  // {"action":"finish",...}
//
// Thread-safety: not thread-safe; one host drives one machine.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>

#include "keel/core/agent_machine.hpp"
#include "keel/result.hpp"

namespace keel {

class HostedMachine {
 public:
  // spec: {"config" (agent_config_from_json), "tools" ([tool_spec_from_json]), "system_prompt" (sent
  // as is) or "instructions" (keel's sectioned prompt, as build_system_prompt makes it for the native
  // hosts: these instructions, or keel's default when empty, the tools documented for the config's
  // tool protocol, and "project_instructions" such as AGENTS.md), "task", and optionally "earlier"
  // (messages of earlier runs: the conversation continues) or "resume" ({"conversation": [messages
  // committed so far], "run_start": index of the run's task, "calls_not_started": bool}: an
  // interrupted run finishes; see AgentMachine::resuming). With
  // "incremental_requests": true a request leaves out the leading messages it shares with the
  // previous request ("messages_from": how many to take from it), and "tools" when they are the
  // previous request's ("tools_unchanged": true): a host that keeps the last request's messages and
  // tools then receives each once instead of every step.
  // InvalidArgument names the field that is wrong.
  static Result<HostedMachine> create(const nlohmann::json& spec);

  // The first decision (see present()).
  nlohmann::json start();
  // The next decision for an event in event_from_json's form. An event that cannot be read is
  // answered {"action": "error", "error": "..."} and leaves the machine as it was.
  nlohmann::json step(const nlohmann::json& event);
  // The same decisions as JSON text, written without a document, for an event's JSON text read
  // without one (what a host in another language sends and reads: documents of them cost more than
  // the machine's own work).
  std::string start_text();
  std::string step_text(std::string_view event);
  // Steering and /compact, as AgentMachine::add_guidance and request_compaction.
  void add_guidance(std::string text) { machine_.add_guidance(std::move(text)); }
  void request_compaction() { machine_.request_compaction(); }
  // {"phase", "rounds_used", "model_calls", "run_start", "history": [messages]}: what a host
  // checkpoints between invocations (history as the context pipeline left it).
  nlohmann::json state() const;

  const AgentMachine& machine() const { return machine_; }

 private:
  explicit HostedMachine(AgentMachine machine) : machine_(std::move(machine)) {}
  static Result<HostedMachine> create_machine(const nlohmann::json& spec);
  // decision_to_json plus "committed" (messages), "phase", and "request" (model_request_to_json)
  // for decisions that call a model, as text.
  std::string present(const Decision& decision);
  // Appends the request's JSON; with incremental requests, only what the previous request did not
  // send.
  void append_request(std::string& out, const ModelRequest& request);

  AgentMachine machine_;
  bool incremental_ = false;
  std::vector<Message> sent_;  // incremental: the messages of the last request, in send order
  // The tools of the last request and their JSON text, reused while they stay the same: parsing
  // every schema again was a large part of a step's cost in the browser.
  std::vector<ToolSpec> rendered_tools_;
  std::string rendered_tools_text_ = "[]";
  bool host_holds_tools_ = false;  // the last request sent rendered_tools_text_ (its tools were enabled)
};

}  // namespace keel
