// Todos: a task list per workspace. Ids are global (INTEGER PRIMARY KEY) but every lookup is
// scoped to the workspace, so one workspace never sees or completes another's todos.
#include "store/sql_store.hpp"

namespace keel {

std::string_view todo_priority_name(TodoPriority priority) {
  switch (priority) {
    case TodoPriority::kLow: return "low";
    case TodoPriority::kMedium: return "medium";
    case TodoPriority::kHigh: return "high";
    case TodoPriority::kNone: break;
  }
  return "none";
}

}  // namespace keel

namespace keel::detail {
namespace {

// A macro so each query is one string literal (no run-time concatenation).
#define KEEL_TODO_COLUMNS "id, workspace, text, priority, notes, created_ms, completed_ms"

constexpr size_t kMaxIdsNamed = 20;  // a NotFound message lists at most this many open ids

TodoItem read_todo(const Stmt& stmt) {
  TodoItem t;
  t.id = stmt.int64(0);
  t.workspace = stmt.text(1);
  t.text = stmt.text(2);
  t.priority = static_cast<TodoPriority>(stmt.int64(3));
  t.notes = stmt.text(4);
  t.created_ms = stmt.int64(5);
  if (!stmt.is_null(6)) t.completed_ms = stmt.int64(6);
  return t;
}

bool valid_priority(TodoPriority p) {
  const auto v = static_cast<int>(p);
  return v >= static_cast<int>(TodoPriority::kNone) && v <= static_cast<int>(TodoPriority::kHigh);
}

}  // namespace

Result<TodoItem> SqlStore::todo_add(std::string_view workspace, const NewTodo& todo) {
  if (todo.text.empty()) return Status::InvalidArgument("a todo needs some text");
  if (!valid_priority(todo.priority)) return Status::InvalidArgument("todo priority out of range");
  KEEL_ASSIGN_OR_RETURN(auto lease, pool_.lease());
  TodoItem item;
  item.workspace = std::string(workspace);
  item.text = todo.text;
  item.priority = todo.priority;
  item.notes = todo.notes;
  item.created_ms = or_now(todo.created_ms);
  KEEL_TRY(db_->write([&]() -> Status {
    KEEL_ASSIGN_OR_RETURN(
        item.id,
        insert_with_id(*db_,
                       "INSERT INTO todos (workspace, text, priority, notes, created_ms) VALUES (?1, ?2, ?3, ?4, ?5)",
                       [&](Stmt& stmt) {
                         stmt.bind(1, workspace).bind(2, todo.text).bind(3, static_cast<int64_t>(todo.priority));
                         stmt.bind(4, todo.notes).bind(5, item.created_ms);
                       }));
    return Status::Ok();
  }));
  return item;
}

Result<std::vector<TodoItem>> SqlStore::todo_list(std::string_view workspace, const TodoQuery& query) {
  KEEL_ASSIGN_OR_RETURN(auto lease, pool_.lease());
  KEEL_ASSIGN_OR_RETURN(
      Stmt stmt,
      db_->prepare("SELECT " KEEL_TODO_COLUMNS " FROM todos WHERE workspace = ?1 AND "
                   "(?2 = 'all' OR (?2 = 'open' AND completed_ms IS NULL) OR (?2 = 'done' AND completed_ms IS NOT NULL)) "
                   "ORDER BY completed_ms IS NOT NULL, "
                   "CASE WHEN completed_ms IS NULL THEN -priority ELSE 0 END, "
                   "completed_ms DESC, id "
                   "LIMIT ?3"));
  const char* status = query.status == TodoStatusFilter::kOpen   ? "open"
                       : query.status == TodoStatusFilter::kDone ? "done"
                                                                 : "all";
  stmt.bind(1, workspace).bind(2, status).bind(3, sql_limit(query.limit));
  std::vector<TodoItem> items;
  while (true) {
    KEEL_ASSIGN_OR_RETURN(bool row, stmt.step());
    if (!row) return items;
    items.push_back(read_todo(stmt));
  }
}

Result<TodoItem> SqlStore::todo_complete(std::string_view workspace, int64_t id, int64_t completed_ms) {
  KEEL_ASSIGN_OR_RETURN(auto lease, pool_.lease());
  const int64_t when = or_now(completed_ms);
  TodoItem item;
  KEEL_TRY(db_->write([&]() -> Status {
    KEEL_ASSIGN_OR_RETURN(Stmt find,
                          db_->prepare("SELECT " KEEL_TODO_COLUMNS " FROM todos WHERE id = ?1 AND workspace = ?2"));
    find.bind(1, id).bind(2, workspace);
    KEEL_ASSIGN_OR_RETURN(bool found, find.step());
    if (!found) {
      KEEL_ASSIGN_OR_RETURN(Stmt open, db_->prepare("SELECT id FROM todos WHERE workspace = ?1 AND "
                                                    "completed_ms IS NULL ORDER BY id LIMIT ?2"));
      open.bind(1, workspace).bind(2, static_cast<int64_t>(kMaxIdsNamed + 1));
      std::string ids;
      size_t n = 0;
      while (true) {
        KEEL_ASSIGN_OR_RETURN(bool row, open.step());
        if (!row) break;
        if (++n > kMaxIdsNamed) {
          ids += ", ...";
          break;
        }
        ids += (ids.empty() ? "" : ", ") + std::to_string(open.int64(0));
      }
      return Status::NotFound("no todo " + std::to_string(id) + " in this workspace; " +
                              (ids.empty() ? std::string("it has no open todos")
                                           : "its open todos are " + ids) +
                              " (todo_list shows them)");
    }
    item = read_todo(find);
    if (item.done()) {
      return Status::FailedPrecondition("todo " + std::to_string(id) + " is already done");
    }
    KEEL_ASSIGN_OR_RETURN(Stmt update,
                          db_->prepare("UPDATE todos SET completed_ms = ?2 WHERE id = ?1 AND completed_ms IS NULL"));
    update.bind(1, id).bind(2, when);
    KEEL_TRY(update.run());
    if (db_->changes() == 0) {  // completed meanwhile on another connection
      return Status::FailedPrecondition("todo " + std::to_string(id) + " is already done");
    }
    item.completed_ms = when;
    return Status::Ok();
  }));
  return item;
}

}  // namespace keel::detail
