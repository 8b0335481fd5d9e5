// The range-capable test file server (see range_http_server.hpp).
#include "support/range_http_server.hpp"

#include <algorithm>
#include <cstdlib>

namespace keel::testing {
namespace {

std::string head_of(int status, const RangeHeaders& headers, size_t content_length) {
  std::string head = "HTTP/1.1 ";
  head.append(std::to_string(status)).append(" ").append(http_reason_phrase(status)).append("\r\n");
  for (const auto& [name, value] : headers) head.append(name).append(": ").append(value).append("\r\n");
  head.append("Content-Length: ").append(std::to_string(content_length)).append("\r\n\r\n");
  return head;
}

}  // namespace

RangeHttpServer::RangeHttpServer() {
  listener_.start([this](TestHttpConnection& c) { serve(c); });
}

RangeHttpServer::~RangeHttpServer() { stop(); }

void RangeHttpServer::stop() { listener_.stop(); }

std::string RangeHttpServer::url(std::string_view path) const {
  std::string u = "http://127.0.0.1:";
  u.append(std::to_string(port())).append(path);
  return u;
}

void RangeHttpServer::serve_file(std::string target, RangeFile file) {
  std::lock_guard lock(mutex_);
  Route r;
  r.file = std::move(file);
  routes_[std::move(target)] = std::move(r);
}

void RangeHttpServer::redirect(std::string target, std::string location, RangeHeaders headers) {
  std::lock_guard lock(mutex_);
  Route r;
  r.redirect = true;
  r.location = std::move(location);
  r.file.headers = std::move(headers);
  routes_[std::move(target)] = std::move(r);
}

std::vector<TestHttpRequest> RangeHttpServer::requests() const {
  std::lock_guard lock(mutex_);
  return requests_;
}

void RangeHttpServer::serve(TestHttpConnection& connection) {
  TestHttpRequest request;
  while (connection.read_request(request)) {
    {
      std::lock_guard lock(mutex_);
      requests_.push_back(request);
    }
    if (!answer(connection, request)) return;
  }
}

bool RangeHttpServer::answer(TestHttpConnection& connection, const TestHttpRequest& request) {
  Route route;
  bool first = false;
  {
    std::lock_guard lock(mutex_);
    auto it = routes_.find(request.target);
    if (it == routes_.end()) {
      const std::string body = "no file at " + request.target;
      return connection.send(head_of(404, {{"Content-Type", "text/plain"}}, body.size()) + body);
    }
    first = it->second.answers++ == 0;
    route = it->second;
  }
  const RangeFile& f = route.file;
  if (route.redirect) {
    RangeHeaders headers = f.headers;
    headers.emplace_back("Location", route.location);
    return connection.send(head_of(302, headers, 0));
  }

  size_t start = 0;
  auto range = request.headers.find("range");
  const bool ranged = range != request.headers.end() && !f.ignore_range;
  if (ranged) start = std::strtoull(range->second.c_str() + range->second.find('=') + 1, nullptr, 10);
  if (ranged && start >= f.body.size()) {
    RangeHeaders headers = f.headers;
    headers.emplace_back("Content-Range", "bytes */" + std::to_string(f.body.size()));
    return connection.send(head_of(416, headers, 0));
  }
  RangeHeaders headers = f.headers;
  if (ranged) {
    std::string content_range = "bytes " + std::to_string(start) + "-";
    content_range.append(std::to_string(f.body.size() - 1)).append("/").append(std::to_string(f.body.size()));
    headers.emplace_back("Content-Range", content_range);
  }
  const std::string_view rest = std::string_view(f.body).substr(start);
  const std::string head = head_of(ranged ? 206 : 200, headers, rest.size());
  if (f.cut_after >= 0 && first) {
    connection.send(head);
    connection.send(rest.substr(0, std::min<size_t>(rest.size(), static_cast<size_t>(f.cut_after))));
    connection.drop();
    return false;
  }
  if (f.stall_after >= 0) {
    connection.send(head);
    connection.send(rest.substr(0, std::min<size_t>(rest.size(), static_cast<size_t>(f.stall_after))));
    connection.wait_ms(60000, true);
    return false;
  }
  return connection.send(head) && connection.send(rest);
}

}  // namespace keel::testing
