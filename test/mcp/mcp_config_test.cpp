// .mcp.json parsing, tool naming, risk from annotations, content for the model, elicitation defaults.
#include <gtest/gtest.h>

#include "keel/mcp.hpp"
#include "mcp/elicitation_defaults.hpp"
#include "mcp/mcp_tool.hpp"

namespace keel {
namespace {

using nlohmann::json;

const std::map<std::string, std::string> kEnv = {{"HOME", "/home/u"}, {"TOKEN", "s3cret"}};

TEST(McpConfig, ParsesStdioAndHttpServers) {
  auto servers = parse_mcp_json(R"({"mcpServers": {
      "fs": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "${HOME}/src"],
             "env": {"DEBUG": "1"}, "deny": ["write_file"]},
      "api": {"type": "http", "url": "http://127.0.0.1:3001/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"},
              "callTimeoutMs": 5000},
      "old": {"type": "sse", "url": "https://example.test/sse", "disabled": true}}})",
                                "/ws/.mcp.json", kEnv);
  ASSERT_TRUE(servers.ok()) << servers.status().message();
  ASSERT_EQ(servers->size(), 3u);
  const McpServerConfig& api = (*servers)[0];  // sorted by name
  EXPECT_EQ(api.name, "api");
  EXPECT_EQ(api.transport, McpTransportKind::kHttp);
  EXPECT_EQ(api.headers.at("Authorization"), "Bearer s3cret");
  EXPECT_EQ(api.call_timeout_ms, 5000);
  const McpServerConfig& fs = (*servers)[1];
  EXPECT_EQ(fs.transport, McpTransportKind::kStdio);
  EXPECT_EQ(fs.command, "npx");
  EXPECT_EQ(fs.args.back(), "/home/u/src");
  EXPECT_EQ(fs.env.at("DEBUG"), "1");
  EXPECT_EQ(fs.deny_tools, std::vector<std::string>{"write_file"});
  EXPECT_EQ(fs.source, "/ws/.mcp.json");
  EXPECT_EQ((*servers)[2].transport, McpTransportKind::kSse);
  EXPECT_FALSE((*servers)[2].enabled);
}

TEST(McpConfig, TheProtocolRevisionCanBeChosenPerServer) {
  auto servers = parse_mcp_json(R"({"mcpServers": {"a": {"command": "x", "protocol_version": "auto"},
      "b": {"url": "http://127.0.0.1:1/mcp", "protocolVersion": "2026-07-28"}}})", "/ws/.mcp.json", kEnv);
  ASSERT_TRUE(servers.ok()) << servers.status().message();
  EXPECT_EQ((*servers)[0].protocol_version, "auto");
  EXPECT_EQ((*servers)[1].protocol_version, "2026-07-28");
  auto bad = parse_mcp_json(R"({"mcpServers": {"a": {"command": "x", "protocol_version": "2099-01-01"}}})", "/ws/.mcp.json", kEnv);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("protocol_version"), std::string::npos) << bad.status().message();
}

TEST(McpConfig, MissingFileContentAndBadEntriesAreClearErrors) {
  EXPECT_TRUE(parse_mcp_json(R"({})", "f", kEnv).ok());
  auto bad_json = parse_mcp_json("{", "/ws/.mcp.json", kEnv);
  ASSERT_FALSE(bad_json.ok());
  EXPECT_NE(bad_json.status().message().find("/ws/.mcp.json: not valid JSON"), std::string::npos);
  auto no_command = parse_mcp_json(R"({"mcpServers": {"x": {"args": []}}})", "f", kEnv);
  ASSERT_FALSE(no_command.ok());
  EXPECT_NE(no_command.status().message().find("needs \"command\""), std::string::npos);
  auto bad_name = parse_mcp_json(R"({"mcpServers": {"a b": {"command": "x"}}})", "f", kEnv);
  EXPECT_FALSE(bad_name.ok());
  auto unset = parse_mcp_json(R"({"mcpServers": {"x": {"command": "${NOPE}"}}})", "f", kEnv);
  ASSERT_FALSE(unset.ok());
  EXPECT_NE(unset.status().message().find("NOPE is not set"), std::string::npos);
  auto fallback = parse_mcp_json(R"({"mcpServers": {"x": {"command": "${NOPE:-node}"}}})", "f", kEnv);
  ASSERT_TRUE(fallback.ok());
  EXPECT_EQ((*fallback)[0].command, "node");
  auto bad_url = parse_mcp_json(R"({"mcpServers": {"x": {"type": "http", "url": "ftp://h"}}})", "f", kEnv);
  EXPECT_FALSE(bad_url.ok());
  auto bad_timeout = parse_mcp_json(R"({"mcpServers": {"x": {"command": "c", "startup_timeout_ms": 0}}})", "f", kEnv);
  EXPECT_FALSE(bad_timeout.ok());
}

TEST(McpConfig, ForeignKeysAreIgnoredInMcpJsonButNotInKeelYaml) {
  json servers = {{"x", {{"command", "c"}, {"autoApprove", json::array()}}}};
  EXPECT_TRUE(parse_mcp_json(json({{"mcpServers", servers}}).dump(), "f", kEnv).ok());
  auto strict = parse_mcp_servers(servers, "/ws/keel.yaml", kEnv);
  ASSERT_FALSE(strict.ok());
  EXPECT_NE(strict.status().message().find("unknown key 'autoApprove'"), std::string::npos);
}

TEST(McpConfig, ToolNames) {
  EXPECT_EQ(mcp_tool_name("fs", "read_file"), "fs__read_file");
  EXPECT_EQ(mcp_tool_name("fs", "read file/ü"), "fs__read_file___");
  EXPECT_EQ(mcp_tool_name("fs", ""), "");
  EXPECT_EQ(mcp_tool_name("s", std::string(100, 'a')).size(), 64u);
}

TEST(McpConfig, RiskFollowsTheSpecificationsDefaults) {
  EXPECT_EQ(mcp::risk_from_annotations(json::object()), Risk::kHigh);
  EXPECT_EQ(mcp::risk_from_annotations({{"readOnlyHint", true}}), Risk::kLow);
  EXPECT_EQ(mcp::risk_from_annotations({{"destructiveHint", false}}), Risk::kMedium);
  EXPECT_EQ(mcp::risk_from_annotations({{"readOnlyHint", false}, {"destructiveHint", true}}), Risk::kHigh);
}

TEST(McpContent, TextForTheModel) {
  McpToolResult r;
  r.content = json::array({{{"type", "text"}, {"text", "first"}},
                           {{"type", "image"}, {"mimeType", "image/png"}, {"data", "AAAA"}},
                           {{"type", "resource"}, {"resource", {{"uri", "file:///a.txt"}, {"text", "hello"}}}},
                           {{"type", "resource_link"}, {"uri", "file:///b"}, {"name", "b"}}});
  EXPECT_EQ(r.text(), "first\n[image image/png, 3 bytes]\n[resource file:///a.txt]\nhello\n[resource link file:///b (b)]");
  McpToolResult structured;
  structured.structured = {{"sum", 3}};
  EXPECT_EQ(structured.text(), R"({"sum":3})");
}

TEST(McpElicitation, AcceptsWithDefaultsOnlyWhenEveryRequiredFieldHasOne) {
  json params = {{"message", "m"},
                 {"requestedSchema",
                  {{"type", "object"},
                   {"properties", {{"name", {{"type", "string"}, {"default", "John"}}}, {"age", {{"type", "integer"}}}}},
                   {"required", json::array()}}}};
  json accepted = mcp::answer_with_defaults(params);
  EXPECT_EQ(accepted["action"], "accept");
  EXPECT_EQ(accepted["content"], json({{"name", "John"}}));
  params["requestedSchema"]["required"] = json::array({"age"});
  EXPECT_EQ(mcp::answer_with_defaults(params)["action"], "decline");
}

}  // namespace
}  // namespace keel

namespace keel {
namespace {

TEST(McpConfigOAuth, ReadsBothSpellingsAndExpandsSecrets) {
  const std::map<std::string, std::string> env = {{"CLIENT_SECRET", "s3cret"}};
  auto servers = parse_mcp_json(R"({"mcpServers": {"a": {"url": "https://mcp.example.com/mcp", "oauth": {
      "clientId": "keel-app", "clientSecret": "${CLIENT_SECRET}", "scopes": ["files:read", "offline_access"],
      "redirect_uri": "http://127.0.0.1:40000/cb"}}}})",
                                "f", env);
  ASSERT_TRUE(servers.ok()) << servers.status().message();
  const McpOAuthConfig& o = (*servers)[0].oauth;
  EXPECT_EQ(o.client_id, "keel-app");
  EXPECT_EQ(o.client_secret, "s3cret");
  EXPECT_EQ(o.scopes, (std::vector<std::string>{"files:read", "offline_access"}));
  EXPECT_EQ(o.redirect_uri, "http://127.0.0.1:40000/cb");
  EXPECT_EQ(o.grant, "authorization_code");
}

TEST(McpConfigOAuth, BadSettingsNameTheField) {
  auto expect_error = [](const char* oauth, const char* says) {
    std::string text = std::string(R"({"mcpServers": {"a": {"url": "https://h/mcp", "oauth": )") + oauth + "}}}";
    auto r = parse_mcp_json(text, "f", {});
    ASSERT_FALSE(r.ok()) << oauth;
    EXPECT_NE(r.status().message().find(says), std::string::npos) << r.status().message();
  };
  expect_error(R"({"clientSecret": "x"})", "clientSecret needs clientId");
  expect_error(R"({"grant": "password"})", "not authorization_code or client_credentials");
  expect_error(R"({"grant": "client_credentials", "clientId": "c"})", "needs clientId and a clientSecret or privateKey");
  expect_error(R"({"signingAlgorithm": "HS256"})", "ES256 or RS256");
  expect_error(R"({"redirectUri": "myapp://cb"})", "not an http(s) URL");
  expect_error(R"({"tokenUrl": "x"})", "unknown key 'tokenUrl'");
  expect_error(R"("yes")", "must be a mapping");
}

}  // namespace
}  // namespace keel
