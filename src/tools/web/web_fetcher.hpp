// tools/web/web_fetcher.hpp — one HTTP(S) request through libcurl behind the SSRF guard.
//
// Every socket libcurl opens goes through CURLOPT_OPENSOCKETFUNCTION, which sees the resolved
// address it is about to connect to and refuses it unless AddressPolicy allows it. That single
// check covers IP literals in any spelling, DNS names, DNS rebinding and every redirect hop.
// Redirects are followed here, not by libcurl, so that each hop's URL is checked too (scheme, host
// name) and the refusal can name the host. Only http and https are enabled, and proxies are
// disabled (CURLOPT_PROXY ""): with a proxy, the socket would lead to the proxy and the guard could
// not see the real destination. An IP-literal host is refused before libcurl starts at all.
//
// Limits: WebToolOptions::timeout_ms covers the whole request including redirects;
// connect_timeout_ms each hop's connection. The body is kept up to FetchRequest::max_body_bytes
// (the rest is not read; FetchResponse::truncated says so). The call's stop token aborts the
// transfer at once (the transfer loop is woken).
//
// Thread-safety: a WebFetcher is immutable after create(); fetch() may run on many threads at
// once (each call has its own libcurl handles).
#pragma once

#include <cstddef>
#include <memory>
#include <stop_token>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "keel/result.hpp"
#include "keel/web_tools.hpp"
#include "tools/web/address_policy.hpp"

namespace keel::detail {

struct FetchRequest {
  std::string url;
  std::string method = "GET";        // GET, HEAD, POST, PUT, PATCH or DELETE
  std::vector<std::string> headers;  // "Name: value" lines, already validated
  std::string body;                  // sent for POST, PUT, PATCH and DELETE when not empty
  size_t max_body_bytes = 0;         // body bytes kept; a longer body is cut
  std::stop_token stop;
};

using HeaderPairs = std::vector<std::pair<std::string, std::string>>;

struct FetchResponse {
  std::string url;        // the final URL, after redirects
  int redirects = 0;      // redirects followed
  long status = 0;        // HTTP status of the final response
  std::string reason;     // its reason phrase ("Not Found"); a standard one when the server sent none
  HeaderPairs headers;    // the final response's headers, names lowercased, in order
  std::string body;       // raw (decompressed) bytes, at most max_body_bytes
  bool truncated = false; // the body was longer than max_body_bytes
  std::string method;     // the method of the final request (a 303 turns POST into GET)

  // The first value of header `name` (lowercase), or "".
  std::string header(std::string_view name) const;
};

class WebFetcher {
 public:
  // InvalidArgument for a bad `allowed` entry or resolve_overrides entry, or out-of-range limits.
  static Result<std::shared_ptr<const WebFetcher>> create(const WebToolOptions& options);

  // Performs the request, following redirects. Errors: InvalidArgument (URL, scheme, redirect to
  // another scheme), PermissionDenied (SSRF guard), DeadlineExceeded (timeout_ms), Cancelled,
  // ResourceExhausted (more than max_redirects), Unavailable (DNS, connection, TLS failures).
  // Any HTTP status is a successful fetch.
  Result<FetchResponse> fetch(const FetchRequest& request) const;

  const WebToolOptions& options() const { return options_; }

  WebFetcher(WebToolOptions options, AddressPolicy policy);

 private:
  WebToolOptions options_;
  AddressPolicy policy_;
};

}  // namespace keel::detail
