// mcp/http_client_transport.hpp — the MCP client transports over HTTP: Streamable HTTP (protocol
// 2025-03-26 and later) and the legacy HTTP+SSE transport of protocol 2024-11-05.
//
//   keel::mcp::HttpServerSpec spec;
//   spec.url = "http://127.0.0.1:3001/mcp";
//   spec.headers["Authorization"] = "Bearer " + token;
//   std::unique_ptr<keel::mcp::Transport> t = keel::mcp::make_streamable_http_transport(spec);
//   KEEL_TRY(t->start(callbacks, std::chrono::seconds(10)));
//   KEEL_TRY(t->send(initialize_request, options));  // the response arrives through on_message
//
// Streamable HTTP: every message is POSTed to the endpoint; a request's answer (a JSON body or an
// SSE stream carrying server requests and notifications, then the response) is delivered inside
// send(). A stream that ends before the response is resumed with GET + Last-Event-ID after the
// server's `retry` delay. The session id the server assigns (Mcp-Session-Id) and the negotiated
// protocol version go out on every later request; close() ends the session with DELETE.
//
// Legacy HTTP+SSE: start() opens the GET event stream and waits for its `endpoint` event (a URL on
// the same origin); send() POSTs each message there and the server's messages, responses
// included, arrive as `message` events on the stream. The stream ending is on_closed.
//
// Errors (see Transport::send): kUnauthenticated (HTTP 401/403, with the WWW-Authenticate header),
// kUnavailable (refused connection, 5xx, expired session), kInvalidArgument (other 4xx, with the
// server's message), kDeadlineExceeded, kCancelled.
//
// Thread-safety: as Transport: send() from several threads at once (each uses its own pooled,
// kept-alive connection); callbacks run on the thread inside send() or on the transport's stream
// thread, never under a transport lock. Lifetime: the callbacks must outlive the transport, and
// the transport must not be destroyed from inside one of its callbacks; destroying it stops its
// threads and any send in flight but does not end the session (close() does).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <stop_token>
#include <string>
#include <string_view>

#include "keel/result.hpp"
#include "mcp/transport.hpp"

namespace keel::mcp {

// Obtains and renews the bearer token of an HTTP server that asks for one (OAuth: oauth_authorizer.hpp).
class HttpAuthorizer {
 public:
  virtual ~HttpAuthorizer() = default;
  // The token to send ("" before one was obtained).
  virtual std::string access_token() = 0;
  // The server answered `status` (401 or 403) with this WWW-Authenticate header: get a token that
  // answers it (a new one, a refreshed one, one with more scope). Ok: send the request again;
  // an error says why no token could be had (it is what the caller reports).
  virtual Status answer_challenge(long status, std::string_view www_authenticate, std::stop_token stop) = 0;
};

// Where an HTTP MCP server lives and how to reach it.
struct HttpServerSpec {
  std::string url;                             // the MCP endpoint (http:// or https://), e.g. http://127.0.0.1:3001/mcp
  std::map<std::string, std::string> headers;  // extra headers (e.g. Authorization), sent on every request
  int64_t connect_timeout_ms = 10000;          // TCP (and TLS) connection setup, per request
  // Asked on a 401/403 when no Authorization header is set; its token goes to this URL only (and,
  // for the legacy transport, to the message endpoint on the same origin the server announced).
  // nullptr: such an answer is an error.
  std::shared_ptr<HttpAuthorizer> authorizer;
};

// A Streamable HTTP transport to `spec.url`; nothing is contacted before the first send().
std::unique_ptr<Transport> make_streamable_http_transport(HttpServerSpec spec);

// A legacy HTTP+SSE transport; `spec.url` is the event-stream URL (often ending in /sse).
std::unique_ptr<Transport> make_legacy_sse_transport(HttpServerSpec spec);

}  // namespace keel::mcp
