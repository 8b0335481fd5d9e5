// api/openai_endpoint.hpp — keel serve's OpenAI-compatible endpoint: any OpenAI client (the
// official SDKs, chat UIs, editors) can run keel agents.
//
//   GET  /v1/models             {"object":"list","data":[{"id":profile,"object":"model",...}]}
//   GET  /v1/models/{profile}   one of those
//   POST /v1/chat/completions   a Chat Completions request; `model` names the keel profile
//
// A chat completion is one keel run: the request's messages are the conversation so far, its
// last user message the task (Agent::run_after). The agent runs its own tools, as many rounds as
// its profile allows, and the reply carries the run's final answer, its usage summed over every
// model call, and a "keel" object {"session_id","run_id","rounds","tool_calls"}. Function tools
// the client sends are the client's: offered next to keel's, and a model call of one ends the run
// with message.tool_calls and finish_reason "tool_calls"; the client's next request, ending with
// its tool messages, goes on from there (tool_choice applies to the run's first model call).
// response_format json_object / json_schema makes the answer one validated JSON value
// (structured_answer.hpp). With "stream":true the answer comes as chat.completion.chunk events
// as the model writes it (openai_stream.hpp). Errors are OpenAI-shaped,
// {"error":{"message","type","param","code"}}: 400 invalid_request_error (the param named), 404
// model_not_found, 400 run_failed with the failure kind as code and "x-should-retry: false" for a
// run that ended without an answer (a retry would run its tools again; a streamed run: an error
// event, then [DONE]), 500 server_error when a run could not start. 401 comes from the server's
// access guard (api_access.hpp) in the shared error shape (server/http_status.hpp).
//
// Runs go on `workers`, never on an io thread. A client that disconnects stops its run. A /v1
// client cannot answer approval requests, so calls the profile's policy would ask about are denied
// with OpenAiEndpointOptions::approval_denied_reason (the model sees it); calls the policy allows
// run.
//
//   keel::server::HttpServer http(server_options);
//   KEEL_TRY(keel::api::mount_openai_endpoint(http, factory, workers, access));
//   KEEL_TRY(http.start());
//
// Lifetime: `factory` and `workers` must outlive `http`'s handlers and every run they started:
// stop the server, then destroy the pool (it finishes running tasks), then the factory.
// Thread-safety: call before http.start(); the handlers then run on any thread.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "api/agent_factory.hpp"
#include "api/api_access.hpp"
#include "keel/result.hpp"
#include "server/http_server.hpp"
#include "base/thread_pool.hpp"

namespace keel::api {

struct OpenAiEndpointOptions {
  // Unix time in seconds for the `created` fields; empty: the system clock.
  std::function<int64_t()> now_s = {};
  // What the model is told when a call needs a person's approval (a /v1 client cannot give one).
  std::string approval_denied_reason =
      "denied: this call needs approval, and approvals are not possible over the OpenAI-compatible /v1 endpoint; "
      "do without it, or ask the user to run the task through keel's own API or CLI";
  // Send ": keel tool NAME" comment lines in streams while tools run (clients ignore comments).
  bool tool_progress_comments = true;
};

// Registers the routes above (and CORS preflights for them) on `http`. FailedPrecondition when
// `http` has already started (routes can no longer be added).
Status mount_openai_endpoint(server::HttpServer& http, AgentFactory& factory, detail::ThreadPool& workers,
                             const ApiAccess& access, OpenAiEndpointOptions options = {});

}  // namespace keel::api
