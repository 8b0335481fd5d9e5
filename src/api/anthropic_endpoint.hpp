// api/anthropic_endpoint.hpp — keel serve's Anthropic Messages endpoint: Anthropic's SDKs and the
// tools that read ANTHROPIC_BASE_URL can use a keel agent as if it were a Claude model.
//
//   POST /v1/messages   a Messages API request; `model` names the keel profile
//
// A request is one keel run (anthropic_request.hpp says how the conversation maps). The agent
// runs its own tools inside, as many rounds as its profile allows. Tools the request brings are
// the client's: the model sees them beside the agent's own, and when it calls one the run ends
// with those calls as tool_use blocks (stop_reason "tool_use"), after keel's own calls of that
// round have run; the client runs them and sends the whole conversation again, ending with a user
// message of tool_result blocks, and the run goes on from there. `tool_choice` applies to the
// run's first model call. The answer is a message (anthropic_reply.hpp) or, with "stream":true,
// the Messages events with the text streamed live (anthropic_stream.hpp).
//
// Errors are Anthropic-shaped, {"type":"error","error":{"type","message"}}: 400
// invalid_request_error (the field named), 404 not_found_error (no such profile), 400 api_error
// with x-should-retry: false for a run that failed (the official clients retry 5xx answers, and a
// retry would run the agent and its tools again), 500 api_error when the run could not be set up
// (nothing ran). A streamed run that fails after its headers went out ends with `event: error`. The access guard
// (api_access.hpp) takes the token as `x-api-key` too and refuses in this shape (401
// authentication_error); anthropic-version and anthropic-beta headers are accepted and ignored.
//
// Runs go on `workers`, never on an io thread. A client that disconnects stops its run. A /v1
// client cannot answer approval requests, so calls the profile's policy would ask about are denied
// with MessagesEndpointOptions::approval_denied_reason (the model sees it).
//
//   KEEL_TRY(keel::api::mount_anthropic_endpoint(http, factory, workers, access));
//
// Lifetime: `factory` and `workers` must outlive `http`'s handlers and every run they started.
// Thread-safety: call before http.start(); the handlers then run on any thread.
#pragma once

#include <string>

#include "api/agent_factory.hpp"
#include "api/api_access.hpp"
#include "base/thread_pool.hpp"
#include "keel/result.hpp"
#include "server/http_server.hpp"

namespace keel::api {

struct MessagesEndpointOptions {
  // What the model is told when a call needs a person's approval (a /v1 client cannot give one).
  std::string approval_denied_reason =
      "denied: this call needs approval, and approvals are not possible over the /v1/messages endpoint; "
      "do without it, or ask the user to run the task through keel's own API or CLI";
  // Send `event: ping` while keel's own tools run (clients skip pings).
  bool tool_pings = true;
};

// Registers POST /v1/messages (and its CORS preflight) on `http`. FailedPrecondition when `http`
// has already started.
Status mount_anthropic_endpoint(server::HttpServer& http, AgentFactory& factory, detail::ThreadPool& workers,
                                const ApiAccess& access, MessagesEndpointOptions options = {});

}  // namespace keel::api
