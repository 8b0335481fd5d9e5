// mcp/mcp_http_endpoint.hpp — the server side of MCP's Streamable HTTP transport, mounted on a
// keel HttpServer at one path (default /mcp). Specification:
// https://modelcontextprotocol.io/specification/2025-11-25/basic/transports (also 2025-06-18 and
// 2025-03-26 clients) and, for stateless clients, the 2026-07-28 revision of the same page.
//
//   server::HttpServer http(server::HttpServerOptions{});              // 127.0.0.1
//   auto endpoint = McpHttpEndpoint::mount(http, [&] { return keel_server.new_session(); });
//   if (!endpoint.ok()) ...;
//   KEEL_TRY(http.start());                                           // http://127.0.0.1:PORT/mcp
//
// What the endpoint does:
// - POST: one JSON-RPC message per body (a batch array is refused, 400). An `initialize` request
//   opens a session: a handler from the factory, id in the Mcp-Session-Id response header. Every
//   other message needs that header (missing: 400; unknown or ended: 404) and, when it sends
//   MCP-Protocol-Version, a supported value (else 400). Notifications and responses: handed to
//   the handler, then 202. Requests: handled on a worker thread (never the io thread), answered
//   as application/json; if the handler sends notifications while handling and the client
//   accepts text/event-stream, the answer is an SSE stream instead: each notification as it is
//   sent, then the response, then the end.
// - POST of the 2026-07-28 revision (no session id; a protocol version in the MCP-Protocol-Version
//   header or params._meta, not a handshake version alone): no session is opened or read. The
//   header must equal _meta's version, _meta must carry the version and the client's
//   capabilities, Mcp-Method (and Mcp-Name for tools/call, prompts/get, resources/read) must match
//   the body: else 400 with -32020, -32602 or -32022, carrying the request's id. An unknown method
//   is 404 with -32601. subscriptions/listen answers with an SSE stream that stays open: the
//   acknowledgment, then the notifications the client opted in to, until the client closes it.
// - DELETE with the session id ends the session (200). GET with the session id (and an Accept
//   listing text/event-stream, else 406) opens the session's standalone SSE stream: messages tied
//   to no request (notifications/resources/updated) go there; a newer GET replaces it, and it
//   ends with the session.
// - Security: when the server is bound to loopback, Host must name localhost, 127.0.0.1 or [::1]
//   (DNS-rebinding protection; 403), and an Origin must be the server's own or one listed
//   (server/host_origin_policy.hpp); with a bearer token configured every
//   request needs "Authorization: Bearer <token>" (401 with WWW-Authenticate). POSTs must accept
//   application/json and text/event-stream (406) and send application/json (415).
// Transport errors of the handshake revisions are JSON-RPC error objects with id null.
//
// Thread-safety: mount() before the server starts; the endpoint serves requests from any number
// of clients at once. It may be destroyed before or after the server: requests that come after
// its destruction get 503.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "keel/result.hpp"
#include "mcp_server/message_handler.hpp"
#include "server/http_server.hpp"

namespace keel::mcp {

namespace detail {
struct McpEndpointState;
}  // namespace detail

struct McpHttpEndpointOptions {
  std::string path = "/mcp";  // where it is mounted; must start with '/'
  // Host names accepted in the Host header ("localhost", "mcp.example.com", "[::1]"; any port).
  // Empty: localhost, 127.0.0.1 and [::1] when the server is bound to a loopback address; else
  // any Host. An Origin is accepted when it is the Host header's own origin or listed below.
  std::vector<std::string> allowed_hosts;
  // Further exact origins accepted in the Origin header ("https://app.example.com").
  std::vector<std::string> allowed_origins;
  std::string bearer_token;   // required "Authorization: Bearer <token>"; empty: no token needed
  size_t max_sessions = 256;  // more: the least recently used idle session ends
  std::chrono::milliseconds session_idle_timeout = std::chrono::hours(1);  // unused this long: ended
  size_t worker_threads = 4;  // handlers running at once; a slow one does not delay the others
};

class McpHttpEndpoint {
 public:
  // Adds the endpoint's routes to `server`, which must not have started yet. `factory` makes the
  // handler of each new session. Errors: kInvalidArgument for a bad option (path not starting
  // with '/', a missing factory).
  static Result<std::unique_ptr<McpHttpEndpoint>> mount(server::HttpServer& server, MessageHandlerFactory factory,
                                                        McpHttpEndpointOptions options = {});

  // Ends every session; waits for requests being handled; later requests get 503.
  ~McpHttpEndpoint();
  McpHttpEndpoint(const McpHttpEndpoint&) = delete;
  McpHttpEndpoint& operator=(const McpHttpEndpoint&) = delete;

  // Open sessions.
  size_t session_count() const;

 private:
  explicit McpHttpEndpoint(std::shared_ptr<detail::McpEndpointState> state);
  // Shared with the server's route handlers, which may outlive the endpoint.
  std::shared_ptr<detail::McpEndpointState> state_;
};

}  // namespace keel::mcp
