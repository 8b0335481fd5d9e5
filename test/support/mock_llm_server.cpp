// The mock LLM server: its script and HTTP/1.1 answers (sockets in test_http_socket); see
// mock_llm_server.hpp.
#include "support/mock_llm_server.hpp"

#include <cstdio>
#include <string>
#include <utility>

namespace keel::testing {
namespace {

std::string hex(size_t n) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%zx", n);
  return buf;
}

}  // namespace

MockLlmServer::MockLlmServer() {
  listener_.start([this](TestHttpConnection& c) { serve(c); });  // on failure port() stays 0
}

MockLlmServer::~MockLlmServer() { listener_.stop(); }

std::string MockLlmServer::base_url() const { return "http://127.0.0.1:" + std::to_string(port()) + "/v1"; }

void MockLlmServer::push(MockResponse response) {
  std::lock_guard lock(mutex_);
  script_.push_back(std::move(response));
}

void MockLlmServer::set_responder(Responder responder) {
  std::lock_guard lock(mutex_);
  responder_ = std::move(responder);
}

void MockLlmServer::set_record_requests(bool record) {
  std::lock_guard lock(mutex_);
  record_ = record;
}

std::vector<MockRequest> MockLlmServer::requests() const {
  std::lock_guard lock(mutex_);
  return requests_;
}

std::vector<std::string> MockLlmServer::request_bodies() const {
  std::lock_guard lock(mutex_);
  std::vector<std::string> out;
  for (const MockRequest& r : requests_) out.push_back(r.body);
  return out;
}

size_t MockLlmServer::pending() const {
  std::lock_guard lock(mutex_);
  return script_.size();
}

MockResponse MockLlmServer::next_response(const std::string& body) {
  Responder responder;
  {
    std::lock_guard lock(mutex_);
    if (!responder_) {
      if (script_.empty()) return mock_error(500, "mock script exhausted");
      MockResponse r = std::move(script_.front());
      script_.pop_front();
      return r;
    }
    responder = responder_;
  }
  return responder(body);
}

void MockLlmServer::record(MockRequest request) {
  request_count_.fetch_add(1);
  std::lock_guard lock(mutex_);
  if (record_) requests_.push_back(std::move(request));
}

void MockLlmServer::serve(TestHttpConnection& connection) {
  TestHttpRequest wire;
  while (connection.read_request(wire)) {
    MockRequest request;
    request.method = std::move(wire.method);
    request.path = std::move(wire.target);
    request.headers = std::move(wire.headers);
    request.body = std::move(wire.body);
    const bool client_closes = http_lowercase(request.headers["connection"]) == "close";
    const std::string body = request.body;
    record(std::move(request));

    MockResponse r = next_response(body);
    if (r.delay_ms > 0 && !connection.wait_ms(r.delay_ms)) return;
    if (r.drop) return;
    std::string head = "HTTP/1.1 ";
    head.append(std::to_string(r.status)).append(" ").append(http_reason_phrase(r.status)).append("\r\n");
    if (!r.content_type.empty()) head.append("Content-Type: ").append(r.content_type).append("\r\n");
    for (const auto& [name, value] : r.headers) head.append(name).append(": ").append(value).append("\r\n");
    if (client_closes) head.append("Connection: close\r\n");
    if (!r.stream) {
      head.append("Content-Length: ").append(std::to_string(r.body.size())).append("\r\n\r\n");
      head.append(r.body);
      if (!connection.send(head) || client_closes) return;
      continue;
    }
    head.append("Cache-Control: no-cache\r\nTransfer-Encoding: chunked\r\n\r\n");
    // Without scripted pauses everything goes out in one write (fast for benchmarks); with them,
    // the head and each chunk are written separately.
    std::string pending = std::move(head);
    size_t unsent = 0;  // chunks in `pending`
    auto send_pending = [&] {
      const bool sent = connection.send(pending);
      note_chunks_sent(unsent);
      unsent = 0;
      return sent;
    };
    for (size_t i = 0; i < r.chunks.size(); ++i) {
      if (i > 0 && r.chunk_delay_ms > 0) {
        if (!send_pending() || !connection.wait_ms(r.chunk_delay_ms)) return;
        pending.clear();
      }
      if (r.chunks[i].empty()) continue;  // an empty chunk would end the body
      pending.append(hex(r.chunks[i].size())).append("\r\n").append(r.chunks[i]).append("\r\n");
      ++unsent;
    }
    if (!r.truncate) pending.append("0\r\n\r\n");
    if (!send_pending() || r.truncate || client_closes) return;
  }
}

void MockLlmServer::note_chunks_sent(size_t count) {
  if (count == 0) return;
  const auto now = std::chrono::steady_clock::now();
  std::lock_guard<std::mutex> lock(mutex_);
  chunk_times_.insert(chunk_times_.end(), count, now);
}

std::vector<std::chrono::steady_clock::time_point> MockLlmServer::chunk_times() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return chunk_times_;
}

}  // namespace keel::testing
