// OAuth metadata pieces of keel's MCP client: WWW-Authenticate challenges (the examples of
// RFC 6750 §3 and RFC 9728 §5.1, and the MCP authorization spec's), the well-known URLs tried in
// order (RFC 9728 §3.1, RFC 8414 §3.1, OpenID Connect Discovery §4), metadata parsing, and
// which resources a token may be sent to.
#include "mcp/oauth_metadata.hpp"

#include <gtest/gtest.h>

namespace keel::mcp {
namespace {

using nlohmann::json;

TEST(BearerChallenge, ReadsTheRfcExamples) {
  // RFC 6750 §3
  BearerChallenge a = parse_bearer_challenge(
      R"(Bearer realm="example", error="invalid_token", error_description="The access token expired")");
  EXPECT_TRUE(a.bearer);
  EXPECT_EQ(a.error, "invalid_token");
  EXPECT_EQ(a.error_description, "The access token expired");
  // RFC 9728 §5.1
  BearerChallenge b =
      parse_bearer_challenge(R"(Bearer resource_metadata="https://resource.example.com/.well-known/oauth-protected-resource")");
  EXPECT_EQ(b.resource_metadata, "https://resource.example.com/.well-known/oauth-protected-resource");
  // MCP authorization, scope challenge (2025-11-25)
  BearerChallenge c = parse_bearer_challenge(
      R"(Bearer error="insufficient_scope", scope="files:read files:write user:profile:write", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource", error_description="Additional file write permission required")");
  EXPECT_EQ(c.error, "insufficient_scope");
  EXPECT_EQ(c.scope, "files:read files:write user:profile:write");
}

TEST(BearerChallenge, OtherSchemesTokensAndEscapes) {
  BearerChallenge basic = parse_bearer_challenge(R"(Basic realm="x")");
  EXPECT_FALSE(basic.bearer);
  BearerChallenge both = parse_bearer_challenge(R"(Basic realm="x", Bearer scope=read, error="a\"b")");
  EXPECT_TRUE(both.bearer);
  EXPECT_EQ(both.scope, "read");
  EXPECT_EQ(both.error, "a\"b");
  BearerChallenge bare = parse_bearer_challenge("bearer");
  EXPECT_TRUE(bare.bearer);
  EXPECT_TRUE(bare.resource_metadata.empty());
  BearerChallenge garbage = parse_bearer_challenge("\x01\x02===,,\"");
  EXPECT_FALSE(garbage.bearer);
}

TEST(OAuthDiscovery, WellKnownUrlsInTheSpecsOrder) {
  EXPECT_EQ(protected_resource_metadata_urls("https://example.com/public/mcp"),
            (std::vector<std::string>{"https://example.com/.well-known/oauth-protected-resource/public/mcp",
                                      "https://example.com/.well-known/oauth-protected-resource"}));
  EXPECT_EQ(protected_resource_metadata_urls("http://127.0.0.1:3000"),
            (std::vector<std::string>{"http://127.0.0.1:3000/.well-known/oauth-protected-resource"}));
  EXPECT_EQ(auth_server_metadata_urls("https://auth.example.com/tenant1"),
            (std::vector<std::string>{"https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
                                      "https://auth.example.com/.well-known/openid-configuration/tenant1",
                                      "https://auth.example.com/tenant1/.well-known/openid-configuration"}));
  EXPECT_EQ(auth_server_metadata_urls("https://auth.example.com"),
            (std::vector<std::string>{"https://auth.example.com/.well-known/oauth-authorization-server",
                                      "https://auth.example.com/.well-known/openid-configuration"}));
  EXPECT_TRUE(protected_resource_metadata_urls("ftp://example.com/x").empty());
}

TEST(OAuthDiscovery, MetadataMustHaveWhatAFlowNeeds) {
  EXPECT_FALSE(parse_protected_resource_metadata(json{{"resource", "https://a/mcp"}}).ok());
  EXPECT_FALSE(parse_protected_resource_metadata(json::array()).ok());
  auto prm = parse_protected_resource_metadata({{"resource", "https://a/mcp"}, {"authorization_servers", {"https://as"}}});
  ASSERT_TRUE(prm.ok());
  EXPECT_EQ(prm->authorization_servers.front(), "https://as");
  auto missing = parse_auth_server_metadata({{"issuer", "https://as"}, {"authorization_endpoint", "https://as/a"}});
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("token_endpoint"), std::string::npos);
  auto as = parse_auth_server_metadata(
      {{"issuer", "https://as"}, {"authorization_endpoint", "https://as/a"}, {"token_endpoint", "https://as/t"}});
  ASSERT_TRUE(as.ok());
  EXPECT_EQ(as->token_endpoint_auth_methods, std::vector<std::string>{"client_secret_basic"});  // RFC 8414's default
  EXPECT_FALSE(as->client_id_metadata_document_supported);
}

TEST(OAuthDiscovery, ATokenGoesOnlyWhereItsResourceCovers) {
  EXPECT_TRUE(resource_covers("https://mcp.example.com/mcp", "https://mcp.example.com/mcp"));
  EXPECT_TRUE(resource_covers("https://mcp.example.com", "https://MCP.example.com/mcp"));
  EXPECT_TRUE(resource_covers("https://mcp.example.com/api/", "https://mcp.example.com/api/mcp"));
  EXPECT_FALSE(resource_covers("https://mcp.example.com/api", "https://mcp.example.com/apix/mcp"));
  EXPECT_FALSE(resource_covers("https://evil.example.com/mcp", "https://mcp.example.com/mcp"));
  EXPECT_FALSE(resource_covers("http://mcp.example.com/mcp", "https://mcp.example.com/mcp"));
  EXPECT_FALSE(resource_covers("https://mcp.example.com:8443/mcp", "https://mcp.example.com/mcp"));
}

}  // namespace
}  // namespace keel::mcp
