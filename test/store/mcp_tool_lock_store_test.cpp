// The MCP tool lock's records: accepted definitions per workspace and server, replaced in place.
#include "store_test_util.hpp"

namespace keel::testing {
namespace {

using McpToolLockStoreTest = StoreTest;

TEST_P(McpToolLockStoreTest, LocksRoundTripPerWorkspaceAndServerAndAreReplacedInPlace) {
  KEEL_ASSERT_OK(store_->put_mcp_tool_lock({"/ws", "fs", "read", "d1", R"({"name":"read"})", 0}));
  KEEL_ASSERT_OK(store_->put_mcp_tool_lock({"/ws", "fs", "list", "d2", R"({"name":"list"})", 50}));
  KEEL_ASSERT_OK(store_->put_mcp_tool_lock({"/other", "fs", "read", "d9", R"({})", 0}));
  KEEL_ASSERT_OK(store_->put_mcp_tool_lock({"/ws", "git", "read", "d8", R"({})", 0}));

  auto locks = store_->list_mcp_tool_locks("/ws", "fs");
  ASSERT_TRUE(locks.ok()) << locks.status().to_string();
  ASSERT_EQ(locks->size(), 2u);
  EXPECT_EQ((*locks)[0].tool, "list");  // by tool
  EXPECT_EQ((*locks)[0].accepted_ms, 50);
  EXPECT_EQ((*locks)[1].tool, "read");
  EXPECT_EQ((*locks)[1].digest, "d1");
  EXPECT_EQ((*locks)[1].definition, R"({"name":"read"})");
  EXPECT_EQ((*locks)[1].accepted_ms, clock_);
  EXPECT_EQ((*locks)[1].workspace, "/ws");
  EXPECT_EQ((*locks)[1].server, "fs");

  KEEL_ASSERT_OK(store_->put_mcp_tool_lock({"/ws", "fs", "read", "d3", R"({"name":"read","v":2})", 0}));
  locks = store_->list_mcp_tool_locks("/ws", "fs");
  ASSERT_TRUE(locks.ok());
  ASSERT_EQ(locks->size(), 2u);
  EXPECT_EQ((*locks)[1].digest, "d3");
  EXPECT_EQ((*locks)[1].definition, R"({"name":"read","v":2})");

  reopen();  // kept on disk
  locks = store_->list_mcp_tool_locks("/ws", "fs");
  ASSERT_TRUE(locks.ok());
  EXPECT_EQ(locks->size(), 2u);
  EXPECT_TRUE(store_->list_mcp_tool_locks("/ws", "nope")->empty());
}

TEST_P(McpToolLockStoreTest, ALockNeedsServerToolAndDigest) {
  EXPECT_EQ(store_->put_mcp_tool_lock({"/ws", "", "read", "d", "{}", 0}).code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(store_->put_mcp_tool_lock({"/ws", "fs", "", "d", "{}", 0}).code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(store_->put_mcp_tool_lock({"/ws", "fs", "read", "", "{}", 0}).code(), ErrorCode::kInvalidArgument);
  EXPECT_TRUE(store_->list_mcp_tool_locks("/ws", "fs")->empty());
}

KEEL_STORE_ENGINES(McpToolLockStoreTest);

}  // namespace
}  // namespace keel::testing
