// The MCP HTTP endpoint's pure parts: Host/Origin policy, bearer token, Accept, protocol versions,
// the session table (with explicit times) and session ids.
#include "mcp_server/mcp_http_guard.hpp"

#include <gtest/gtest.h>

#include <set>

#include "mcp_server/mcp_http_sessions.hpp"

namespace keel::mcp::detail {
namespace {

TEST(McpHttpGuard, HostWithoutPort) {
  EXPECT_EQ(host_without_port("LocalHost:8080"), "localhost");
  EXPECT_EQ(host_without_port("[::1]:80"), "[::1]");
  EXPECT_EQ(host_without_port("[::1]"), "[::1]");
  EXPECT_EQ(host_without_port("127.0.0.1"), "127.0.0.1");
  EXPECT_EQ(host_without_port(""), "");
}

TEST(McpHttpGuard, LoopbackPolicyAcceptsOnlyLocalNames) {
  const HostPolicy p = make_host_policy("127.0.0.1", {}, {});
  EXPECT_EQ(check_host_and_origin(p, "localhost:1", false, ""), "");
  EXPECT_EQ(check_host_and_origin(p, "127.0.0.1", true, "http://localhost:3000"), "");
  EXPECT_EQ(check_host_and_origin(p, "[::1]:9", true, "https://[::1]:3000/"), "");
  EXPECT_NE(check_host_and_origin(p, "evil.example.com", false, ""), "");
  EXPECT_NE(check_host_and_origin(p, "", false, ""), "");
  EXPECT_NE(check_host_and_origin(p, "localhost", true, "http://evil.example.com"), "");
  EXPECT_NE(check_host_and_origin(p, "localhost", true, "http://localhost.evil.example.com"), "");
  EXPECT_NE(check_host_and_origin(p, "localhost", true, "file://localhost"), "");
  EXPECT_NE(check_host_and_origin(p, "localhost", true, "null"), "");
  EXPECT_EQ(make_host_policy("::1", {}, {}).hosts.size(), 3u);
  EXPECT_EQ(make_host_policy("localhost", {}, {}).hosts.size(), 3u);
}

TEST(McpHttpGuard, OpenBindAllowsAnyHostButOnlySameOriginOrListed) {
  const HostPolicy p = make_host_policy("0.0.0.0", {}, {"https://app.example.com/"});
  EXPECT_TRUE(p.hosts.empty());
  EXPECT_EQ(check_host_and_origin(p, "box.lan:8080", false, ""), "");
  EXPECT_EQ(check_host_and_origin(p, "box.lan:8080", true, "http://box.lan:8080"), "");
  EXPECT_EQ(check_host_and_origin(p, "box.lan:8080", true, "https://APP.example.com"), "");
  EXPECT_NE(check_host_and_origin(p, "box.lan:8080", true, "http://evil.example.com"), "");
}

TEST(McpHttpGuard, ConfiguredHostsNormalizeIpv6) {
  const HostPolicy p = make_host_policy("127.0.0.1", {"::1", "MCP.example.com"}, {});
  EXPECT_EQ(p.hosts, (std::vector<std::string>{"[::1]", "mcp.example.com"}));
  EXPECT_NE(check_host_and_origin(p, "localhost", false, ""), "");
}

TEST(McpHttpGuard, BearerToken) {
  EXPECT_TRUE(bearer_token_matches("Bearer abc123", "abc123"));
  EXPECT_TRUE(bearer_token_matches("bearer  abc123 ", "abc123"));
  EXPECT_FALSE(bearer_token_matches("Bearer abc12", "abc123"));
  EXPECT_FALSE(bearer_token_matches("Bearer abc1234", "abc123"));
  EXPECT_FALSE(bearer_token_matches("Bearer abc124", "abc123"));
  EXPECT_FALSE(bearer_token_matches("Basic abc123", "abc123"));
  EXPECT_FALSE(bearer_token_matches("", "abc123"));
  EXPECT_FALSE(bearer_token_matches("Bearer ", ""));
}

TEST(McpHttpGuard, AcceptsMediaType) {
  EXPECT_TRUE(accepts_media_type("application/json, text/event-stream", "text/event-stream"));
  EXPECT_TRUE(accepts_media_type("text/event-stream;q=0.9,application/json", "application/json"));
  EXPECT_TRUE(accepts_media_type("*/*", "application/json"));
  EXPECT_TRUE(accepts_media_type("Application/*", "application/json"));
  EXPECT_FALSE(accepts_media_type("application/json", "text/event-stream"));
  EXPECT_FALSE(accepts_media_type("", "application/json"));
  EXPECT_FALSE(accepts_media_type("application/jsonx", "application/json"));
}

TEST(McpHttpGuard, ProtocolVersions) {
  EXPECT_TRUE(is_supported_protocol_version("2025-03-26"));
  EXPECT_TRUE(is_supported_protocol_version("2025-06-18"));
  EXPECT_TRUE(is_supported_protocol_version("2025-11-25"));
  EXPECT_FALSE(is_supported_protocol_version("2024-11-05"));
  EXPECT_FALSE(is_supported_protocol_version(""));
}

std::shared_ptr<McpSession> session(const std::string& id) {
  auto s = std::make_shared<McpSession>();
  s->id = id;
  return s;
}

TEST(McpSessionTable, ExpiresIdleSessionsButNotBusyOnes) {
  using std::chrono::milliseconds;
  const SteadyTime t0{};
  McpSessionTable table(10, milliseconds(1000));
  ASSERT_TRUE(table.add(session("a"), t0));
  ASSERT_TRUE(table.add(session("b"), t0));
  auto busy = table.acquire("b", t0 + milliseconds(100));  // in use from here on
  ASSERT_NE(busy, nullptr);
  auto a = table.acquire("a", t0 + milliseconds(999));
  ASSERT_NE(a, nullptr);
  table.release(*a, t0 + milliseconds(999));
  a = table.acquire("a", t0 + milliseconds(1998));  // idle 999 ms: still there
  ASSERT_NE(a, nullptr);
  table.release(*a, t0 + milliseconds(1998));
  EXPECT_EQ(table.acquire("a", t0 + milliseconds(2998)), nullptr);  // idle 1000 ms: expired
  EXPECT_EQ(table.size(), 1u);                                      // "b" is busy, however long
  table.release(*busy, t0 + milliseconds(3000));
  EXPECT_NE(table.acquire("b", t0 + milliseconds(3999)), nullptr);
}

TEST(McpSessionTable, FullTableDropsTheLeastRecentlyUsedIdleSession) {
  using std::chrono::milliseconds;
  const SteadyTime t0{};
  McpSessionTable table(2, std::chrono::hours(1));
  ASSERT_TRUE(table.add(session("old"), t0));
  ASSERT_TRUE(table.add(session("new"), t0 + milliseconds(10)));
  table.release(*table.acquire("old", t0 + milliseconds(20)), t0 + milliseconds(20));  // "old" used last
  ASSERT_TRUE(table.add(session("third"), t0 + milliseconds(30)));
  EXPECT_EQ(table.acquire("new", t0 + milliseconds(40)), nullptr);
  auto a = table.acquire("old", t0 + milliseconds(40));
  auto b = table.acquire("third", t0 + milliseconds(40));
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_FALSE(table.add(session("fourth"), t0 + milliseconds(50)));  // both busy
  EXPECT_TRUE(table.remove("old"));
  EXPECT_FALSE(table.remove("old"));
  EXPECT_EQ(table.size(), 1u);
}

TEST(McpSessionIds, AreRandom128BitHex) {
  std::set<std::string> seen;
  for (int i = 0; i < 100; ++i) {
    Result<std::string> id = new_session_id();
    ASSERT_TRUE(id.ok());
    ASSERT_EQ(id->size(), 32u);
    EXPECT_EQ(id->find_first_not_of("0123456789abcdef"), std::string::npos);
    seen.insert(*id);
  }
  EXPECT_EQ(seen.size(), 100u);
}

}  // namespace
}  // namespace keel::mcp::detail
