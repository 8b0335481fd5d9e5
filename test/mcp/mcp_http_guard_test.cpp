// The MCP HTTP endpoint's pure parts: Accept, protocol versions,
// the session table (with explicit times) and session ids.
#include "mcp_server/mcp_http_guard.hpp"

#include <gtest/gtest.h>

#include <set>

#include "mcp_server/mcp_http_sessions.hpp"

namespace keel::mcp::detail {
namespace {

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

TEST(McpHttpGuard, WhichSessionlessPostsAreStateless) {
  const nlohmann::json versioned = {{"method", "tools/list"},
                                    {"params", {{"_meta", {{"io.modelcontextprotocol/protocolVersion", "2026-07-28"}}}}}};
  const nlohmann::json plain = {{"method", "initialize"}, {"params", {{"protocolVersion", "2025-11-25"}}}};
  EXPECT_TRUE(is_stateless_request(versioned, false, ""));
  EXPECT_TRUE(is_stateless_request(versioned, true, "2025-11-25")) << "_meta wins over a handshake header";
  EXPECT_TRUE(is_stateless_request(plain, true, "2026-07-28"));
  EXPECT_TRUE(is_stateless_request(plain, true, "v999")) << "an unknown version is refused the stateless way";
  EXPECT_FALSE(is_stateless_request(plain, false, ""));
  EXPECT_FALSE(is_stateless_request(plain, true, "2025-06-18"));
}

TEST(McpHttpGuard, MirroredHeadersMatchTheBody) {
  const nlohmann::json params = {{"name", "get_weather"}};
  EXPECT_EQ(mirrored_header_mismatch("tools/call", params, {"tools/call", "get_weather"}), "");
  EXPECT_EQ(mirrored_header_mismatch("tools/call", params, {"tools/call", "=?base64?Z2V0X3dlYXRoZXI=?="}), "");
  EXPECT_NE(mirrored_header_mismatch("tools/call", params, {"tools/list", "get_weather"}), "");
  EXPECT_NE(mirrored_header_mismatch("tools/call", params, {std::nullopt, "get_weather"}), "");
  EXPECT_NE(mirrored_header_mismatch("tools/call", params, {"tools/call", std::nullopt}), "");
  EXPECT_NE(mirrored_header_mismatch("tools/call", params, {"tools/call", "=?base64?not base64?="}), "");
  EXPECT_NE(mirrored_header_mismatch("tools/call", params, {"tools/call", "get_weather\x01"}), "");
  EXPECT_EQ(mirrored_header_mismatch("resources/read", {{"uri", "file:///a"}}, {"resources/read", "file:///a"}), "");
  EXPECT_EQ(mirrored_header_mismatch("tools/list", nlohmann::json::object(), {"tools/list", std::nullopt}), "");
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
