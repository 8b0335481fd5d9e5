#include "store/fts_query.hpp"
#include "store_test_util.hpp"

namespace keel::testing {
namespace {

using MemoryStoreTest = StoreTest;

TEST_P(MemoryStoreTest, WriteListRemove) {
  auto a = store_->memory_write("/ws", "first note", "setup");
  clock_ += 10;
  auto b = store_->memory_write("/ws", "second note", "");
  auto c = store_->memory_write("/elsewhere", "other workspace", "");
  ASSERT_TRUE(a.ok() && b.ok() && c.ok()) << a.status().to_string();
  auto notes = store_->memory_list("/ws", 0);
  ASSERT_TRUE(notes.ok());
  ASSERT_EQ(notes->size(), 2u);
  EXPECT_EQ((*notes)[0].id, *b);  // newest first
  EXPECT_EQ((*notes)[1].text, "first note");
  EXPECT_EQ((*notes)[1].tags, "setup");
  EXPECT_EQ((*notes)[1].workspace, "/ws");
  EXPECT_EQ((*notes)[1].created_ms, clock_ - 10);
  EXPECT_EQ(store_->memory_list("/ws", 1)->size(), 1u);

  KEEL_ASSERT_OK(store_->memory_remove(*a));
  EXPECT_EQ(store_->memory_list("/ws", 0)->size(), 1u);
  Status again = store_->memory_remove(*a);
  EXPECT_EQ(again.code(), ErrorCode::kNotFound);
  EXPECT_NE(again.message().find(std::to_string(*a)), std::string::npos);
  EXPECT_EQ(store_->memory_write("/ws", "", "").status().code(), ErrorCode::kInvalidArgument);
}

TEST_P(MemoryStoreTest, SearchRanksNotesMatchingMoreWordsFirst) {
  auto editor = store_->memory_write("/ws", "The user prefers vim as their editor", "preferences");
  ASSERT_TRUE(store_->memory_write("/ws", "vim keybindings are enabled in the shell", "").ok());
  ASSERT_TRUE(store_->memory_write("/ws", "Python projects use ruff for linting", "python").ok());
  ASSERT_TRUE(store_->memory_write("/ws", "the editor theme is dark", "").ok());
  ASSERT_TRUE(store_->memory_write("/other", "vim editor vim editor", "").ok());
  ASSERT_TRUE(editor.ok());

  auto hits = store_->memory_search("/ws", "which editor does the user prefer? vim?", 10);
  ASSERT_TRUE(hits.ok()) << hits.status().to_string();
  ASSERT_GE(hits->size(), 3u);
  EXPECT_EQ((*hits)[0].note.id, *editor);
  for (size_t i = 1; i < hits->size(); ++i) EXPECT_GE((*hits)[i - 1].score, (*hits)[i].score);
  for (const MemoryHit& hit : *hits) {
    EXPECT_EQ(hit.note.workspace, "/ws");
    EXPECT_EQ(hit.note.text.find("ruff"), std::string::npos);
  }

  auto stemmed = store_->memory_search("/ws", "linted Pythons", 10);  // porter stemming
  ASSERT_TRUE(stemmed.ok());
  ASSERT_EQ(stemmed->size(), 1u);
  EXPECT_NE((*stemmed)[0].note.text.find("ruff"), std::string::npos);

  auto tagged = store_->memory_search("/ws", "preferences", 10);  // tags are searched too
  ASSERT_TRUE(tagged.ok());
  ASSERT_EQ(tagged->size(), 1u);
  EXPECT_EQ((*tagged)[0].note.id, *editor);

  EXPECT_EQ(store_->memory_search("/ws", "vim", 1)->size(), 1u);
  KEEL_ASSERT_OK(store_->memory_remove(*editor));
  auto after = store_->memory_search("/ws", "prefers", 10);
  ASSERT_TRUE(after.ok());
  EXPECT_TRUE(after->empty());
}

TEST_P(MemoryStoreTest, NastyQueriesAreTextNotSyntax) {
  auto x = store_->memory_write("/ws", "what is x in this module", "");
  ASSERT_TRUE(x.ok());
  const std::string nasty[] = {
      R"(what's "x" AND ()",
      "\"",
      "\"\"",
      "(",
      ")",
      "*",
      "NEAR(a b, 3)",
      "a OR",
      "NOT",
      "AND AND",
      "text:x",
      "^x",
      "-x",
      "x*",
      "'",
      "\\",
      "{x}",
      "[x]",
      "+x",
      "—",
      "日本語 テキスト",
      "🚀🚀",
      std::string("nul\0byte", 8),
      "\xff\xfe invalid utf8",
      "",
      "   \t\n ",
      std::string(10000, 'x'),
  };
  for (const std::string& q : nasty) {
    auto r = store_->memory_search("/ws", q, 5);
    EXPECT_TRUE(r.ok()) << "query [" << q.substr(0, 40) << "]: " << r.status().to_string();
  }
  auto found = store_->memory_search("/ws", R"(what's "x" AND ()", 5);
  ASSERT_TRUE(found.ok());
  ASSERT_EQ(found->size(), 1u);
  EXPECT_EQ((*found)[0].note.id, *x);
}

TEST(FtsQueryTest, QuotesEveryWordAndJoinsWithOr) {
  EXPECT_EQ(detail::fts5_match_any(R"(what's "x" AND ()"), R"("what's" OR """x""" OR "AND" OR "(")");
  EXPECT_EQ(detail::fts5_match_any("  "), "");
  EXPECT_EQ(detail::fts5_match_any("a a b"), R"("a" OR "b")");
  EXPECT_EQ(detail::fts5_match_any("a b c d", 2), R"("a" OR "b")");
}

KEEL_STORE_ENGINES(MemoryStoreTest);

}  // namespace
}  // namespace keel::testing
