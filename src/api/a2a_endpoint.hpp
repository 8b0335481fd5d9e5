// api/a2a_endpoint.hpp — keel serve as an A2A (Agent2Agent protocol, v1.0) agent, so other agents
// can hand it tasks:
//
//   GET  /.well-known/agent-card.json   the agent card: one skill per profile, the JSON-RPC
//                                        interface at /a2a, bearer auth when the server has a token
//   POST /a2a                           JSON-RPC 2.0: SendMessage, SendStreamingMessage (SSE),
//                                        GetTask, CancelTask
//
// Clients of A2A 0.3 are answered at the same endpoint: the card also carries 0.3's fields, and
// 0.3's methods (message/send, message/stream, tasks/get, tasks/cancel) run their 1.0 handlers
// with the answers rewritten into 0.3's shapes (a2a_v03.hpp).
//
// A task is one of keel serve's runs (RunService), so it is stored, resumable and visible in the
// web UI like any other; its context is the run's session, and a message with that contextId is
// the next turn of the same conversation. A run parked for an approval or an ask_user question is
// TASK_STATE_INPUT_REQUIRED, with what it waits for in the status message; a message to that task
// answers it (approvals: "yes", "always" or "no ..."). Every request passes keel serve's access
// guard (token, Host, Origin); the workspace's approval policy decides what needs asking.
//
// Lifetime: `ctx` and `workers` must outlive `http`'s handlers.
#pragma once

#include <memory>

#include "api/api_routes.hpp"
#include "base/thread_pool.hpp"
#include "keel/result.hpp"
#include "server/http_server.hpp"

namespace keel::api {

// Registers the routes above on `http`. FailedPrecondition when `http` has already started.
Status mount_a2a_endpoint(server::HttpServer& http, std::shared_ptr<ApiContext> ctx, detail::ThreadPool& workers);

}  // namespace keel::api
