// keel's MCP client against scripted servers of both eras over Streamable HTTP: the 2026-07-28
// request (per-request _meta, MCP-Protocol-Version / Mcp-Method / Mcp-Name / Mcp-Param-* headers,
// no initialize, no session), multi round-trip requests (input_required answered and retried with
// the echoed requestState, bounded), tools with invalid x-mcp-header left out, and the era
// detection: a handshake server gets initialize, a modern refusal does not.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "keel/mcp.hpp"
#include "support/mcp_http_test_server.hpp"

namespace keel::testing {
namespace {

using nlohmann::json;

constexpr const char* kModern = "2026-07-28";

json modern_discover_result() {
  return {{"resultType", "complete"},
          {"supportedVersions", {kModern}},
          {"capabilities", {{"tools", json::object()}}},
          {"_meta", {{"io.modelcontextprotocol/serverInfo", {{"name", "scripted"}, {"version", "1"}}}}}};
}

json header_tool_list() {
  return {{"tools",
           {{{"name", "lookup"},
             {"inputSchema",
              {{"type", "object"},
               {"properties",
                {{"region", {{"type", "string"}, {"x-mcp-header", "Region"}}},
                 {"city", {{"type", "string"}, {"x-mcp-header", "City"}}},
                 {"limit", {{"type", "integer"}, {"x-mcp-header", "Limit"}}},
                 {"query", {{"type", "string"}}}}}}}},
            {{"name", "scored"},
             {"inputSchema",
              {{"type", "object"}, {"properties", {{"score", {{"type", "number"}, {"x-mcp-header", "Score"}}}}}}}}}}};
}

McpServerConfig stateless_http_config(const McpHttpTestServer& server, std::string version = {}) {
  McpServerConfig config;
  config.name = "scripted";
  config.transport = McpTransportKind::kHttp;
  config.url = server.url();
  config.protocol_version = std::move(version);
  config.startup_timeout_ms = 5000;
  config.call_timeout_ms = 5000;
  return config;
}

std::vector<McpRecordedRequest> posts_with_method(const McpHttpTestServer& server, const std::string& method) {
  std::vector<McpRecordedRequest> out;
  for (const McpRecordedRequest& r : server.requests()) {
    if (r.method == "POST" && r.message.value("method", "") == method) out.push_back(r);
  }
  return out;
}

TEST(McpClientStateless, EveryRequestCarriesTheRevisionsMetaAndHeadersWithoutAHandshake) {
  McpHttpTestServer server;
  server.set_responder([](const McpRecordedRequest& r) {
    const std::string method = r.message.value("method", "");
    if (method == "server/discover") return mcp_json_reply(mcp_result(r.message, modern_discover_result()));
    if (method == "tools/list") return mcp_json_reply(mcp_result(r.message, header_tool_list()));
    if (method == "tools/call") {  // no resultType: complete
      return mcp_json_reply(mcp_result(r.message, {{"content", {{{"type", "text"}, {"text", "found"}}}}}));
    }
    return mcp_status_reply(404, R"({"jsonrpc":"2.0","id":null,"error":{"code":-32601,"message":"no"}})",
                            "application/json");
  });
  std::vector<std::string> logs;
  McpClientHooks hooks;
  hooks.on_log = [&logs](std::string_view, std::string_view line) { logs.emplace_back(line); };
  auto client = McpClient::connect(stateless_http_config(server), hooks);
  ASSERT_TRUE(client.ok()) << client.status().message();
  EXPECT_EQ((*client)->protocol_version(), kModern);
  EXPECT_EQ((*client)->server_info().value("name", ""), "scripted");

  auto tools = (*client)->list_tools();
  ASSERT_TRUE(tools.ok()) << tools.status().message();
  ASSERT_EQ(tools->size(), 1u);  // "scored" mirrors a number: left out
  EXPECT_EQ((*tools)[0].name, "lookup");
  bool warned = false;
  for (const std::string& line : logs) warned = warned || line.find("scored") != std::string::npos;
  EXPECT_TRUE(warned);

  auto result =
      (*client)->call_tool("lookup", {{"region", "eu-west1"}, {"city", "Zürich"}, {"limit", 5}, {"query", "q"}});
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_EQ(result->text(), "found");

  EXPECT_TRUE(posts_with_method(server, "initialize").empty());
  for (const McpRecordedRequest& r : server.requests()) {
    ASSERT_EQ(r.method, "POST");
    EXPECT_EQ(r.header("mcp-session-id"), "");
    EXPECT_EQ(r.header("mcp-protocol-version"), kModern);
    EXPECT_EQ(r.header("mcp-method"), r.message.value("method", ""));
    const json meta = r.message["params"]["_meta"];
    EXPECT_EQ(meta.value("io.modelcontextprotocol/protocolVersion", ""), kModern) << r.body;
    EXPECT_TRUE(meta.contains("io.modelcontextprotocol/clientCapabilities")) << r.body;
    EXPECT_EQ(meta["io.modelcontextprotocol/clientInfo"].value("name", ""), "keel") << r.body;
  }
  auto calls = posts_with_method(server, "tools/call");
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].header("mcp-name"), "lookup");
  EXPECT_EQ(calls[0].header("mcp-param-region"), "eu-west1");
  EXPECT_EQ(calls[0].header("mcp-param-city"), "=?base64?WsO8cmljaA==?=");  // not plain ASCII
  EXPECT_EQ(calls[0].header("mcp-param-limit"), "5");
  EXPECT_EQ(calls[0].header("mcp-param-query"), "");  // not annotated
  EXPECT_TRUE(posts_with_method(server, "tools/list")[0].header("mcp-name").empty());
}

TEST(McpClientStateless, InputRequiredIsAnsweredAndRetriedWithTheEchoedState) {
  McpHttpTestServer server;
  server.set_responder([](const McpRecordedRequest& r) {
    const std::string method = r.message.value("method", "");
    if (method == "server/discover") return mcp_json_reply(mcp_result(r.message, modern_discover_result()));
    const json params = r.message["params"];
    const json ask = {{"method", "elicitation/create"},
                      {"params",
                       {{"message", "Allow?"},
                        {"requestedSchema", {{"type", "object"}, {"properties", {{"ok", {{"type", "boolean"}}}}}}}}}};
    if (!params.contains("inputResponses")) {
      return mcp_json_reply(mcp_result(
          r.message, {{"resultType", "input_required"}, {"inputRequests", {{"q1", ask}}}, {"requestState", "s-1"}}));
    }
    if (params.value("requestState", "") == "s-1") {  // a second question, without state this time
      return mcp_json_reply(
          mcp_result(r.message, {{"resultType", "input_required"}, {"inputRequests", {{"q2", ask}}}}));
    }
    const bool fine = !params.contains("requestState") && params["inputResponses"].contains("q2");
    return mcp_json_reply(mcp_result(
        r.message, {{"resultType", "complete"}, {"content", {{{"type", "text"}, {"text", fine ? "done" : "bad"}}}}}));
  });
  int asked = 0;
  McpClientHooks hooks;
  hooks.on_elicitation = [&asked](std::string_view, const json& params) {
    ++asked;
    EXPECT_EQ(params.value("message", ""), "Allow?");
    return json{{"action", "accept"}, {"content", {{"ok", true}}}};
  };
  auto client = McpClient::connect(stateless_http_config(server, kModern), hooks);
  ASSERT_TRUE(client.ok()) << client.status().message();
  auto result = (*client)->call_tool("guarded", json::object());
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_EQ(result->text(), "done");
  EXPECT_EQ(asked, 2);

  auto calls = posts_with_method(server, "tools/call");
  ASSERT_EQ(calls.size(), 3u);
  const json second = calls[1].message["params"];
  EXPECT_EQ(second.value("requestState", ""), "s-1");
  EXPECT_EQ(second["inputResponses"]["q1"]["action"], "accept");
  EXPECT_EQ(second["inputResponses"]["q1"]["content"]["ok"], true);
  EXPECT_NE(calls[0].message["id"], calls[1].message["id"]);
  EXPECT_FALSE(calls[2].message["params"].contains("requestState"));
}

// The conformance suite's input-required sampling fixture (test_input_required_result_sampling,
// @modelcontextprotocol/conformance 0.2.0-alpha.12): a sampling/createMessage input request,
// answered through the host's sampling hook; a refusal fails the call with its reason. Sampling is
// declared in _meta only when the host offers it.
TEST(McpClientStateless, ASamplingInputRequestIsAnsweredByTheHostsModel) {
  McpHttpTestServer server;
  server.set_responder([](const McpRecordedRequest& r) {
    const std::string method = r.message.value("method", "");
    if (method == "server/discover") return mcp_json_reply(mcp_result(r.message, modern_discover_result()));
    const json params = r.message["params"];
    if (!params.contains("inputResponses")) {
      const json ask = {
          {"method", "sampling/createMessage"},
          {"params",
           {{"messages",
             {{{"role", "user"}, {"content", {{"type", "text"}, {"text", "What is the capital of France?"}}}}}},
            {"maxTokens", 100}}}};
      return mcp_json_reply(mcp_result(
          r.message,
          {{"resultType", "input_required"}, {"inputRequests", {{"sample_request", ask}}}, {"requestState", "st"}}));
    }
    const json answer = params["inputResponses"]["sample_request"];
    return mcp_json_reply(mcp_result(
        r.message,
        {{"resultType", "complete"},
         {"content", {{{"type", "text"}, {"text", "sampled: " + answer["content"]["text"].get<std::string>()}}}}}));
  });
  std::vector<json> asked;
  McpClientHooks hooks;
  hooks.on_sampling = [&asked](std::string_view server_name, const json& params) -> Result<json> {
    EXPECT_EQ(server_name, "scripted");
    asked.push_back(params);
    return json{{"role", "assistant"},
                {"content", {{"type", "text"}, {"text", "The capital of France is Paris."}}},
                {"model", "mock"},
                {"stopReason", "endTurn"}};
  };
  auto client = McpClient::connect(stateless_http_config(server, kModern), hooks);
  ASSERT_TRUE(client.ok()) << client.status().message();
  auto result = (*client)->call_tool("test_input_required_result_sampling", json::object());
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_EQ(result->text(), "sampled: The capital of France is Paris.");
  ASSERT_EQ(asked.size(), 1u);
  EXPECT_EQ(asked[0]["maxTokens"], 100);
  auto calls = posts_with_method(server, "tools/call");
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_TRUE(calls[0].message["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"].contains("sampling"));
  EXPECT_EQ(calls[1].message["params"].value("requestState", ""), "st");

  // Refused by the host: the call fails with the reason and is not retried.
  hooks.on_sampling = [](std::string_view, const json&) -> Result<json> {
    return Status::PermissionDenied("MCP server 'scripted' may not use keel's model: denied by test");
  };
  auto refusing = McpClient::connect(stateless_http_config(server, kModern), hooks);
  ASSERT_TRUE(refusing.ok()) << refusing.status().message();
  auto refused = (*refusing)->call_tool("test_input_required_result_sampling", json::object());
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), ErrorCode::kPermissionDenied);
  EXPECT_NE(refused.status().message().find("denied by test"), std::string::npos) << refused.status().message();
  EXPECT_EQ(posts_with_method(server, "tools/call").size(), 3u);

  // Without a hook sampling is not declared, and such a request is an error naming it.
  auto plain = McpClient::connect(stateless_http_config(server, kModern));
  ASSERT_TRUE(plain.ok()) << plain.status().message();
  auto unanswered = (*plain)->call_tool("test_input_required_result_sampling", json::object());
  ASSERT_FALSE(unanswered.ok());
  EXPECT_NE(unanswered.status().message().find("sampling/createMessage"), std::string::npos)
      << unanswered.status().message();
  auto last = posts_with_method(server, "tools/call").back();
  EXPECT_FALSE(last.message["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"].contains("sampling"));
}

TEST(McpClientStateless, EndlessInputRequestsStopAfterTheBound) {
  McpHttpTestServer server;
  server.set_responder([](const McpRecordedRequest& r) {
    if (r.message.value("method", "") == "server/discover") {
      return mcp_json_reply(mcp_result(r.message, modern_discover_result()));
    }
    return mcp_json_reply(mcp_result(r.message, {{"resultType", "input_required"}, {"requestState", "again"}}));
  });
  auto client = McpClient::connect(stateless_http_config(server));
  ASSERT_TRUE(client.ok()) << client.status().message();
  auto result = (*client)->call_tool("shed", json::object());
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.status().message().find("8 rounds"), std::string::npos) << result.status().message();
  EXPECT_EQ(posts_with_method(server, "tools/call").size(), 9u);  // the request and 8 retries
}

TEST(McpClientStateless, AHandshakeServerRefusingTheProbeGetsInitialize) {
  McpHttpTestServer server;
  server.set_responder([](const McpRecordedRequest& r) {
    if (r.method == "DELETE") return mcp_status_reply(200);
    if (r.method == "GET") return mcp_status_reply(405);
    if (!r.message.contains("id")) return mcp_status_reply(202);
    const std::string method = r.message.value("method", "");
    if (method == "initialize") {
      return mcp_json_reply(mcp_result(r.message, {{"protocolVersion", "2025-11-25"},
                                                   {"capabilities", {{"tools", json::object()}}},
                                                   {"serverInfo", {{"name", "old"}}}}),
                            {{"Mcp-Session-Id", "s1"}});
    }
    if (r.header("mcp-session-id") != "s1") {  // as handshake servers answer before initialize
      return mcp_status_reply(
          400, R"({"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: Server not initialized"},"id":null})",
          "application/json");
    }
    return mcp_json_reply(mcp_result(r.message, {{"tools", json::array()}}));
  });
  auto client = McpClient::connect(stateless_http_config(server));
  ASSERT_TRUE(client.ok()) << client.status().message();
  EXPECT_EQ((*client)->protocol_version(), "2025-11-25");
  auto tools = (*client)->list_tools();
  ASSERT_TRUE(tools.ok()) << tools.status().message();
  auto requests = server.requests();
  ASSERT_GE(requests.size(), 4u);
  EXPECT_EQ(requests[0].message.value("method", ""), "server/discover");
  EXPECT_EQ(requests[1].message.value("method", ""), "initialize");
  EXPECT_EQ(requests[1].header("mcp-protocol-version"), "");
  auto lists = posts_with_method(server, "tools/list");
  ASSERT_EQ(lists.size(), 1u);
  EXPECT_EQ(lists[0].header("mcp-protocol-version"), "2025-11-25");
  EXPECT_EQ(lists[0].header("mcp-method"), "");
  EXPECT_FALSE(lists[0].message["params"].contains("_meta"));
}

TEST(McpClientStateless, AModernRefusalIsNotTakenForAHandshakeServer) {
  McpHttpTestServer server;
  server.set_responder([](const McpRecordedRequest& r) {
    json error = {{"jsonrpc", "2.0"},
                  {"id", r.message["id"]},
                  {"error",
                   {{"code", -32022},
                    {"message", "Unsupported protocol version"},
                    {"data", {{"supported", {"2099-01-01"}}, {"requested", kModern}}}}}};
    return mcp_status_reply(400, error.dump(), "application/json");
  });
  auto client = McpClient::connect(stateless_http_config(server));
  ASSERT_FALSE(client.ok());
  EXPECT_TRUE(posts_with_method(server, "initialize").empty());
  EXPECT_NE(client.status().message().find("-32022"), std::string::npos) << client.status().message();
}

TEST(McpClientStateless, AnUnsupportedVersionListingTheRevisionIsRetried) {
  McpHttpTestServer server;
  auto probes = std::make_shared<std::atomic<int>>(0);
  server.set_responder([probes](const McpRecordedRequest& r) {
    if (++*probes == 1) {
      json error = {{"jsonrpc", "2.0"},
                    {"id", r.message["id"]},
                    {"error", {{"code", -32022}, {"message", "try again"}, {"data", {{"supported", {kModern}}}}}}};
      return mcp_status_reply(400, error.dump(), "application/json");
    }
    return mcp_json_reply(mcp_result(r.message, modern_discover_result()));
  });
  auto client = McpClient::connect(stateless_http_config(server));
  ASSERT_TRUE(client.ok()) << client.status().message();
  EXPECT_EQ((*client)->protocol_version(), kModern);
  EXPECT_EQ(posts_with_method(server, "server/discover").size(), 2u);
}

TEST(McpClientStateless, APinnedHandshakeVersionNeverProbes) {
  McpHttpTestServer server;
  server.set_responder([](const McpRecordedRequest& r) {
    if (r.method == "DELETE") return mcp_status_reply(200);
    if (r.method == "GET") return mcp_status_reply(405);
    if (!r.message.contains("id")) return mcp_status_reply(202);
    return mcp_json_reply(mcp_result(r.message, {{"protocolVersion", "2025-06-18"}}));
  });
  auto client = McpClient::connect(stateless_http_config(server, "2025-06-18"));
  ASSERT_TRUE(client.ok()) << client.status().message();
  EXPECT_EQ((*client)->protocol_version(), "2025-06-18");
  auto requests = server.requests();
  ASSERT_FALSE(requests.empty());
  EXPECT_EQ(requests[0].message.value("method", ""), "initialize");
  EXPECT_EQ(requests[0].message["params"].value("protocolVersion", ""), "2025-06-18");
}

TEST(McpClientStateless, AResourceSubscriptionIsAListenRequestWhoseUpdatesReachTheHook) {
  McpHttpTestServer server;
  const std::string uri = "file:///notes.md";
  server.set_responder([uri](const McpRecordedRequest& r) {
    const std::string method = r.message.value("method", "");
    if (method == "server/discover") return mcp_json_reply(mcp_result(r.message, modern_discover_result()));
    if (method != "subscriptions/listen") return mcp_status_reply(202);
    const json tag = {{"io.modelcontextprotocol/subscriptionId", r.message["id"]}};
    const json ack = {{"jsonrpc", "2.0"},
                      {"method", "notifications/subscriptions/acknowledged"},
                      {"params", {{"notifications", {{"resourceSubscriptions", {uri}}}}, {"_meta", tag}}}};
    const json update = {
        {"jsonrpc", "2.0"}, {"method", "notifications/resources/updated"}, {"params", {{"uri", uri}, {"_meta", tag}}}};
    return mcp_sse_reply({{0, mcp_sse_event(ack)}, {50, mcp_sse_event(update)}}, McpStreamEnd::kHold);
  });
  std::mutex mutex;
  std::condition_variable updated;
  std::vector<std::string> updates;
  McpClientHooks hooks;
  hooks.on_resource_updated = [&](std::string_view, const std::string& changed) {
    std::lock_guard lock(mutex);
    updates.push_back(changed);
    updated.notify_all();
  };
  auto client = McpClient::connect(stateless_http_config(server), hooks);
  ASSERT_TRUE(client.ok()) << client.status().message();
  auto subscribed = (*client)->request("resources/subscribe", {{"uri", uri}});
  ASSERT_TRUE(subscribed.ok()) << subscribed.status().message();
  {
    std::unique_lock lock(mutex);
    ASSERT_TRUE(updated.wait_for(lock, std::chrono::seconds(5), [&] { return !updates.empty(); }));
    EXPECT_EQ(updates[0], uri);
  }
  auto listens = posts_with_method(server, "subscriptions/listen");
  ASSERT_EQ(listens.size(), 1u);
  EXPECT_EQ(listens[0].message["params"]["notifications"]["resourceSubscriptions"], json::array({uri}));
  EXPECT_EQ(listens[0].message["params"]["_meta"].value("io.modelcontextprotocol/protocolVersion", ""), kModern);
  const auto closing = std::chrono::steady_clock::now();
  (*client)->close();  // ends the held stream
  EXPECT_LT(std::chrono::steady_clock::now() - closing, std::chrono::seconds(3));
}

}  // namespace
}  // namespace keel::testing
