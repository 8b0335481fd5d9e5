// Todos in the SQLite store: adding, listing by status and order, completing, workspace scoping,
// persistence across reopening and across processes.
#include <sys/wait.h>
#include <unistd.h>

#include "store_test_util.hpp"

namespace keel::testing {
namespace {

class TodoStoreTest : public StoreTest {
 protected:
  TodoItem add(const std::string& text, TodoPriority priority = TodoPriority::kNone, const std::string& ws = "/ws") {
    NewTodo t;
    t.text = text;
    t.priority = priority;
    auto r = store_->todo_add(ws, t);
    EXPECT_TRUE(r.ok()) << r.status().to_string();
    return r.value_or(TodoItem{});
  }
  std::vector<std::string> texts(TodoStatusFilter status, const std::string& ws = "/ws") {
    TodoQuery q;
    q.status = status;
    auto r = store_->todo_list(ws, q);
    EXPECT_TRUE(r.ok()) << r.status().to_string();
    std::vector<std::string> out;
    for (const TodoItem& t : r.value_or(std::vector<TodoItem>{})) out.push_back(t.text);
    return out;
  }
};

TEST_P(TodoStoreTest, AddReturnsTheStoredItem) {
  NewTodo t;
  t.text = "write tests";
  t.priority = TodoPriority::kHigh;
  t.notes = "parser first";
  auto item = store_->todo_add("/ws", t);
  ASSERT_TRUE(item.ok()) << item.status().to_string();
  EXPECT_GT(item->id, 0);
  EXPECT_EQ(item->workspace, "/ws");
  EXPECT_EQ(item->text, "write tests");
  EXPECT_EQ(item->priority, TodoPriority::kHigh);
  EXPECT_EQ(item->notes, "parser first");
  EXPECT_EQ(item->created_ms, clock_);
  EXPECT_FALSE(item->done());
  auto listed = store_->todo_list("/ws", TodoQuery{});
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_EQ((*listed)[0].id, item->id);
  EXPECT_EQ((*listed)[0].notes, "parser first");
  EXPECT_EQ((*listed)[0].created_ms, clock_);
}

TEST_P(TodoStoreTest, RefusesEmptyTextAndBadPriorities) {
  NewTodo empty;
  EXPECT_EQ(store_->todo_add("/ws", empty).status().code(), ErrorCode::kInvalidArgument);
  NewTodo bad;
  bad.text = "x";
  bad.priority = static_cast<TodoPriority>(7);
  EXPECT_EQ(store_->todo_add("/ws", bad).status().code(), ErrorCode::kInvalidArgument);
  EXPECT_TRUE(texts(TodoStatusFilter::kAll).empty());
}

TEST_P(TodoStoreTest, ListsOpenByPriorityThenAgeAndDoneByCompletion) {
  add("low", TodoPriority::kLow);
  add("plain");
  const TodoItem high = add("high", TodoPriority::kHigh);
  add("medium", TodoPriority::kMedium);
  const TodoItem first_done = add("done first");
  const TodoItem second_done = add("done second");
  clock_ += 1000;
  ASSERT_TRUE(store_->todo_complete("/ws", first_done.id, 0).ok());
  clock_ += 1000;
  ASSERT_TRUE(store_->todo_complete("/ws", second_done.id, 0).ok());

  EXPECT_EQ(texts(TodoStatusFilter::kOpen), (std::vector<std::string>{"high", "medium", "low", "plain"}));
  EXPECT_EQ(texts(TodoStatusFilter::kDone), (std::vector<std::string>{"done second", "done first"}));
  EXPECT_EQ(texts(TodoStatusFilter::kAll),
            (std::vector<std::string>{"high", "medium", "low", "plain", "done second", "done first"}));
  TodoQuery two;
  two.status = TodoStatusFilter::kAll;
  two.limit = 2;
  EXPECT_EQ(store_->todo_list("/ws", two)->size(), 2u);
  EXPECT_EQ(high.priority, TodoPriority::kHigh);
}

TEST_P(TodoStoreTest, CompleteRecordsTheTimeOnce) {
  const TodoItem t = add("ship it");
  clock_ += 5000;
  auto done = store_->todo_complete("/ws", t.id, 0);
  ASSERT_TRUE(done.ok()) << done.status().to_string();
  ASSERT_TRUE(done->completed_ms.has_value());
  EXPECT_EQ(*done->completed_ms, clock_);
  EXPECT_EQ(done->created_ms, clock_ - 5000);
  auto again = store_->todo_complete("/ws", t.id, 0);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.status().code(), ErrorCode::kFailedPrecondition);
  EXPECT_EQ(again.status().message(), "todo " + std::to_string(t.id) + " is already done");
  auto explicit_time = store_->todo_complete("/ws", add("later").id, 42);
  ASSERT_TRUE(explicit_time.ok());
  EXPECT_EQ(*explicit_time->completed_ms, 42);
}

TEST_P(TodoStoreTest, UnknownIdsAreNotFoundNamingTheOpenOnes) {
  const TodoItem a = add("a");
  const TodoItem b = add("b");
  const TodoItem theirs = add("other workspace", TodoPriority::kNone, "/other");
  auto missing = store_->todo_complete("/ws", 9999, 0);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), ErrorCode::kNotFound);
  EXPECT_EQ(missing.status().message(), "no todo 9999 in this workspace; its open todos are " + std::to_string(a.id) +
                                            ", " + std::to_string(b.id) + " (todo_list shows them)");
  // Another workspace's todo is not this workspace's to complete.
  auto foreign = store_->todo_complete("/ws", theirs.id, 0);
  EXPECT_EQ(foreign.status().code(), ErrorCode::kNotFound);
  EXPECT_FALSE(store_->todo_list("/other", TodoQuery{})->at(0).done());
  auto empty = store_->todo_complete("/nothing", 1, 0);
  EXPECT_EQ(empty.status().message(), "no todo 1 in this workspace; it has no open todos (todo_list shows them)");
}

TEST_P(TodoStoreTest, WorkspacesAreSeparate) {
  add("mine");
  add("theirs", TodoPriority::kNone, "/other");
  EXPECT_EQ(texts(TodoStatusFilter::kAll), std::vector<std::string>{"mine"});
  EXPECT_EQ(texts(TodoStatusFilter::kAll, "/other"), std::vector<std::string>{"theirs"});
}

TEST_P(TodoStoreTest, SurviveReopeningAndOtherProcesses) {
  const TodoItem t = add("persist me", TodoPriority::kMedium);
  reopen();
  EXPECT_EQ(texts(TodoStatusFilter::kOpen), std::vector<std::string>{"persist me"});

  store_.reset();  // no connection is open across fork()
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    auto child = open(options());
    if (!child.ok()) ::_exit(2);
    NewTodo n;
    n.text = "from another process";
    if (!(*child)->todo_add("/ws", n).ok()) ::_exit(3);
    if (!(*child)->todo_complete("/ws", t.id, 0).ok()) ::_exit(4);
    ::_exit(0);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_EQ(WEXITSTATUS(status), 0) << "2: open failed; 3: add failed; 4: complete failed";
  reopen();
  EXPECT_EQ(texts(TodoStatusFilter::kOpen), std::vector<std::string>{"from another process"});
  EXPECT_EQ(texts(TodoStatusFilter::kDone), std::vector<std::string>{"persist me"});
}

TEST_P(TodoStoreTest, ReadOnlyStoreListsButCannotChange) {
  const TodoItem t = add("read me");
  StoreOptions o = options();
  o.read_only = true;
  reopen(o);
  EXPECT_EQ(texts(TodoStatusFilter::kOpen), std::vector<std::string>{"read me"});
  NewTodo n;
  n.text = "x";
  EXPECT_EQ(store_->todo_add("/ws", n).status().code(), ErrorCode::kPermissionDenied);
  EXPECT_EQ(store_->todo_complete("/ws", t.id, 0).status().code(), ErrorCode::kPermissionDenied);
}

KEEL_STORE_ENGINES(TodoStoreTest);

}  // namespace
}  // namespace keel::testing
