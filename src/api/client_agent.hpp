// api/client_agent.hpp — the agent a /v1 request runs, set up the same way by every endpoint
// (chat completions, responses, messages): leased for the request's profile, approvals denied (a
// /v1 client cannot give them), the client's sampling on every model call, its tools offered
// next to the profile's own, its tool_choice on the first call.
//
//   ClientAgent a = lease_client_agent(factory, {.profile = ..., .sampling = ..., ...}, denied_reason);
//   if (!a.lease_error.ok()) ... 500, nothing ran ...
//   if (!a.tools_error.ok()) ... 400 naming the request's tools ...
//   Agent& agent = *a.lease->agent;
//
// Thread-safety: call from the worker that runs the request.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "api/agent_factory.hpp"
#include "keel/model_io.hpp"
#include "keel/tool_spec.hpp"

namespace keel::api {

// What a /v1 request asks of its run's model calls.
struct ClientRunSettings {
  std::string profile;
  SamplingParams sampling;
  std::vector<ToolSpec> client_tools;  // the client's tools (run by the client)
  std::string tool_choice;             // "", "auto", "none", "required" or a tool's name
};

// Which step failed decides the answer: the lease (keel's side; nothing ran) or the client's
// tools (the client's to fix). `lease` is set only when both are ok.
struct ClientAgent {
  std::unique_ptr<AgentLease> lease;
  Status lease_error;
  Status tools_error;
};

ClientAgent lease_client_agent(AgentFactory& factory, ClientRunSettings settings,
                               const std::string& approval_denied_reason);

}  // namespace keel::api
