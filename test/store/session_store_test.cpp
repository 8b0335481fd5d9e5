#include <sqlite3.h>

#include "store_test_util.hpp"

namespace keel::testing {
namespace {


using SessionStoreTest = StoreTest;

TEST_P(SessionStoreTest, CreateAndGetRoundTripEveryField) {
  std::string parent = new_session("parent");
  SessionInfo info;
  info.title = "Fix the flaky test — ünïcode";
  info.workspace = "/home/me/proj";
  info.model = "openai:gpt-4o";
  info.parent_id = parent;
  info.hidden = true;
  info.created_ms = 1234;
  auto id = store_->create_session(info);
  ASSERT_TRUE(id.ok()) << id.status().to_string();
  EXPECT_EQ(id->rfind("s_", 0), 0u);
  EXPECT_EQ(id->size(), 34u);  // 128 random bits in hex
  EXPECT_EQ(id->find_first_not_of("0123456789abcdef", 2), std::string::npos);

  auto s = store_->get_session(*id);
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  EXPECT_EQ(s->id, *id);
  EXPECT_EQ(s->title, info.title);
  EXPECT_EQ(s->workspace, info.workspace);
  EXPECT_EQ(s->model, info.model);
  EXPECT_EQ(s->parent_id, parent);
  EXPECT_TRUE(s->hidden);
  EXPECT_EQ(s->created_ms, 1234);
  EXPECT_EQ(s->updated_ms, 1234);
  EXPECT_EQ(s->message_count, 0);

  auto defaulted = store_->get_session(parent);
  ASSERT_TRUE(defaulted.ok());
  EXPECT_EQ(defaulted->created_ms, clock_);
  EXPECT_EQ(defaulted->parent_id, "");
  EXPECT_FALSE(defaulted->hidden);
}

TEST_P(SessionStoreTest, MissingIdsAreNotFoundNamingTheId) {
  const std::string id = "s_0123456789abcdef";
  auto get = store_->get_session(id);
  ASSERT_FALSE(get.ok());
  EXPECT_EQ(get.status().code(), ErrorCode::kNotFound);
  EXPECT_EQ(get.status().message(), "no session 's_0123456789abcdef'");
  for (Status s : {store_->rename_session(id, "x"), store_->delete_session(id), store_->fork_session(id, {}).status(),
                   store_->append_message(id, "", Message::user("hi"), 0).status(), store_->load_messages(id).status(),
                   store_->create_run({id, "task", 0}).status(), store_->list_runs(id).status()}) {
    EXPECT_EQ(s.code(), ErrorCode::kNotFound) << s.to_string();
    EXPECT_NE(s.message().find(id), std::string::npos) << s.message();
  }
  SessionInfo orphan;
  orphan.parent_id = id;
  auto child = store_->create_session(orphan);
  EXPECT_EQ(child.status().code(), ErrorCode::kNotFound);
  EXPECT_NE(child.status().message().find(id), std::string::npos);
}

TEST_P(SessionStoreTest, ListIsNewestFirstWithCountsAndFilters) {
  std::string a = new_session("a", "/ws1");
  clock_ += 10;
  std::string b = new_session("b", "/ws2");
  clock_ += 10;
  SessionInfo hidden_info{"sub", "/ws1", "", a, true, 0};
  std::string hidden = store_->create_session(hidden_info).value_or("");
  clock_ += 10;
  ASSERT_TRUE(store_->append_message(a, "", Message::user("one"), 0).ok());  // a becomes the newest
  ASSERT_TRUE(store_->append_message(a, "", Message::user("two"), 0).ok());

  auto all = store_->list_sessions({});
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 2u);
  EXPECT_EQ((*all)[0].id, a);
  EXPECT_EQ((*all)[0].message_count, 2);
  EXPECT_EQ((*all)[1].id, b);
  EXPECT_EQ((*all)[1].message_count, 0);

  SessionFilter with_hidden;
  with_hidden.include_hidden = true;
  EXPECT_EQ(store_->list_sessions(with_hidden)->size(), 3u);

  SessionFilter ws1;
  ws1.workspace = "/ws1";
  ws1.include_hidden = true;
  auto in_ws1 = store_->list_sessions(ws1);
  ASSERT_TRUE(in_ws1.ok());
  ASSERT_EQ(in_ws1->size(), 2u);
  EXPECT_EQ((*in_ws1)[0].id, a);
  EXPECT_EQ((*in_ws1)[1].id, hidden);

  SessionFilter one;
  one.limit = 1;
  ASSERT_EQ(store_->list_sessions(one)->size(), 1u);
}

TEST_P(SessionStoreTest, RenameChangesTitleAndUpdatedTime) {
  std::string id = new_session("old");
  clock_ += 500;
  KEEL_ASSERT_OK(store_->rename_session(id, "new title"));
  auto s = store_->get_session(id);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->title, "new title");
  EXPECT_EQ(s->updated_ms, clock_);
  EXPECT_EQ(s->created_ms, clock_ - 500);
}

TEST_P(SessionStoreTest, ForkCopiesMessagesAndSetsParent) {
  std::string src = new_session("source", "/ws");
  for (int i = 1; i <= 5; ++i) {
    Message m = Message::assistant("msg " + std::to_string(i), {{"c" + std::to_string(i), "fs_read", "{}"}});
    m.metadata["round"] = std::to_string(i);
    ASSERT_TRUE(store_->append_message(src, "", m, i * 10).ok());
  }
  auto fork = store_->fork_session(src, 3);
  ASSERT_TRUE(fork.ok()) << fork.status().to_string();
  EXPECT_NE(*fork, src);
  auto info = store_->get_session(*fork);
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->parent_id, src);
  EXPECT_EQ(info->title, "source");
  EXPECT_EQ(info->workspace, "/ws");
  EXPECT_EQ(info->message_count, 3);

  auto copied = store_->load_messages(*fork);
  auto original = store_->load_messages(src);
  ASSERT_TRUE(copied.ok() && original.ok());
  ASSERT_EQ(copied->size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ((*copied)[i].seq, (*original)[i].seq);
    EXPECT_EQ((*copied)[i].message.content, (*original)[i].message.content);
    EXPECT_EQ((*copied)[i].message.tool_calls.at(0).id, (*original)[i].message.tool_calls.at(0).id);
    EXPECT_EQ((*copied)[i].message.metadata, (*original)[i].message.metadata);
    EXPECT_EQ((*copied)[i].tokens, (*original)[i].tokens);
  }
  // The fork grows on its own; the source is unchanged.
  auto next = store_->append_message(*fork, "", Message::user("diverge"), 0);
  ASSERT_TRUE(next.ok());
  EXPECT_EQ(*next, 4);
  EXPECT_EQ(store_->load_messages(src)->size(), 5u);

  auto whole = store_->fork_session(src, std::nullopt);
  ASSERT_TRUE(whole.ok());
  EXPECT_EQ(store_->load_messages(*whole)->size(), 5u);
  auto empty = store_->fork_session(src, 0);
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(store_->load_messages(*empty)->size(), 0u);
  EXPECT_EQ(store_->fork_session(src, -1).status().code(), ErrorCode::kInvalidArgument);
}

TEST_P(SessionStoreTest, DeleteCascadesToEverythingOfTheSession) {
  std::string id = new_session("doomed");
  auto run = store_->create_run({id, "task", 0});
  ASSERT_TRUE(run.ok());
  ASSERT_TRUE(store_->append_message(id, *run, Message::user("hello"), 1).ok());
  ToolRunRecord tool_run;
  tool_run.run_id = *run;
  tool_run.tool = "fs_read";
  ASSERT_TRUE(store_->record_tool_run(tool_run).ok());
  SpanRecord span{"t1", "sp1", "", id, *run, "run", "run", 1, 2, "ok", ""};
  KEEL_ASSERT_OK(store_->record_span(span));
  auto fork = store_->fork_session(id, {});
  ASSERT_TRUE(fork.ok());

  KEEL_ASSERT_OK(store_->delete_session(id));
  EXPECT_EQ(store_->get_session(id).status().code(), ErrorCode::kNotFound);
  EXPECT_EQ(store_->get_run(*run).status().code(), ErrorCode::kNotFound);
  EXPECT_EQ(store_->list_tool_runs(*run).status().code(), ErrorCode::kNotFound);
  EXPECT_TRUE(store_->list_spans("t1")->empty());
  EXPECT_EQ(store_->delete_session(id).code(), ErrorCode::kNotFound);
  for (const char* table : {"messages", "runs", "spans"}) {
    EXPECT_EQ(raw_count(std::string("SELECT count(*) FROM ") + table + " WHERE session_id = '" + id + "'"),
              0)
        << table;
  }
  EXPECT_EQ(raw_count("SELECT count(*) FROM tool_runs"), 0);

  // The fork keeps its copies and loses its parent; its copied run link is cleared.
  auto fork_info = store_->get_session(*fork);
  ASSERT_TRUE(fork_info.ok());
  EXPECT_EQ(fork_info->parent_id, "");
  auto kept = store_->load_messages(*fork);
  ASSERT_TRUE(kept.ok());
  ASSERT_EQ(kept->size(), 1u);
  EXPECT_EQ((*kept)[0].message.content, "hello");
  EXPECT_EQ((*kept)[0].run_id, "");
}

KEEL_STORE_ENGINES(SessionStoreTest);

}  // namespace
}  // namespace keel::testing
