// net/plain_http_client.hpp — keel's own HTTP/1.1 client for the requests plain_http_url()
// accepts (plain http:// to an address or localhost). It keeps one connection alive between
// requests, sends a request in one system call, reads the reply with Http1ReplyReader and feeds
// the same Transfer as the libcurl path, so HttpSession's callers see the same heads, bodies,
// ends and error messages either way. Every wait is bounded: the connect timeout (libcurl's 300 s
// when none is set), the request's total and idle timeouts, and a stop request, which wakes the
// wait at once.
//
// Like libcurl, it sends a request again on a fresh connection when a kept-alive one turns out to
// have been closed by the server before any byte of the reply came back.
//
// Thread-safety: one request at a time; the request's stop token may fire from any thread.
#pragma once

#include <string>

#include "net/http_transport.hpp"
#include "net/plain_http_url.hpp"

namespace keel::detail {

class PlainHttpClient {
 public:
  PlainHttpClient() = default;
  ~PlainHttpClient();  // closes the kept connection
  PlainHttpClient(const PlainHttpClient&) = delete;
  PlainHttpClient& operator=(const PlainHttpClient&) = delete;

  // Sends `request` to `url` (plain_http_url(request.url)) and reads the whole reply.
  HttpOutcome perform(const HttpRequest& request, const PlainHttpUrl& url);

 private:
  void close_connection();

  int fd_ = -1;       // the kept-alive connection, or -1
  std::string peer_;  // "host port" of fd_
  int wake_ = -1;     // eventfd a stop request writes to; made at the first request
};

}  // namespace keel::detail
