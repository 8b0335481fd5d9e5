// The scriptable MCP HTTP test server; see mcp_http_test_server.hpp.
#include "support/mcp_http_test_server.hpp"

#include <cstdio>

namespace keel::testing {
namespace {

using Clock = std::chrono::steady_clock;

std::string chunk(std::string_view bytes) {
  char size[32];
  std::snprintf(size, sizeof size, "%zx\r\n", bytes.size());
  std::string out = size;
  out.append(bytes).append("\r\n");
  return out;
}

}  // namespace

void McpStreamChannel::push(std::string bytes) {
  {
    std::lock_guard lock(mutex_);
    pieces_.push_back(std::move(bytes));
  }
  changed_.notify_all();
}

void McpStreamChannel::end(McpStreamEnd how) {
  {
    std::lock_guard lock(mutex_);
    end_ = how;
  }
  changed_.notify_all();
}

bool McpStreamChannel::next(std::string& piece, std::optional<McpStreamEnd>& how, std::chrono::milliseconds wait) {
  std::unique_lock lock(mutex_);
  changed_.wait_for(lock, wait, [this] { return !pieces_.empty() || end_.has_value(); });
  if (!pieces_.empty()) {
    piece = std::move(pieces_.front());
    pieces_.pop_front();
    return true;
  }
  how = end_;
  return end_.has_value();
}

std::string McpRecordedRequest::header(const std::string& lower_name) const {
  const auto it = headers.find(lower_name);
  return it == headers.end() ? std::string() : it->second;
}

McpHttpReply mcp_json_reply(const nlohmann::json& body, McpHeaders headers) {
  McpHttpReply r;
  r.headers = std::move(headers);
  r.headers.emplace_back("Content-Type", "application/json");
  r.body = body.dump();
  return r;
}

McpHttpReply mcp_status_reply(int status, std::string body, std::string content_type, McpHeaders headers) {
  McpHttpReply r;
  r.status = status;
  r.headers = std::move(headers);
  if (!content_type.empty()) r.headers.emplace_back("Content-Type", std::move(content_type));
  r.body = std::move(body);
  return r;
}

McpHttpReply mcp_sse_reply(std::vector<McpBodyPiece> pieces, McpStreamEnd end) {
  McpHttpReply r;
  r.headers = {{"Content-Type", "text/event-stream"}, {"Cache-Control", "no-cache"}};
  r.stream = true;
  r.pieces = std::move(pieces);
  r.end = end;
  return r;
}

std::string mcp_sse_event(const nlohmann::json& message, std::string_view id) {
  std::string out = "event: message\n";
  if (!id.empty()) out.append("id: ").append(id).append("\n");
  out.append("data: ").append(message.dump()).append("\n\n");
  return out;
}

nlohmann::json mcp_result(const nlohmann::json& request, nlohmann::json result) {
  nlohmann::json out = {{"jsonrpc", "2.0"}, {"result", std::move(result)}};
  out["id"] = request.is_object() && request.contains("id") ? request["id"] : nlohmann::json();
  return out;
}

McpHttpTestServer::McpHttpTestServer() {
  listener_.start([this](TestHttpConnection& c) { serve(c); });  // on failure port() stays 0
}

std::string McpHttpTestServer::url(std::string_view path) const {
  std::string out = "http://127.0.0.1:";
  out.append(std::to_string(port())).append(path);
  return out;
}

void McpHttpTestServer::set_responder(Responder responder) {
  std::lock_guard lock(mutex_);
  responder_ = std::move(responder);
}

std::vector<McpRecordedRequest> McpHttpTestServer::requests() const {
  std::lock_guard lock(mutex_);
  return requests_;
}

bool McpHttpTestServer::wait_for_requests(size_t count, std::chrono::milliseconds timeout) const {
  std::unique_lock lock(mutex_);
  return recorded_.wait_for(lock, timeout, [&] { return requests_.size() >= count; });
}

void McpHttpTestServer::mark_finished(size_t index) {
  std::lock_guard lock(mutex_);
  requests_.at(index).finished = Clock::now();
}

void McpHttpTestServer::serve(TestHttpConnection& connection) {
  TestHttpRequest wire;
  while (connection.read_request(wire)) {
    McpRecordedRequest request;
    request.method = std::move(wire.method);
    request.target = std::move(wire.target);
    request.headers = std::move(wire.headers);
    request.body = std::move(wire.body);
    request.message = nlohmann::json::parse(request.body, nullptr, /*allow_exceptions=*/false);
    if (request.message.is_discarded()) request.message = nullptr;
    request.received = Clock::now();
    size_t index;
    Responder responder;
    {
      std::lock_guard lock(mutex_);
      requests_.push_back(request);
      index = requests_.size() - 1;
      responder = responder_;
    }
    recorded_.notify_all();
    McpHttpReply reply = responder ? responder(request) : mcp_status_reply(500, "no responder");
    if (reply.delay_ms > 0 && !connection.wait_ms(reply.delay_ms, /*watch_peer=*/true)) {
      mark_finished(index);
      return;
    }
    std::string head = "HTTP/1.1 ";
    head.append(std::to_string(reply.status)).append(" ").append(http_reason_phrase(reply.status)).append("\r\n");
    for (const auto& [name, value] : reply.headers) head.append(name).append(": ").append(value).append("\r\n");
    if (!reply.stream) {
      head.append("Content-Length: ").append(std::to_string(reply.body.size())).append("\r\n\r\n");
      const bool sent = connection.send(head.append(reply.body));
      mark_finished(index);
      if (!sent) return;
      continue;
    }
    head.append("Transfer-Encoding: chunked\r\n\r\n");
    McpStreamEnd how = reply.end;
    if (!connection.send(head) || !stream_body(connection, reply, how)) {
      mark_finished(index);
      return;
    }
    if (how == McpStreamEnd::kFinish) {
      const bool sent = connection.send("0\r\n\r\n");
      mark_finished(index);
      if (!sent) return;
      continue;
    }
    if (how == McpStreamEnd::kHold) {
      while (connection.wait_ms(1000, /*watch_peer=*/true)) {
      }
    }
    mark_finished(index);
    connection.drop();
    return;
  }
}

// Sends the pieces, then the channel's pieces until it ends; false when the connection or the
// server went away.
bool McpHttpTestServer::stream_body(TestHttpConnection& connection, const McpHttpReply& reply, McpStreamEnd& how) {
  for (const McpBodyPiece& piece : reply.pieces) {
    if (piece.delay_ms > 0 && !connection.wait_ms(piece.delay_ms, /*watch_peer=*/true)) return false;
    if (!piece.bytes.empty() && !connection.send(chunk(piece.bytes))) return false;
  }
  if (!reply.channel) return true;
  while (true) {
    std::string piece;
    std::optional<McpStreamEnd> end;
    if (reply.channel->next(piece, end, std::chrono::milliseconds(20))) {
      if (end.has_value()) {
        how = *end;
        return true;
      }
      if (!piece.empty() && !connection.send(chunk(piece))) return false;
    } else if (!connection.wait_ms(0, /*watch_peer=*/true)) {
      return false;
    }
  }
}

}  // namespace keel::testing
