#include "store_test_util.hpp"

namespace keel::testing {
namespace {

class CacheStoreTest : public StoreTest {
 protected:
  CacheStoreTest() {
    StoreOptions o = options();
    o.cache_scopes = default_cache_scopes();
    o.cache_scopes.push_back({"three", 1000, 3, 0});
    o.cache_scopes.push_back({"ten_bytes", 0, 0, 10});
    reopen(o);
  }

  std::optional<std::string> get(const std::string& scope, const std::string& key) {
    auto r = store_->cache_get(scope, key);
    EXPECT_TRUE(r.ok()) << r.status().to_string();
    return r.ok() ? *r : std::nullopt;
  }
};

TEST_P(CacheStoreTest, DefaultScopesFollowTheSeed) {
  auto scopes = default_cache_scopes();
  ASSERT_EQ(scopes.size(), 4u);
  EXPECT_EQ(scopes[0].name, "tool_result");
  EXPECT_EQ(scopes[0].ttl_ms, 300000);
  EXPECT_EQ(scopes[0].max_entries, 100);
  EXPECT_EQ(scopes[1].name, "context_summary");
  EXPECT_EQ(scopes[1].ttl_ms, 600000);
  EXPECT_EQ(scopes[1].max_bytes, 50000);
  EXPECT_EQ(scopes[2].name, "web_search");
  EXPECT_EQ(scopes[2].ttl_ms, 120000);
  EXPECT_EQ(scopes[2].max_entries, 50);
  EXPECT_EQ(scopes[3].name, "page_fetch");
  EXPECT_EQ(scopes[3].ttl_ms, 60000);
  EXPECT_EQ(scopes[3].max_entries, 30);
}

TEST_P(CacheStoreTest, EntriesExpireAfterTheirTtlAndAreDeleted) {
  KEEL_ASSERT_OK(store_->cache_put("tool_result", "fs_read:{\"path\":\"a\"}", "contents"));
  EXPECT_EQ(get("tool_result", "fs_read:{\"path\":\"a\"}"), "contents");
  EXPECT_EQ(get("tool_result", "other"), std::nullopt);
  EXPECT_EQ(get("web_search", "fs_read:{\"path\":\"a\"}"), std::nullopt);  // scopes are separate

  clock_ += 299'999;
  EXPECT_EQ(get("tool_result", "fs_read:{\"path\":\"a\"}"), "contents");
  clock_ += 1;
  EXPECT_EQ(get("tool_result", "fs_read:{\"path\":\"a\"}"), std::nullopt);
  clock_ -= 100'000;  // the expired entry was deleted, not just hidden
  EXPECT_EQ(get("tool_result", "fs_read:{\"path\":\"a\"}"), std::nullopt);
}

TEST_P(CacheStoreTest, EntryCapEvictsTheOldest) {
  for (int i = 1; i <= 5; ++i) {
    KEEL_ASSERT_OK(store_->cache_put("three", "k" + std::to_string(i), "v" + std::to_string(i)));
    clock_ += 1;
  }
  EXPECT_EQ(get("three", "k1"), std::nullopt);
  EXPECT_EQ(get("three", "k2"), std::nullopt);
  EXPECT_EQ(get("three", "k3"), "v3");
  EXPECT_EQ(get("three", "k5"), "v5");
  // Rewriting k3 makes it the newest, so k4 goes next.
  KEEL_ASSERT_OK(store_->cache_put("three", "k3", "v3b"));
  clock_ += 1;
  KEEL_ASSERT_OK(store_->cache_put("three", "k6", "v6"));
  EXPECT_EQ(get("three", "k4"), std::nullopt);
  EXPECT_EQ(get("three", "k3"), "v3b");
  EXPECT_EQ(get("three", "k6"), "v6");
  // Equal timestamps still evict in insertion order.
  for (int i = 7; i <= 9; ++i) KEEL_ASSERT_OK(store_->cache_put("three", "k" + std::to_string(i), "v"));
  EXPECT_EQ(get("three", "k6"), std::nullopt);
  EXPECT_EQ(get("three", "k9"), "v");
}

TEST_P(CacheStoreTest, ByteCapEvictsTheOldest) {
  KEEL_ASSERT_OK(store_->cache_put("ten_bytes", "a", "aaaa"));
  clock_ += 1;
  KEEL_ASSERT_OK(store_->cache_put("ten_bytes", "b", "bbbb"));
  clock_ += 1;
  KEEL_ASSERT_OK(store_->cache_put("ten_bytes", "c", std::string("c\0c", 3)));
  EXPECT_EQ(get("ten_bytes", "a"), std::nullopt);
  EXPECT_EQ(get("ten_bytes", "b"), "bbbb");
  EXPECT_EQ(get("ten_bytes", "c"), std::string("c\0c", 3));  // binary values survive
  clock_ += 1'000'000'000;                                   // this scope never expires
  EXPECT_EQ(get("ten_bytes", "b"), "bbbb");

  Status too_big = store_->cache_put("ten_bytes", "d", "12345678901");
  EXPECT_EQ(too_big.code(), ErrorCode::kResourceExhausted);
  EXPECT_NE(too_big.message().find("ten_bytes"), std::string::npos);
  EXPECT_EQ(get("ten_bytes", "b"), "bbbb");  // nothing was evicted for it
  KEEL_ASSERT_OK(store_->cache_put("ten_bytes", "empty", ""));
  EXPECT_EQ(get("ten_bytes", "empty"), "");
}

TEST_P(CacheStoreTest, ClearEmptiesOneScope) {
  KEEL_ASSERT_OK(store_->cache_put("web_search", "q", "results"));
  KEEL_ASSERT_OK(store_->cache_put("page_fetch", "u", "page"));
  KEEL_ASSERT_OK(store_->cache_clear("web_search"));
  EXPECT_EQ(get("web_search", "q"), std::nullopt);
  EXPECT_EQ(get("page_fetch", "u"), "page");
}

TEST_P(CacheStoreTest, UnknownScopeIsInvalidArgument) {
  for (Status s :
       {store_->cache_get("nope", "k").status(), store_->cache_put("nope", "k", "v"), store_->cache_clear("nope")}) {
    EXPECT_EQ(s.code(), ErrorCode::kInvalidArgument);
    EXPECT_NE(s.message().find("unknown cache scope 'nope'"), std::string::npos) << s.message();
    EXPECT_NE(s.message().find("tool_result"), std::string::npos) << s.message();
  }
}

KEEL_STORE_ENGINES(CacheStoreTest);

}  // namespace
}  // namespace keel::testing
