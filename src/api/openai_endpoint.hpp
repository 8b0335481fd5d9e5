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
// model call, and a "keel" object {"session_id","run_id","rounds","tool_calls"}. With
// "stream":true the answer comes as chat.completion.chunk events (see openai_stream.hpp for the
// granularity). Errors are OpenAI-shaped, {"error":{"message","type","param","code"}}: 400
// invalid_request_error (the param named; client-supplied tools are refused), 404
// model_not_found, 500 server_error with the failure kind as code (a streamed run: an error event,
// then [DONE]). 401 comes from the server's access guard (api_access.hpp) in keel's own error shape.
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
