// keel's MCP server in the 2026-07-28 revision (stateless): per-request _meta, server/discover,
// result shapes, the revision's error codes, multi round-trip requests for approvals with a
// sealed requestState, log lines only when a request sets a level, subscriptions/listen; over a
// session's handle() as stdio drives it, and over the Streamable HTTP endpoint with real sockets
// (statuses, mirrored headers, handshake clients beside stateless ones). Shapes from
// https://modelcontextprotocol.io/specification/2026-07-28 (server/discover, basic/versioning,
// basic/patterns/mrtr, basic/patterns/subscriptions, basic/transports/streamable-http).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

#include "keel/data_tools.hpp"
#include "keel/tool.hpp"
#include "keel/tool_registry.hpp"
#include "mcp/conformance_fixtures.hpp"
#include "mcp_server/keel_mcp_handler.hpp"
#include "mcp_server/mcp_http_endpoint.hpp"
#include "mcp_server/request_meta.hpp"
#include "mcp_server/request_state_seal.hpp"
#include "server/raw_http_client.hpp"

namespace keel::mcp {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

json stateless_meta_of(json capabilities = json::object()) {
  return {{kMetaProtocolVersion, "2026-07-28"},
          {kMetaClientCapabilities, std::move(capabilities)},
          {kMetaClientInfo, {{"name", "test"}, {"version", "1"}}}};
}

json stateless_request(int id, const std::string& method, json params = json::object(), json request_meta = stateless_meta_of()) {
  params["_meta"] = std::move(request_meta);
  return {{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}};
}

struct StatelessWire {
  std::mutex mu;
  std::vector<json> sent;
  MessageHandler::Notify sink() {
    return [this](const json& m) {
      std::lock_guard lock(mu);
      sent.push_back(m);
    };
  }
  size_t count(const std::string& method) {
    std::lock_guard lock(mu);
    size_t n = 0;
    for (const json& m : sent) n += m.value("method", "") == method ? 1 : 0;
    return n;
  }
};

class StatelessServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ToolTraits traits;
    traits.risk = Risk::kHigh;
    ASSERT_TRUE(registry_
                    .add(make_tool(make_tool_spec("danger", "Deletes things",
                                                  R"({"type":"object","properties":{"path":{"type":"string"}}})", traits),
                                   [this](const json&, const ToolContext&) -> Result<std::string> {
                                     ++runs_;
                                     return std::string("deleted");
                                   }))
                    .ok());
    KeelMcpServerOptions options;
    options.tools = &registry_;
    options.catalogs = {test::conformance_fixture_catalog()};
    options.server_tools = test::conformance_fixture_tools();
    options.instructions = "Use the fixtures.";
    options.watch_interval = 10ms;
    server_ = std::make_unique<KeelMcpServer>(std::move(options));
    session_ = server_->new_session();
  }

  json call(const json& message) { return session_->handle(message, wire_.sink()).value_or(json()); }

  ToolRegistry registry_;
  std::atomic<int> runs_{0};
  std::unique_ptr<KeelMcpServer> server_;
  std::unique_ptr<MessageHandler> session_;
  StatelessWire wire_;
};

TEST_F(StatelessServerTest, DiscoverNamesVersionsCapabilitiesAndTheServer) {
  json r = call(stateless_request(1, "server/discover"))["result"];
  EXPECT_EQ(r["supportedVersions"], json({"2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"}));
  EXPECT_TRUE(r["capabilities"].contains("tools"));
  EXPECT_TRUE(r["capabilities"].contains("prompts"));
  EXPECT_EQ(r["instructions"], "Use the fixtures.");
  EXPECT_EQ(r["resultType"], "complete");
  EXPECT_EQ(r["_meta"][kMetaServerInfo]["name"], "keel");
  EXPECT_EQ(r["cacheScope"], "private");
  EXPECT_EQ(r["ttlMs"], 0);
}

TEST_F(StatelessServerTest, ResultsCarryTheirTypeAndListsTheirCacheHints) {
  for (const char* method : {"tools/list", "prompts/list", "resources/list", "resources/templates/list"}) {
    json r = call(stateless_request(1, method))["result"];
    EXPECT_EQ(r["resultType"], "complete") << method;
    EXPECT_TRUE(r.contains("ttlMs") && r.contains("cacheScope")) << method << r.dump();
  }
  json read = call(stateless_request(2, "resources/read", {{"uri", "test://static-text"}}))["result"];
  EXPECT_TRUE(read.contains("ttlMs"));
  json called = call(stateless_request(3, "tools/call", {{"name", "test_simple_text"}}))["result"];
  EXPECT_EQ(called["resultType"], "complete");
  EXPECT_FALSE(called.contains("ttlMs")) << "a call is not cacheable";
}

TEST_F(StatelessServerTest, MalformedMetaAndOtherVersionsAreRefusedWithTheRevisionsCodes) {
  json no_caps = stateless_meta_of();
  no_caps.erase(kMetaClientCapabilities);
  EXPECT_EQ(call(stateless_request(1, "tools/list", json::object(), no_caps))["error"]["code"], -32602);
  json no_info = stateless_meta_of();
  no_info.erase(kMetaClientInfo);
  EXPECT_TRUE(call(stateless_request(2, "tools/list", json::object(), no_info)).contains("result")) << "clientInfo is optional";
  json old = stateless_meta_of();
  old[kMetaProtocolVersion] = "1900-01-01";
  json refused = call(stateless_request(3, "tools/list", json::object(), old));
  EXPECT_EQ(refused["id"], 3);
  EXPECT_EQ(refused["error"]["code"], kRpcUnsupportedVersion);
  EXPECT_EQ(refused["error"]["data"]["requested"], "1900-01-01");
  EXPECT_EQ(refused["error"]["data"]["supported"][0], "2026-07-28");
}

TEST_F(StatelessServerTest, HandshakeOnlyMethodsAreUnknownAndAMissingResourceIsInvalidParams) {
  for (const char* method : {"initialize", "ping", "logging/setLevel", "resources/subscribe", "nope/nope"}) {
    EXPECT_EQ(call(stateless_request(1, method))["error"]["code"], -32601) << method;
  }
  json missing = call(stateless_request(2, "resources/read", {{"uri", "test://nothing"}}));
  EXPECT_EQ(missing["error"]["code"], -32602);
  EXPECT_EQ(missing["error"]["data"]["uri"], "test://nothing");
}

TEST_F(StatelessServerTest, InputResponsesThatAreNotResultsAreRefused) {
  EXPECT_EQ(call(stateless_request(1, "tools/call", {{"name", "test_simple_text"}, {"inputResponses", 5}}))["error"]["code"], -32602);
  EXPECT_EQ(call(stateless_request(2, "tools/call", {{"name", "test_simple_text"}, {"inputResponses", {{"a", 5}}}}))["error"]["code"],
            -32602);
  EXPECT_EQ(call(stateless_request(3, "tools/call", {{"name", "test_simple_text"}, {"requestState", 7}}))["error"]["code"], -32602);
}

TEST_F(StatelessServerTest, LogLinesOnlyWhenTheRequestSetsALevel) {
  call(stateless_request(1, "tools/call", {{"name", "test_tool_with_logging"}}));
  EXPECT_EQ(wire_.count("notifications/message"), 0u);
  json debug = stateless_meta_of();
  debug[kMetaLogLevel] = "debug";
  call(stateless_request(2, "tools/call", {{"name", "test_tool_with_logging"}}, debug));
  EXPECT_EQ(wire_.count("notifications/message"), 4u);  // three from the tool, one call line
}

TEST_F(StatelessServerTest, AnApprovalIsAMultiRoundTripRequestWithSealedState) {
  const json caps = {{"elicitation", json::object()}};
  const json args = {{"path", "/tmp/x"}};
  json first = call(stateless_request(1, "tools/call", {{"name", "danger"}, {"arguments", args}}, stateless_meta_of(caps)))["result"];
  ASSERT_EQ(first["resultType"], "input_required") << first.dump();
  ASSERT_TRUE(first["inputRequests"].contains("keel_input_1"));
  EXPECT_EQ(first["inputRequests"]["keel_input_1"]["method"], "elicitation/create");
  const std::string state = first["requestState"];
  EXPECT_EQ(runs_, 0);

  const json allow = {{"keel_input_1", {{"action", "accept"}, {"content", {{"allow", true}}}}}};
  // An answer without the state, with a forged state, or with the state of other arguments is
  // not taken: the client is asked again and nothing runs.
  for (const json& retry : {json{{"name", "danger"}, {"arguments", args}, {"inputResponses", allow}},
                            json{{"name", "danger"}, {"arguments", args}, {"inputResponses", allow}, {"requestState", state + "0"}},
                            json{{"name", "danger"}, {"arguments", {{"path", "/"}}}, {"inputResponses", allow}, {"requestState", state}}}) {
    json again = call(stateless_request(2, "tools/call", retry, stateless_meta_of(caps)))["result"];
    EXPECT_EQ(again["resultType"], "input_required") << retry.dump();
  }
  EXPECT_EQ(runs_, 0);

  json done = call(stateless_request(3, "tools/call", {{"name", "danger"}, {"arguments", args}, {"inputResponses", allow}, {"requestState", state}},
                           stateless_meta_of(caps)))["result"];
  EXPECT_EQ(done["resultType"], "complete");
  EXPECT_EQ(done["content"][0]["text"], "deleted") << done.dump();
  EXPECT_EQ(runs_, 1);

  json declined = call(stateless_request(4, "tools/call",
                               {{"name", "danger"}, {"arguments", args}, {"requestState", state},
                                {"inputResponses", {{"keel_input_1", {{"action", "decline"}}}}}},
                               stateless_meta_of(caps)))["result"];
  EXPECT_TRUE(declined.value("isError", false)) << declined.dump();
  EXPECT_EQ(runs_, 1);
}

TEST_F(StatelessServerTest, AClientThatCannotBeAskedIsRefusedNotAsked) {
  json r = call(stateless_request(1, "tools/call", {{"name", "danger"}}))["result"];
  EXPECT_EQ(r["resultType"], "complete");
  EXPECT_TRUE(r.value("isError", false));
  EXPECT_NE(r["content"][0]["text"].get<std::string>().find("keel approvals add"), std::string::npos) << r.dump();
  EXPECT_EQ(runs_, 0);
}

TEST_F(StatelessServerTest, AToolCanRejectTheCallWithTheRevisionsError) {
  json r = call(stateless_request(1, "tools/call", {{"name", "test_missing_capability"}}));
  EXPECT_EQ(r["error"]["code"], kRpcMissingClientCapability);
  EXPECT_TRUE(r["error"]["data"]["requiredCapabilities"].contains("sampling"));
  json ok = call(stateless_request(2, "tools/call", {{"name", "test_missing_capability"}}, stateless_meta_of({{"sampling", json::object()}})));
  EXPECT_EQ(ok["result"]["content"][0]["text"], "Success");
}

TEST_F(StatelessServerTest, ListenAcknowledgesWhatItHonoursAndTagsEveryNotification) {
  StatelessWire stream;
  MessageHandler::Listen opened = session_->listen(
      stateless_request(7, "subscriptions/listen",
              {{"notifications", {{"toolsListChanged", true}, {"resourceSubscriptions", {"test://static-text", "test://none"}}}}}),
      stream.sink());
  ASSERT_FALSE(opened.error.has_value()) << opened.error->dump();
  ASSERT_TRUE(opened.close);
  std::lock_guard lock(stream.mu);
  ASSERT_EQ(stream.sent.size(), 1u);
  const json& ack = stream.sent[0];
  EXPECT_EQ(ack["method"], "notifications/subscriptions/acknowledged");
  EXPECT_EQ(ack["params"]["_meta"][kMetaSubscriptionId], 7);
  EXPECT_EQ(ack["params"]["notifications"], json({{"resourceSubscriptions", {"test://static-text"}}}))
      << "keel's lists do not change and an unknown URI is not honoured";
  opened.close();
}

TEST_F(StatelessServerTest, OnStdioListenWritesToTheOutputAndEndsWhenCancelled) {
  StatelessWire output;
  session_->set_outbox(output.sink());
  EXPECT_FALSE(session_->handle(stateless_request(9, "subscriptions/listen", {{"notifications", {{"resourceSubscriptions", {"test://static-text"}}}}}),
                                wire_.sink())
                   .has_value())
      << "the stream is answered only when it ends";
  EXPECT_EQ(output.count("notifications/subscriptions/acknowledged"), 1u);
  session_->handle({{"jsonrpc", "2.0"}, {"method", "notifications/cancelled"}, {"params", {{"requestId", 9}}}}, wire_.sink());
  json refused = session_->handle(stateless_request(10, "subscriptions/listen", {{"notifications", 3}}), wire_.sink()).value_or(json());
  EXPECT_EQ(refused["error"]["code"], -32602);
}

TEST(McpServerOutputSchema, ToolsWithAnOutputSchemaAnswerWithStructuredContentInBothEras) {
  ToolRegistry registry;
  ASSERT_TRUE(register_data_tools(registry, DataToolOptions()).ok());
  KeelMcpServerOptions options;
  options.tools = &registry;
  KeelMcpServer server(std::move(options));
  std::unique_ptr<MessageHandler> session = server.new_session();
  StatelessWire wire;
  json tools = session->handle(stateless_request(1, "tools/list"), wire.sink()).value_or(json())["result"]["tools"];
  bool listed = false;
  for (const json& t : tools) {
    if (t["name"] == "math_aggregate") listed = t["outputSchema"]["required"] == json({"op", "value", "count", "skipped"});
    if (t["name"] == "parse_json") {
      EXPECT_FALSE(t.contains("outputSchema")) << "its result is any JSON value";
    }
  }
  EXPECT_TRUE(listed) << tools.dump();
  const json args = {{"name", "math_aggregate"}, {"arguments", {{"op", "sum"}, {"values", {1, 2, 3}}}}};
  json stateless = session->handle(stateless_request(2, "tools/call", args), wire.sink()).value_or(json())["result"];
  EXPECT_EQ(stateless["structuredContent"], (json{{"op", "sum"}, {"value", 6}, {"count", 3}, {"skipped", 0}}));
  EXPECT_EQ(json::parse(stateless["content"][0]["text"].get<std::string>()), stateless["structuredContent"])
      << "the text stays for clients that read only content";
  std::unique_ptr<MessageHandler> legacy = server.new_session();
  legacy->handle({{"jsonrpc", "2.0"}, {"id", 1}, {"method", "initialize"},
                  {"params", {{"protocolVersion", "2025-11-25"}, {"capabilities", json::object()}}}},
                 wire.sink());
  json handshake = legacy->handle({{"jsonrpc", "2.0"}, {"id", 2}, {"method", "tools/call"}, {"params", args}}, wire.sink())
                       .value_or(json())["result"];
  EXPECT_EQ(handshake["structuredContent"]["value"], 6);
  json failed = legacy->handle({{"jsonrpc", "2.0"}, {"id", 3}, {"method", "tools/call"},
                                {"params", {{"name", "math_aggregate"}, {"arguments", {{"op", "avg"}, {"values", json::array()}}}}}},
                               wire.sink())
                    .value_or(json())["result"];
  EXPECT_TRUE(failed.value("isError", false));
  EXPECT_FALSE(failed.contains("structuredContent")) << "an error is text";
}

TEST(RequestStateSeal, HmacMatchesRfc4231AndASealBindsItsRequestAndExpiry) {
  // RFC 4231, test cases 1 and 2.
  EXPECT_EQ(hmac_sha256_hex(std::string(20, '\x0b'), "Hi There"),
            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
  EXPECT_EQ(hmac_sha256_hex("Jefe", "what do ya want for nothing?"),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  // Test case 6: a key longer than the block is hashed first.
  EXPECT_EQ(hmac_sha256_hex(std::string(131, '\xaa'), "Test Using Larger Than Block-Size Key - Hash Key First"),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
  RequestStateSeal seal;
  const std::string state = seal.seal("tools/call\ndanger\n{}", 2000);
  EXPECT_TRUE(seal.verify(state, "tools/call\ndanger\n{}", 1000));
  EXPECT_FALSE(seal.verify(state, "tools/call\ndanger\n{}", 3000)) << "expired";
  EXPECT_FALSE(seal.verify(state, "tools/call\nother\n{}", 1000)) << "another request";
  EXPECT_FALSE(RequestStateSeal().verify(state, "tools/call\ndanger\n{}", 1000)) << "another server's key";
  std::string forged = state;
  forged.replace(forged.find('.', 6) - 1, 1, "9");  // a later expiry under the same MAC
  EXPECT_FALSE(seal.verify(forged, "tools/call\ndanger\n{}", 1000));
}

// The Streamable HTTP endpoint with keel's server and the fixtures behind it.
class StatelessHttpTest : public ::testing::Test {
 protected:
  void SetUp() override {
    KeelMcpServerOptions options;
    options.tools = &registry_;
    options.catalogs = {test::conformance_fixture_catalog()};
    options.server_tools = test::conformance_fixture_tools();
    options.server_tools.push_back(
        {{{"name", "wait_for_cancel"}, {"description", "Waits until the call is cancelled"},
          {"inputSchema", {{"type", "object"}, {"properties", json::object()}}}},
         [this](const json&, CallContext& context) {
           started_ = true;
           const auto deadline = std::chrono::steady_clock::now() + 10s;
           while (!context.stop().stop_requested() && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(5ms);
           cancelled_ = context.stop().stop_requested();
           return json{{"content", json::array({{{"type", "text"}, {"text", "done"}}})}};
         }});
    options.watch_interval = 10ms;
    keel_ = std::make_unique<KeelMcpServer>(std::move(options));
    http_ = std::make_unique<server::HttpServer>(server::HttpServerOptions{});
    auto endpoint = McpHttpEndpoint::mount(*http_, [this] { return keel_->new_session(); });
    ASSERT_TRUE(endpoint.ok()) << endpoint.status().to_string();
    endpoint_ = std::move(*endpoint);
    ASSERT_TRUE(http_->start().ok());
  }
  void TearDown() override {
    endpoint_.reset();
    http_.reset();
  }

  // A POST of `message`; `headers` are extra header lines. The standard stateless headers are
  // sent unless `plain`.
  std::optional<testing::RawHttpResponse> post(const json& message, const std::string& headers = "", bool plain = false) {
    std::string extra = "Accept: application/json, text/event-stream\r\nContent-Type: application/json\r\n" + headers;
    if (!plain) {
      extra += "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: " + message.value("method", "") + "\r\n";
      const json& params = message["params"];
      if (params.contains("name")) extra += "Mcp-Name: " + params["name"].get<std::string>() + "\r\n";
      if (params.contains("uri")) extra += "Mcp-Name: " + params["uri"].get<std::string>() + "\r\n";
    }
    return testing::raw_http(http_->port(), "POST", "/mcp", extra, message.dump());
  }

  ToolRegistry registry_;
  std::atomic<bool> started_{false};
  std::atomic<bool> cancelled_{false};
  std::unique_ptr<KeelMcpServer> keel_;
  std::unique_ptr<server::HttpServer> http_;
  std::unique_ptr<McpHttpEndpoint> endpoint_;
};

TEST_F(StatelessHttpTest, RequestsNeedNoSessionAndErrorsCarryTheirIds) {
  auto listed = post(stateless_request(11, "tools/list"));
  ASSERT_TRUE(listed.has_value());
  EXPECT_EQ(listed->status, 200) << listed->body;
  EXPECT_TRUE(listed->header("mcp-session-id").empty());
  EXPECT_EQ(json::parse(listed->body)["result"]["resultType"], "complete");

  auto unknown = post(stateless_request(12, "initialize"));
  ASSERT_TRUE(unknown.has_value());
  EXPECT_EQ(unknown->status, 404);
  EXPECT_EQ(json::parse(unknown->body)["error"]["code"], -32601);
  EXPECT_EQ(json::parse(unknown->body)["id"], 12);

  json bad_version = stateless_request(13, "server/discover");
  bad_version["params"]["_meta"][kMetaProtocolVersion] = "v999";
  auto mismatch = post(bad_version);  // header 2026-07-28, _meta v999
  ASSERT_TRUE(mismatch.has_value());
  EXPECT_EQ(mismatch->status, 400);
  EXPECT_EQ(json::parse(mismatch->body)["error"]["code"], kRpcHeaderMismatch);
  auto unsupported = post(bad_version, "MCP-Protocol-Version: v999\r\nMcp-Method: server/discover\r\n", true);
  ASSERT_TRUE(unsupported.has_value());
  EXPECT_EQ(unsupported->status, 400);
  EXPECT_EQ(json::parse(unsupported->body)["error"]["code"], kRpcUnsupportedVersion);
  EXPECT_EQ(json::parse(unsupported->body)["id"], 13);

  json no_meta = stateless_request(14, "tools/list");
  no_meta["params"].erase("_meta");
  auto malformed = post(no_meta);
  ASSERT_TRUE(malformed.has_value());
  EXPECT_EQ(malformed->status, 400);
  EXPECT_EQ(json::parse(malformed->body)["error"]["code"], -32602);

  auto refused = post(stateless_request(15, "tools/call", {{"name", "test_missing_capability"}}));
  ASSERT_TRUE(refused.has_value());
  EXPECT_EQ(refused->status, 400);
  EXPECT_EQ(json::parse(refused->body)["error"]["code"], kRpcMissingClientCapability);
}

TEST_F(StatelessHttpTest, MirroredHeadersMustMatchTheBody) {
  const json call = stateless_request(21, "tools/call", {{"name", "test_simple_text"}});
  auto wrong_name = post(call, "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: other\r\n", true);
  ASSERT_TRUE(wrong_name.has_value());
  EXPECT_EQ(wrong_name->status, 400);
  EXPECT_EQ(json::parse(wrong_name->body)["error"]["code"], kRpcHeaderMismatch);
  auto no_method = post(call, "MCP-Protocol-Version: 2026-07-28\r\nMcp-Name: test_simple_text\r\n", true);
  ASSERT_TRUE(no_method.has_value());
  EXPECT_EQ(no_method->status, 400);
  // "test_simple_text" in the Base64 sentinel form is the same name.
  auto encoded = post(call, "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: =?base64?dGVzdF9zaW1wbGVfdGV4dA==?=\r\n",
                      true);
  ASSERT_TRUE(encoded.has_value());
  EXPECT_EQ(encoded->status, 200) << encoded->body;
  EXPECT_EQ(json::parse(encoded->body)["result"]["content"][0]["text"], "This is a simple text response for testing.");
}

TEST_F(StatelessHttpTest, HandshakeClientsKeepTheirSessionsBesideStatelessOnes) {
  auto init = post({{"jsonrpc", "2.0"}, {"id", 1}, {"method", "initialize"},
                    {"params", {{"protocolVersion", "2025-11-25"}, {"capabilities", json::object()}}}},
                   "", true);
  ASSERT_TRUE(init.has_value());
  EXPECT_EQ(init->status, 200);
  EXPECT_EQ(json::parse(init->body)["result"]["protocolVersion"], "2025-11-25");
  const std::string session = init->header("mcp-session-id");
  ASSERT_FALSE(session.empty());
  auto listed = post({{"jsonrpc", "2.0"}, {"id", 2}, {"method", "tools/list"}, {"params", json::object()}},
                     "Mcp-Session-Id: " + session + "\r\nMCP-Protocol-Version: 2025-11-25\r\n", true);
  ASSERT_TRUE(listed.has_value());
  EXPECT_EQ(listed->status, 200);
  EXPECT_FALSE(json::parse(listed->body)["result"].contains("resultType")) << "handshake results keep their shape";
  auto sessionless = post({{"jsonrpc", "2.0"}, {"id", 3}, {"method", "tools/list"}, {"params", json::object()}},
                          "MCP-Protocol-Version: 2025-11-25\r\n", true);
  ASSERT_TRUE(sessionless.has_value());
  EXPECT_EQ(sessionless->status, 400) << "a handshake request without its session is still refused";
}

TEST_F(StatelessHttpTest, ClosingTheResponseStreamCancelsTheCall) {
  {
    testing::RawHttpClient client(http_->port());
    ASSERT_TRUE(client.ok());
    const std::string body = stateless_request(41, "tools/call", {{"name", "wait_for_cancel"}}).dump();
    ASSERT_TRUE(client.send("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json, text/event-stream\r\n"
                            "Content-Type: application/json\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\n"
                            "Mcp-Name: wait_for_cancel\r\nContent-Length: " +
                            std::to_string(body.size()) + "\r\n\r\n" + body));
    const auto deadline = std::chrono::steady_clock::now() + 5s;
    while (!started_ && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(5ms);
    ASSERT_TRUE(started_);
  }  // the client hangs up
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  while (!cancelled_ && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(5ms);
  EXPECT_TRUE(cancelled_) << "the tool never saw its call cancelled";
}

TEST_F(StatelessHttpTest, ListenStreamsTheAcknowledgmentFirst) {
  testing::RawHttpClient client(http_->port());
  ASSERT_TRUE(client.ok());
  const std::string body =
      stateless_request(31, "subscriptions/listen", {{"notifications", {{"resourceSubscriptions", {"test://watched-resource"}}}}}).dump();
  std::string raw = "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json, text/event-stream\r\n"
                    "Content-Type: application/json\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: subscriptions/listen\r\n"
                    "Content-Length: " +
                    std::to_string(body.size()) + "\r\n\r\n" + body;
  ASSERT_TRUE(client.send(raw));
  std::optional<testing::RawHttpResponse> head = client.read_head();
  ASSERT_TRUE(head.has_value());
  EXPECT_EQ(head->status, 200);
  EXPECT_EQ(head->header("content-type"), "text/event-stream");
  std::string seen;
  while (seen.find("\n\n") == std::string::npos) {
    std::optional<std::string> chunk = client.read_chunk();
    ASSERT_TRUE(chunk.has_value() && !chunk->empty()) << "the stream ended before its first event: " << seen;
    seen += *chunk;
  }
  const size_t data = seen.find("data: ");
  ASSERT_NE(data, std::string::npos) << seen;
  json ack = json::parse(seen.substr(data + 6, seen.find('\n', data) - data - 6), nullptr, false);
  EXPECT_EQ(ack["method"], "notifications/subscriptions/acknowledged") << seen;
  EXPECT_EQ(ack["params"]["_meta"][kMetaSubscriptionId], 31);
  EXPECT_EQ(ack["params"]["notifications"]["resourceSubscriptions"][0], "test://watched-resource");
}

}  // namespace
}  // namespace keel::mcp
