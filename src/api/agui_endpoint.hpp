// api/agui_endpoint.hpp — keel serve's AG-UI endpoint: front ends built on the Agent-User
// Interaction protocol (CopilotKit, @ag-ui/client's HttpAgent) run keel agents and watch them.
//
//   POST /agui   an AG-UI RunAgentInput (agui_request.hpp); the answer is text/event-stream of
//                AG-UI events (agui_stream.hpp): RUN_STARTED, STATE_SNAPSHOT, TEXT_MESSAGE_*,
//                TOOL_CALL_* and TOOL_CALL_RESULT, RUN_FINISHED or RUN_ERROR
//
// A run is one keel run of the default profile (forwardedProps.profile picks another). Its
// threadId is a keel session (agui_threads.hpp): the thread's next run continues the stored
// conversation, which `keel chat --session ID` can continue too (the state snapshot names the
// session). keel runs the profile's tools inside the run, streaming each call and its result;
// the tools the request brings are the client's: a model call of one ends the run with that call
// (TOOL_CALL_START/ARGS/END, no result) and RUN_FINISHED naming it pending, and the front end's
// next run, carrying the tool message with its result, goes on from there.
//
// Errors before the stream starts are HTTP errors {"error":{"code","message"}}: 400 for a body
// that is not a RunAgentInput (malformed JSON, no threadId or runId, messages that are not an
// array, nothing to run, an unknown profile, a bad tool), 409 thread_busy while another run of
// the thread is going on, 500 when the run could not be set up (nothing ran). A run that fails
// once the stream has started ends with RUN_ERROR {message, code}; what the run stored stays.
// 401/403/415 come from the server's access guard (api_access.hpp): bearer token, Host, Origin.
//
// Runs go on `workers`, never on an io thread. A client that disconnects (HttpAgent.abortRun())
// stops its run; the session keeps what was stored.
//
// Approvals stay the operator's: the client cannot loosen the profile's policy. With
// AguiEndpointOptions::pending (keel serve), a call the policy asks about waits for a person's
// decision through POST /api/approvals/{id} (the web UI or any client holding the server's
// token); the stream shows CUSTOM keel.approval_requested with the id (agui_stream.hpp) and the
// run goes on once it is decided (approval_timeout without one: denied). Without `pending` such
// calls are denied with approval_denied_reason (the model sees it), as on the /v1 endpoints.
// Likewise an ask_user question (with `asker`): CUSTOM keel.question_asked, answered through
// POST /api/questions/{id}.
// A waiting run holds its worker, so give the endpoint a pool of its own.
//
//   KEEL_TRY(keel::api::mount_agui_endpoint(http, factory, workers, store, access, {.workspaces = {ws}}));
//
// Lifetime: `factory`, `workers` and `store` must outlive `http`'s handlers and every run they
// started (stop the server, then destroy the pool, then the factory and the store).
// Thread-safety: call before http.start(); the handlers then run on any thread.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "api/agent_factory.hpp"
#include "api/api_access.hpp"
#include "api/pending_input.hpp"
#include "api/run_service.hpp"
#include "base/thread_pool.hpp"
#include "keel/result.hpp"
#include "keel/store/store.hpp"
#include "server/http_server.hpp"

namespace keel::api {

struct AguiEndpointOptions {
  // The workspaces whose stored sessions a threadId may name (the agents' workspace, as sessions
  // record it); empty: only threads started on this server continue a session.
  std::vector<std::string> workspaces;
  // Where calls that need a person's approval wait for one (keel serve's /api/approvals);
  // nullptr: they are denied with approval_denied_reason. Must outlive the endpoint's runs.
  PendingInput* pending = nullptr;
  // ask_user's asker in the factory's tools (keel serve's): with `pending`, a run's questions are
  // routed to it and wait for an answer through POST /api/questions/{id}. nullptr: not routed.
  std::shared_ptr<ForwardingAsker> asker;
  // How long a call waits for a decision before it is denied.
  std::chrono::milliseconds approval_timeout = std::chrono::minutes(10);
  // What the model is told when a call needs a person's approval and `pending` is not set.
  std::string approval_denied_reason =
      "denied: this call needs approval, and approvals are not possible over the AG-UI endpoint; "
      "do without it, or ask the user to run the task through keel's own API or CLI";
};

// Registers POST /agui (and its CORS preflight) on `http`. FailedPrecondition when `http` has
// already started.
Status mount_agui_endpoint(server::HttpServer& http, AgentFactory& factory, detail::ThreadPool& workers, Store& store,
                           const ApiAccess& access, AguiEndpointOptions options = {});

}  // namespace keel::api
