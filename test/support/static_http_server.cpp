// The static test server: routes and HTTP/1.1 answers (sockets in test_http_socket); see
// static_http_server.hpp.
#include "support/static_http_server.hpp"

#include <string>
#include <utility>

namespace keel::testing {

StaticRoute html_page(std::string body, std::string content_type) {
  StaticRoute r;
  r.headers = {{"Content-Type", std::move(content_type)}};
  r.body = std::move(body);
  return r;
}

StaticRoute text_page(std::string content_type, std::string body) {
  StaticRoute r;
  if (!content_type.empty()) r.headers = {{"Content-Type", std::move(content_type)}};
  r.body = std::move(body);
  return r;
}

StaticRoute redirect_to(std::string location, int status) {
  StaticRoute r;
  r.status = status;
  r.headers = {{"Location", std::move(location)}, {"Content-Type", "text/plain"}};
  r.body = "redirecting";
  return r;
}

StaticRoute with_delay(StaticRoute route, int64_t delay_ms) {
  route.delay_ms = delay_ms;
  return route;
}

StaticHttpServer::StaticHttpServer() {
  listener_.start([this](TestHttpConnection& c) { serve(c); });  // on failure port() stays 0
}

StaticHttpServer::~StaticHttpServer() { stop(); }

void StaticHttpServer::stop() { listener_.stop(); }

std::string StaticHttpServer::url(std::string_view path) const {
  return "http://127.0.0.1:" + std::to_string(port()) + std::string(path);
}

void StaticHttpServer::route(std::string target, StaticRoute response) {
  std::lock_guard lock(mutex_);
  routes_[std::move(target)] = std::move(response);
}

std::vector<RecordedHttpRequest> StaticHttpServer::requests() const {
  std::lock_guard lock(mutex_);
  return requests_;
}

StaticRoute StaticHttpServer::find_route(const std::string& target) const {
  std::lock_guard lock(mutex_);
  if (auto it = routes_.find(target); it != routes_.end()) return it->second;
  StaticRoute missing = text_page("text/plain", "no route for " + target);
  missing.status = 404;
  return missing;
}

void StaticHttpServer::serve(TestHttpConnection& connection) {
  RecordedHttpRequest request;
  while (connection.read_request(request)) {
    const bool client_closes = http_lowercase(request.headers["connection"]) == "close";
    const bool head_only = request.method == "HEAD";
    const StaticRoute r = find_route(request.target);
    request_count_.fetch_add(1);
    {
      std::lock_guard lock(mutex_);
      requests_.push_back(std::move(request));
    }

    if (r.delay_ms > 0 && !connection.wait_ms(r.delay_ms)) return;
    std::string head = "HTTP/1.1 ";
    head.append(std::to_string(r.status)).append(" ");
    head.append(r.reason.empty() ? http_reason_phrase(r.status) : r.reason).append("\r\n");
    for (const auto& [name, value] : r.headers) head.append(name).append(": ").append(value).append("\r\n");
    if (client_closes) head.append("Connection: close\r\n");
    head.append("Content-Length: ").append(std::to_string(r.body.size())).append("\r\n\r\n");
    if (head_only) {
      if (!connection.send(head) || client_closes) return;
      continue;
    }
    if (r.body_delay_ms > 0) {
      if (!connection.send(head) || !connection.wait_ms(r.body_delay_ms)) return;
      head.clear();
    }
    if (!connection.send(head + r.body) || client_closes) return;
  }
}

}  // namespace keel::testing
