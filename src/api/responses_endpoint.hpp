// api/responses_endpoint.hpp — keel serve's OpenAI Responses API (/v1/responses), the default API
// of the OpenAI Agents SDK and of the Vercel AI SDK's openai provider. `model` names a keel profile.
//
//   POST   /v1/responses                    create: whole, streamed ("stream":true) or in the background
//   GET    /v1/responses/{id}               the stored response (or one in progress, as it stands)
//   POST   /v1/responses/{id}/cancel        stops one in progress (400 for a finished one)
//   DELETE /v1/responses/{id}               forgets a stored response
//   GET    /v1/responses/{id}/input_items   {"object":"list","data","first_id","last_id","has_more"}
//
// A response is one keel run (its id is the run's). Its input is the conversation: a string (the
// task) or items (responses_request.hpp). keel runs the profile's own tools inside the run, as many
// rounds as the profile allows; function tools the request sends are the client's: the model's
// calls to them end the run and come back as function_call output items, and the client's next
// request goes on with function_call_output items, either with previous_response_id or with the
// whole conversation. tool_choice applies to the run's first model call; text.format
// json_object / json_schema makes the answer one validated JSON value (structured_answer.hpp).
//
// Stored ("store", the default, true): the response object is kept with its run
// (responses_archive.hpp) and can be retrieved; previous_response_id continues its session
// (a second continuation of the same response forks the session, so branches stay apart).
// "store":false keeps no response: retrieving or continuing it is a 404 (keel's own record of the
// run, its session, stays as for every run).
//
// Errors are OpenAI-shaped ({"error":{"message","type","param","code"}}): 400
// invalid_request_error naming the param, 404 model_not_found, 404 not_found for an unknown
// response id (param naming where it was sent), 400 run_failed with the failure kind as code and
// "x-should-retry: false" for a run that ended without an answer (a stream sends response.failed
// instead), 500 server_error when a run could not start.
//
// Runs go on `workers`, never on an io thread (the io threads parse requests and read the store for
// retrieve, delete and input_items, as the /api routes do). A client that disconnects stops its
// run, unless it asked for "background":true. A /v1 client cannot answer approval requests: calls
// the profile's policy would ask about are denied with options.approval_denied_reason.
//
//   KEEL_TRY(keel::api::mount_responses_endpoint(http, factory, workers, store, access, options));
//
// Lifetime: `factory`, `workers` and `store` must outlive `http`'s handlers and every run they
// started (stop the server, then destroy the pool, then the factory and the store).
// Thread-safety: call before http.start(); the handlers then run on any thread.
#pragma once

#include "api/agent_factory.hpp"
#include "api/api_access.hpp"
#include "api/openai_endpoint.hpp"
#include "base/thread_pool.hpp"
#include "keel/result.hpp"
#include "keel/store/store.hpp"
#include "server/http_server.hpp"

namespace keel::api {

// Registers the routes above (and CORS preflights for them) on `http`. The options are the chat
// endpoint's (clock, approval denial text, tool progress comments). FailedPrecondition when
// `http` has already started.
Status mount_responses_endpoint(server::HttpServer& http, AgentFactory& factory, detail::ThreadPool& workers,
                                Store& store, const ApiAccess& access, OpenAiEndpointOptions options = {});

}  // namespace keel::api
