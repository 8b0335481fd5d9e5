// The MCP Streamable HTTP endpoint over real sockets, with a fake MessageHandler: sessions,
// JSON and SSE answers, the transport's error statuses, DNS-rebinding protection, the bearer
// token, and requests handled on workers.
#include "mcp_server/mcp_http_endpoint.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <future>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "server/raw_http_client.hpp"

namespace keel::mcp {
namespace {

using keel::testing::raw_http_exact;
using keel::testing::RawHttpResponse;
using nlohmann::json;

// What every fake session saw, and a gate the "slow" method waits on.
struct FakeWorld {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<json> received;
  bool release_slow = false;
  std::atomic<int> sessions_made{0};
  MessageHandler::Notify outbox;  // the latest session's, as the endpoint set it

  void push(const json& m) {
    MessageHandler::Notify send;
    {
      std::lock_guard lock(mu);
      send = outbox;
    }
    if (send) send(m);
  }

  void open_gate() {
    std::lock_guard lock(mu);
    release_slow = true;
    cv.notify_all();
  }
};

class FakeHandler : public MessageHandler {
 public:
  explicit FakeHandler(FakeWorld& world) : world_(world) {}

  void set_outbox(Notify outbox) override {
    std::lock_guard lock(world_.mu);
    world_.outbox = std::move(outbox);
  }

  std::optional<json> handle(const json& m, const Notify& notify) override {
    {
      std::lock_guard lock(world_.mu);
      world_.received.push_back(m);
    }
    if (!m.contains("method") || !m.contains("id")) return std::nullopt;  // notification or response
    const std::string method = m["method"];
    json result = json::object();
    if (method == "initialize") {
      if (m["params"].value("reject", false)) return error(m, -32602, "rejected by the test");
      result["protocolVersion"] = m["params"].value("protocolVersion", "2025-11-25");
      result["capabilities"] = {{"tools", json::object()}, {"logging", json::object()}};
      result["serverInfo"] = {{"name", "fake"}, {"version", "1.0.0"}};
    } else if (method == "tools/list") {
      result["tools"] = json::array({{{"name", "echo"}, {"inputSchema", {{"type", "object"}}}}});
    } else if (method == "chatty") {
      notify(
          {{"jsonrpc", "2.0"}, {"method", "notifications/message"}, {"params", {{"level", "info"}, {"data", "one"}}}});
      notify({{"jsonrpc", "2.0"}, {"method", "notifications/progress"}, {"params", {{"progress", 2}}}});
      result["done"] = true;
    } else if (method == "slow") {
      std::unique_lock lock(world_.mu);
      world_.cv.wait_for(lock, std::chrono::seconds(10), [&] { return world_.release_slow; });
    } else if (method != "ping" && method != "logging/setLevel") {
      return error(m, -32601, "Method not found");
    }
    return json{{"jsonrpc", "2.0"}, {"id", m["id"]}, {"result", result}};
  }

 private:
  static json error(const json& m, int code, const char* message) {
    return json{{"jsonrpc", "2.0"}, {"id", m["id"]}, {"error", {{"code", code}, {"message", message}}}};
  }
  FakeWorld& world_;
};

std::string rpc(int id, const std::string& method, json params = json::object()) {
  return json{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}}.dump();
}

const std::string kAccept = "Accept: application/json, text/event-stream\r\n";
const std::string kJson = "Content-Type: application/json\r\n";

class McpHttpEndpointTest : public ::testing::Test {
 protected:
  void start(McpHttpEndpointOptions options = {}, server::HttpServerOptions http = {}) {
    server_ = std::make_unique<server::HttpServer>(http);
    auto endpoint = McpHttpEndpoint::mount(
        *server_,
        [this] {
          ++world_.sessions_made;
          return std::make_unique<FakeHandler>(world_);
        },
        options);
    ASSERT_TRUE(endpoint.ok()) << endpoint.status().to_string();
    endpoint_ = std::move(*endpoint);
    ASSERT_TRUE(server_->start().ok());
    host_ = "Host: 127.0.0.1:" + std::to_string(server_->port()) + "\r\n";
  }

  void TearDown() override {
    world_.open_gate();
    endpoint_.reset();
    server_.reset();
  }

  // One request to /mcp; `headers` are complete header lines (Host included).
  std::optional<RawHttpResponse> call(const std::string& method, const std::string& headers,
                                      const std::string& body = "") {
    std::string request = method + " /mcp HTTP/1.1\r\n";
    request.append(headers);
    if (method == "POST") request.append("Content-Length: ").append(std::to_string(body.size())).append("\r\n");
    request.append("Connection: close\r\n\r\n").append(body);
    return raw_http_exact(server_->port(), request);
  }

  // A POST with the usual headers, plus `extra` lines.
  std::optional<RawHttpResponse> post(const std::string& body, const std::string& session = "",
                                      const std::string& extra = "") {
    std::string headers = host_ + kAccept + kJson + extra;
    if (!session.empty()) headers.append("Mcp-Session-Id: ").append(session).append("\r\n");
    return call("POST", headers, body);
  }

  std::string initialize() {
    auto r = post(rpc(1, "initialize", {{"protocolVersion", "2025-11-25"}, {"capabilities", json::object()}}));
    EXPECT_TRUE(r.has_value());
    if (!r) return "";
    EXPECT_EQ(r->status, 200) << r->body;
    return r->header("mcp-session-id");
  }

  static json body_json(const RawHttpResponse& r) { return json::parse(r.body, nullptr, false); }

  static void expect_rpc_error(const std::optional<RawHttpResponse>& r, int status, int code) {
    ASSERT_TRUE(r.has_value());
    EXPECT_EQ(r->status, status) << r->body;
    EXPECT_EQ(r->header("content-type"), "application/json");
    const json j = body_json(*r);
    EXPECT_EQ(j.value("jsonrpc", ""), "2.0") << r->body;
    EXPECT_TRUE(j.contains("id") && j["id"].is_null()) << r->body;
    EXPECT_EQ(j["error"].value("code", 0), code) << r->body;
    EXPECT_FALSE(j["error"].value("message", "").empty());
  }

  FakeWorld world_;
  std::unique_ptr<server::HttpServer> server_;
  std::unique_ptr<McpHttpEndpoint> endpoint_;
  std::string host_;
};

TEST_F(McpHttpEndpointTest, InitializeOpensASessionWithAnIdHeader) {
  start();
  auto r = post(rpc(1, "initialize", {{"protocolVersion", "2025-06-18"}}));
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->header("content-type"), "application/json");
  const std::string id = r->header("mcp-session-id");
  ASSERT_EQ(id.size(), 32u);
  EXPECT_EQ(id.find_first_not_of("0123456789abcdef"), std::string::npos) << id;
  const json j = body_json(*r);
  EXPECT_EQ(j["id"], 1);
  EXPECT_EQ(j["result"]["protocolVersion"], "2025-06-18");
  EXPECT_EQ(endpoint_->session_count(), 1u);
  EXPECT_NE(initialize(), id);  // every initialize opens a new session
  EXPECT_EQ(endpoint_->session_count(), 2u);
  EXPECT_EQ(world_.sessions_made.load(), 2);
}

TEST_F(McpHttpEndpointTest, InitializeRejectedByTheHandlerOpensNoSession) {
  start();
  auto r = post(rpc(1, "initialize", {{"reject", true}}));
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->header("mcp-session-id"), "");
  EXPECT_EQ(body_json(*r)["error"]["code"], -32602);
  EXPECT_EQ(endpoint_->session_count(), 0u);
}

TEST_F(McpHttpEndpointTest, RequestWithoutSessionIs400AndUnknownSessionIs404) {
  start();
  expect_rpc_error(post(rpc(2, "tools/list")), 400, -32000);
  expect_rpc_error(post(rpc(2, "tools/list"), "00000000000000000000000000000000"), 404, -32001);
}

TEST_F(McpHttpEndpointTest, NotificationIsHandedToTheHandlerThen202) {
  start();
  const std::string session = initialize();
  auto r = post(R"({"jsonrpc":"2.0","method":"notifications/initialized"})", session);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, 202);
  EXPECT_EQ(r->body, "");
  std::lock_guard lock(world_.mu);
  ASSERT_EQ(world_.received.size(), 2u);  // the handler had it before the 202 went out
  EXPECT_EQ(world_.received[1]["method"], "notifications/initialized");
}

TEST_F(McpHttpEndpointTest, ClientResponseIs202) {
  start();
  const std::string session = initialize();
  auto r = post(R"({"jsonrpc":"2.0","id":"s1","result":{"ok":true}})", session);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, 202);
}

TEST_F(McpHttpEndpointTest, RequestGetsTheHandlersJsonResponse) {
  start();
  const std::string session = initialize();
  auto r = post(rpc(7, "tools/list"), session, "MCP-Protocol-Version: 2025-11-25\r\n");
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->header("content-type"), "application/json");
  EXPECT_EQ(r->header("mcp-session-id"), session);
  EXPECT_EQ(r->body,
            R"({"id":7,"jsonrpc":"2.0","result":{"tools":[{"inputSchema":{"type":"object"},"name":"echo"}]}})");
  // No version header: 2025-03-26 is assumed and accepted.
  auto ping = post(rpc(8, "ping"), session);
  ASSERT_TRUE(ping.has_value());
  EXPECT_EQ(ping->status, 200);
  EXPECT_EQ(ping->body, R"({"id":8,"jsonrpc":"2.0","result":{}})");
}

TEST_F(McpHttpEndpointTest, NotificationsDuringHandlingMakeAnSseStream) {
  start();
  const std::string session = initialize();
  auto r = post(rpc(9, "chatty"), session);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->header("content-type"), "text/event-stream");
  EXPECT_EQ(r->header("transfer-encoding"), "chunked");
  EXPECT_EQ(r->header("mcp-session-id"), session);
  EXPECT_EQ(r->body,
            "event: message\nid: 1\n"
            R"(data: {"jsonrpc":"2.0","method":"notifications/message","params":{"data":"one","level":"info"}})"
            "\n\nevent: message\nid: 2\n"
            R"(data: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":2}})"
            "\n\nevent: message\nid: 3\n"
            R"(data: {"id":9,"jsonrpc":"2.0","result":{"done":true}})"
            "\n\n");
  // Event ids go on across the session's streams.
  auto again = post(rpc(10, "chatty"), session);
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(again->body.substr(0, 25), "event: message\nid: 4\ndata");
}

TEST_F(McpHttpEndpointTest, BatchIs400) {
  start();
  const std::string session = initialize();
  auto r = post("[" + rpc(1, "ping") + "," + rpc(2, "ping") + "]", session);
  expect_rpc_error(r, 400, -32600);
  EXPECT_NE(r->body.find("batching is not supported"), std::string::npos);
}

TEST_F(McpHttpEndpointTest, MalformedJsonIs400WithParseError) {
  start();
  auto r = post("{\"jsonrpc\": \"2.0\", \"id\": 1,");
  expect_rpc_error(r, 400, -32700);
  expect_rpc_error(post(R"({"jsonrpc":"2.0","id":1})"), 400, -32600);  // neither request nor response
  expect_rpc_error(post(R"({"jsonrpc":"1.0","id":1,"method":"ping"})"), 400, -32600);
  expect_rpc_error(post("42"), 400, -32600);
}

TEST_F(McpHttpEndpointTest, UnsupportedProtocolVersionIs400) {
  start();
  const std::string session = initialize();
  auto r = post(rpc(3, "ping"), session, "MCP-Protocol-Version: 1999-01-01\r\n");
  expect_rpc_error(r, 400, -32000);
  EXPECT_NE(r->body.find("1999-01-01"), std::string::npos);
  auto old = post(rpc(4, "ping"), session, "MCP-Protocol-Version: 2025-03-26\r\n");
  ASSERT_TRUE(old.has_value());
  EXPECT_EQ(old->status, 200);
}

TEST_F(McpHttpEndpointTest, ForeignHostIs403) {
  start();
  auto r = call("POST", "Host: evil.example.com\r\n" + kAccept + kJson, rpc(1, "initialize"));
  expect_rpc_error(r, 403, -32000);
  EXPECT_NE(r->body.find("evil.example.com"), std::string::npos);
  EXPECT_EQ(endpoint_->session_count(), 0u);
  for (const char* ok : {"localhost", "LOCALHOST:1234", "127.0.0.1:9", "[::1]:80"}) {
    auto good = call("POST", std::string("Host: ") + ok + "\r\n" + kAccept + kJson, rpc(1, "initialize"));
    ASSERT_TRUE(good.has_value());
    EXPECT_EQ(good->status, 200) << ok;
  }
}

TEST_F(McpHttpEndpointTest, ForeignOriginIs403) {
  start();
  auto r = post(rpc(1, "initialize"), "", "Origin: http://evil.example.com\r\n");
  expect_rpc_error(r, 403, -32000);
  EXPECT_NE(r->body.find("Origin"), std::string::npos);
  expect_rpc_error(post(rpc(1, "initialize"), "", "Origin: null\r\n"), 403, -32000);
  // Another local port is another origin (a dev server's page must not drive the tools).
  expect_rpc_error(post(rpc(1, "initialize"), "", "Origin: http://localhost:5173\r\n"), 403, -32000);
  // The server's own origin: the Origin's host and port are the Host header's.
  const std::string port = std::to_string(server_->port());
  auto own = post(rpc(1, "initialize"), "", "Origin: http://127.0.0.1:" + port + "\r\n");
  ASSERT_TRUE(own.has_value());
  EXPECT_EQ(own->status, 200);
  auto own_tls = post(rpc(1, "initialize"), "", "Origin: https://127.0.0.1:" + port + "\r\n");
  ASSERT_TRUE(own_tls.has_value());
  EXPECT_EQ(own_tls->status, 200);
}

TEST_F(McpHttpEndpointTest, ConfiguredHostsAndOriginsReplaceTheDefaults) {
  McpHttpEndpointOptions options;
  options.allowed_hosts = {"mcp.example.com"};
  options.allowed_origins = {"https://app.example.com"};
  start(options);
  auto host_ok =
      call("POST", "Host: mcp.example.com:8080\r\n" + kAccept + kJson + "Origin: https://app.example.com\r\n",
           rpc(1, "initialize"));
  ASSERT_TRUE(host_ok.has_value());
  EXPECT_EQ(host_ok->status, 200);
  auto localhost = call("POST", "Host: localhost\r\n" + kAccept + kJson, rpc(1, "initialize"));
  ASSERT_TRUE(localhost.has_value());
  EXPECT_EQ(localhost->status, 403);
}

TEST_F(McpHttpEndpointTest, BearerTokenIsRequired) {
  McpHttpEndpointOptions options;
  options.bearer_token = "s3cret-token";
  start(options);
  auto missing = post(rpc(1, "initialize"));
  expect_rpc_error(missing, 401, -32000);
  EXPECT_EQ(missing->header("www-authenticate"), "Bearer");
  auto wrong = post(rpc(1, "initialize"), "", "Authorization: Bearer s3cret-tokem\r\n");
  expect_rpc_error(wrong, 401, -32000);
  EXPECT_EQ(wrong->header("www-authenticate"), R"(Bearer error="invalid_token")");
  expect_rpc_error(post(rpc(1, "initialize"), "", "Authorization: Bearer s3cret\r\n"), 401, -32000);
  auto right = post(rpc(1, "initialize"), "", "Authorization: bearer s3cret-token\r\n");
  ASSERT_TRUE(right.has_value());
  EXPECT_EQ(right->status, 200);
  EXPECT_EQ(endpoint_->session_count(), 1u);
}

TEST_F(McpHttpEndpointTest, DeleteEndsTheSession) {
  start();
  const std::string session = initialize();
  auto del = call("DELETE", host_ + "Mcp-Session-Id: " + session + "\r\n");
  ASSERT_TRUE(del.has_value());
  EXPECT_EQ(del->status, 200);
  EXPECT_EQ(endpoint_->session_count(), 0u);
  expect_rpc_error(post(rpc(2, "ping"), session), 404, -32001);
  expect_rpc_error(call("DELETE", host_ + "Mcp-Session-Id: " + session + "\r\n"), 404, -32001);
  expect_rpc_error(call("DELETE", host_), 400, -32000);
}

TEST_F(McpHttpEndpointTest, GetNeedsASessionAndBadAcceptOrContentTypeAreRefused) {
  start();
  expect_rpc_error(call("GET", host_ + "Accept: text/event-stream\r\n"), 400, -32000);
  expect_rpc_error(call("GET", host_ + "Accept: text/event-stream\r\nMcp-Session-Id: nope\r\n"), 404, -32001);
  const std::string session = initialize();
  expect_rpc_error(call("GET", host_ + "Accept: application/json\r\nMcp-Session-Id: " + session + "\r\n"), 406, -32000);
  expect_rpc_error(call("POST", host_ + "Accept: application/json\r\n" + kJson, rpc(1, "initialize")), 406, -32000);
  expect_rpc_error(call("POST", host_ + kJson, rpc(1, "initialize")), 406, -32000);
  expect_rpc_error(call("POST", host_ + kAccept + "Content-Type: text/plain\r\n", rpc(1, "initialize")), 415, -32000);
  auto any =
      call("POST", host_ + "Accept: */*\r\nContent-Type: application/json; charset=utf-8\r\n", rpc(1, "initialize"));
  ASSERT_TRUE(any.has_value());
  EXPECT_EQ(any->status, 200);
}

TEST_F(McpHttpEndpointTest, GetOpensTheSessionsStreamForMessagesTiedToNoRequest) {
  start();
  const std::string session = initialize();
  keel::testing::RawHttpClient stream(server_->port());
  ASSERT_TRUE(stream.send("GET /mcp HTTP/1.1\r\n" + host_ + "Accept: text/event-stream\r\nMcp-Session-Id: " + session +
                          "\r\n\r\n"));
  auto head = stream.read_head();
  ASSERT_TRUE(head.has_value());
  EXPECT_EQ(head->status, 200);
  EXPECT_EQ(head->header("content-type"), "text/event-stream");
  for (int i = 0; i < 200; ++i) {  // the outbox is set just after the head goes out
    {
      std::lock_guard lock(world_.mu);
      if (world_.outbox) break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  world_.push({{"jsonrpc", "2.0"}, {"method", "notifications/resources/updated"}, {"params", {{"uri", "test://x"}}}});
  auto chunk = stream.read_chunk();
  ASSERT_TRUE(chunk.has_value());
  EXPECT_NE(chunk->find("event: message"), std::string::npos) << *chunk;
  EXPECT_NE(chunk->find("notifications/resources/updated"), std::string::npos) << *chunk;
  // Ending the session ends its stream.
  auto del = call("DELETE", host_ + "Mcp-Session-Id: " + session + "\r\n");
  ASSERT_TRUE(del.has_value());
  EXPECT_EQ(del->status, 200);
  auto last = stream.read_chunk();
  ASSERT_TRUE(last.has_value());
  EXPECT_EQ(*last, "");
}

TEST_F(McpHttpEndpointTest, SlowHandlerDoesNotBlockAPing) {
  start();
  const std::string session = initialize();
  std::promise<std::optional<RawHttpResponse>> slow_result;
  std::thread slow([&] { slow_result.set_value(post(rpc(20, "slow"), session)); });
  auto slow_future = slow_result.get_future();
  // Wait until the slow request is inside its handler.
  for (int i = 0; i < 500; ++i) {
    {
      std::lock_guard lock(world_.mu);
      if (world_.received.back().value("method", "") == "slow") break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  const auto begin = std::chrono::steady_clock::now();
  auto ping = post(rpc(21, "ping"), session);
  ASSERT_TRUE(ping.has_value());
  EXPECT_EQ(ping->status, 200);
  EXPECT_LT(std::chrono::steady_clock::now() - begin, std::chrono::seconds(3));
  EXPECT_EQ(slow_future.wait_for(std::chrono::milliseconds(0)), std::future_status::timeout);  // still blocked
  world_.open_gate();
  auto r = slow_future.get();
  slow.join();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(body_json(*r)["id"], 20);
}

TEST_F(McpHttpEndpointTest, OldestIdleSessionIsDroppedAtTheCap) {
  McpHttpEndpointOptions options;
  options.max_sessions = 2;
  start(options);
  const std::string first = initialize();
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  const std::string second = initialize();
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  const std::string third = initialize();
  EXPECT_EQ(endpoint_->session_count(), 2u);
  expect_rpc_error(post(rpc(1, "ping"), first), 404, -32001);
  EXPECT_EQ(post(rpc(1, "ping"), second)->status, 200);
  EXPECT_EQ(post(rpc(1, "ping"), third)->status, 200);
}

TEST_F(McpHttpEndpointTest, IdleSessionExpires) {
  McpHttpEndpointOptions options;
  options.session_idle_timeout = std::chrono::milliseconds(100);
  start(options);
  const std::string session = initialize();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  expect_rpc_error(post(rpc(1, "ping"), session), 404, -32001);
  EXPECT_EQ(endpoint_->session_count(), 0u);
}

TEST_F(McpHttpEndpointTest, RequestsAfterTheEndpointIsGoneGet503) {
  start();
  endpoint_.reset();
  expect_rpc_error(post(rpc(1, "initialize")), 503, -32000);
}

TEST(McpHttpEndpointMount, RejectsBadOptions) {
  server::HttpServer server;
  McpHttpEndpointOptions options;
  options.path = "mcp";
  auto bad_path = McpHttpEndpoint::mount(
      server, [] { return std::unique_ptr<MessageHandler>(); }, options);
  EXPECT_EQ(bad_path.status().code(), ErrorCode::kInvalidArgument);
  auto no_factory = McpHttpEndpoint::mount(server, nullptr);
  EXPECT_EQ(no_factory.status().code(), ErrorCode::kInvalidArgument);
}

}  // namespace
}  // namespace keel::mcp
