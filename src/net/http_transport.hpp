// A minimal HTTP client (POST by default; GET and DELETE too). Plain http:// to an address or
// localhost goes through keel's own HTTP/1.1 client (net/plain_http_client: no library to load,
// little work per request); everything else through one reused libcurl easy handle
// (net/curl_easy), driven through a private multi handle (net/curl_multi). Both can be woken at
// once by a stop request and enforce an idle timeout, and both keep one connection alive between
// requests to the same server (with TCP keep-alive probes).
//
// Thread-safety: an HttpSession is not thread-safe; one request at a time (the OpenAI client holds
// a mutex around it). Stop requests may come from any thread.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <stop_token>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "keel/result.hpp"

namespace keel::detail {

class CurlEasy;
class CurlMulti;
class PlainHttpClient;

// The head of the final response.
struct HttpHead {
  long status = 0;           // 0 until a status line arrived
  std::string content_type;  // Content-Type header, as sent
  std::string retry_after;   // Retry-After header, as sent; empty when absent
  // The headers named in HttpRequest::capture_headers that the response carried: (name lowercased,
  // value trimmed), in arrival order.
  std::vector<std::pair<std::string, std::string>> captured;

  // The value of captured header `lower_name` (lowercase), or "" when absent.
  std::string_view header(std::string_view lower_name) const;
};

struct HttpRequest {
  std::string method = "POST";        // "POST", "GET" or "DELETE"
  std::string url;
  std::string target;                 // names the server in error messages (the base URL)
  std::string body;                   // POST body (ignored for GET and DELETE)
  std::vector<std::string> headers;   // "Name: value" lines
  // Response headers to keep in HttpHead::captured, lowercase names (e.g. "mcp-session-id").
  std::vector<std::string> capture_headers;
  int64_t connect_timeout_ms = 0;     // 0: libcurl's default
  int64_t total_timeout_ms = 0;       // whole transfer; 0: none
  std::string total_timeout_name = "request_timeout_ms";  // the setting named when it fires
  int64_t idle_timeout_ms = 0;        // longest time without a received byte; 0: none
  std::stop_token stop;               // a stop request aborts the transfer promptly
  // Receives the body as it arrives, with the response head; returning false aborts the transfer.
  // It is called from the thread running perform() only.
  std::function<bool(const HttpHead&, std::string_view)> on_body;
  // Optional: asked between reads (every few tens of milliseconds, from the thread running
  // perform()); returning false aborts the transfer as kAbortedByBody. Lets a caller that has what
  // it needs give a stream a moment to end cleanly (keeping the connection reusable) before
  // abandoning it.
  std::function<bool()> still_wanted;
  // Optional: told once the head of the final response is complete, before any body byte (a
  // listener can know its stream is open even when the server sends nothing yet).
  std::function<void(const HttpHead&)> on_head;
};

enum class HttpEnd {
  kCompleted,      // a full response arrived (any status)
  kCancelled,      // the stop token fired
  kIdleTimeout,    // idle_timeout_ms passed without a received byte
  kAbortedByBody,  // on_body returned false (the caller knows why)
  kFailed,         // a transport error (see error)
};

struct HttpOutcome {
  HttpEnd end = HttpEnd::kFailed;
  HttpHead head;
  Status error;                  // why, for every end but kCompleted and kAbortedByBody
  bool retryable = false;        // kFailed: a connection-level failure worth another attempt
  bool connection_lost = false;  // kFailed: the connection broke after the response began
};

class HttpSession {
 public:
  HttpSession();
  // The same, for a caller that knows where its requests will go: when libcurl will carry them,
  // it starts loading now (start_loading_curl()), so that the first request finds it loaded.
  explicit HttpSession(std::string_view expected_url);
  ~HttpSession();
  HttpSession(const HttpSession&) = delete;
  HttpSession& operator=(const HttpSession&) = delete;

  // Sends one request (request.method) and reads the whole response through request.on_body.
  HttpOutcome perform(const HttpRequest& request);
  // The same as perform(); the name the POST-only callers use.
  HttpOutcome post(const HttpRequest& request) { return perform(request); }

 private:
  // Creates libcurl's handles at the first request libcurl carries (loading libcurl, or waiting
  // for a load already started); false when they could not be made.
  bool curl_ready();

  std::unique_ptr<PlainHttpClient> plain_;
  // Declared before multi_ so that it is destroyed after it: the multi handle is cleaned up while
  // the easy handle still exists.
  std::unique_ptr<CurlEasy> easy_;
  std::unique_ptr<CurlMulti> multi_;  // the connection cache
};

}  // namespace keel::detail
