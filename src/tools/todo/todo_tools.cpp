// todo_list / todo_add / todo_complete: the workspace's task list in the Store, as compact JSON.
#include "keel/todo_tools.hpp"

#include <nlohmann/json.hpp>

#include "core/text/text_util.hpp"
#include "tools/fs_common.hpp"
#include "core/text/utf8_text.hpp"

namespace keel {
namespace {

using nlohmann::json;

constexpr size_t kMaxTextBytes = 2000;   // a todo is one task, not a document
constexpr size_t kMaxNotesBytes = 8000;
constexpr int kMaxListed = 200;          // todo_list shows at most this many items

constexpr const char* kAddSchema = R"json({
  "type": "object",
  "properties": {
    "text": {"type": "string", "minLength": 1, "description": "The task, self-contained, e.g. \"add tests for the parser\""},
    "priority": {"type": "string", "enum": ["low", "medium", "high"], "description": "Optional priority"},
    "notes": {"type": "string", "description": "Optional details"}
  },
  "required": ["text"],
  "additionalProperties": false
})json";

constexpr const char* kListSchema = R"json({
  "type": "object",
  "properties": {
    "status": {"type": "string", "enum": ["open", "done", "all"], "description": "Which todos: open (default), done or all"}
  },
  "additionalProperties": false
})json";

constexpr const char* kCompleteSchema = R"json({
  "type": "object",
  "properties": {
    "id": {"type": "integer", "minimum": 1, "description": "The id of the todo, as todo_list shows it"}
  },
  "required": ["id"],
  "additionalProperties": false
})json";

// The string argument `key`, or "" (the schema already checked its type).
std::string string_arg(const json& args, const char* key) { return detail::string_arg(args, key, ""); }

// The string argument `key` without surrounding whitespace.
std::string trimmed_arg(const json& args, const char* key) { return std::string(detail::trim(string_arg(args, key))); }

std::string iso_time(int64_t ms) { return detail::iso8601_utc(static_cast<std::time_t>(ms / 1000)); }

json item_json(const TodoItem& t) {
  json j;
  j["id"] = t.id;
  j["text"] = t.text;
  j["status"] = t.done() ? "done" : "open";
  if (t.priority != TodoPriority::kNone) j["priority"] = todo_priority_name(t.priority);
  if (!t.notes.empty()) j["notes"] = t.notes;
  j["created"] = iso_time(t.created_ms);
  if (t.completed_ms) j["completed"] = iso_time(*t.completed_ms);
  return j;
}

std::string dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

Status store_failure(std::string_view what, const Status& s) {
  return Status(s.code(), "could not " + std::string(what) + ": " + s.message());
}

Result<std::string> add_todo(Store& store, const std::string& workspace, const json& args) {
  NewTodo todo;
  todo.text = trimmed_arg(args, "text");
  if (todo.text.empty()) return Status::InvalidArgument("todo_add needs \"text\": the task, not empty");
  if (todo.text.size() > kMaxTextBytes) {
    return Status::InvalidArgument("todo text too long (" + std::to_string(todo.text.size()) + " bytes, at most " +
                                   std::to_string(kMaxTextBytes) + "); put details in \"notes\"");
  }
  todo.notes = trimmed_arg(args, "notes");
  if (todo.notes.size() > kMaxNotesBytes) {
    return Status::InvalidArgument("todo notes too long (" + std::to_string(todo.notes.size()) + " bytes, at most " +
                                   std::to_string(kMaxNotesBytes) + ")");
  }
  const std::string priority = string_arg(args, "priority");
  if (priority == "low") todo.priority = TodoPriority::kLow;
  if (priority == "medium") todo.priority = TodoPriority::kMedium;
  if (priority == "high") todo.priority = TodoPriority::kHigh;
  Result<TodoItem> added = store.todo_add(workspace, todo);
  if (!added.ok()) return store_failure("add the todo", added.status());
  return dump(json{{"added", item_json(*added)}});
}

Result<std::string> list_todos(Store& store, const std::string& workspace, const json& args) {
  const std::string status = string_arg(args, "status");
  TodoQuery all;
  all.status = TodoStatusFilter::kAll;
  Result<std::vector<TodoItem>> items = store.todo_list(workspace, all);
  if (!items.ok()) return store_failure("list the todos", items.status());
  const bool want_open = status.empty() || status == "open" || status == "all";
  const bool want_done = status == "done" || status == "all";
  json out;
  out["todos"] = json::array();
  int64_t open = 0, done = 0;
  size_t shown = 0;
  for (const TodoItem& t : *items) {
    (t.done() ? done : open) += 1;
    if ((t.done() ? want_done : want_open) && shown < static_cast<size_t>(kMaxListed)) {
      out["todos"].push_back(item_json(t));
      ++shown;
    }
  }
  out["open"] = open;
  out["done"] = done;
  const int64_t wanted = (want_open ? open : 0) + (want_done ? done : 0);
  if (wanted > static_cast<int64_t>(shown)) {
    out["note"] = "showing the first " + std::to_string(shown) + " of " + std::to_string(wanted);
  }
  if (wanted == 0) {
    out["note"] = open + done == 0 ? "no todos yet; todo_add adds one"
                                   : "none match; status \"all\" shows every todo";
  }
  return dump(out);
}

Result<std::string> complete_todo(Store& store, const std::string& workspace, const json& args) {
  auto it = args.find("id");
  if (it == args.end() || !it->is_number_integer()) {
    return Status::InvalidArgument("todo_complete needs \"id\": the number todo_list shows");
  }
  Result<TodoItem> item = store.todo_complete(workspace, it->get<int64_t>(), 0);
  if (!item.ok()) return item.status();  // NotFound names the open ids; FailedPrecondition says it is done
  return dump(json{{"completed", item_json(*item)}});
}

ToolSpec spec(const char* name, const char* description, const char* schema, bool read_only) {
  ToolTraits t;  // not cacheable: the list changes as the agent works
  t.read_only = read_only;
  t.timeout_ms = 10000;
  return make_tool_spec(name, description, schema, t);
}

}  // namespace

Status register_todo_tools(ToolRegistry& tools, Store& store, std::string workspace) {
  Store* s = &store;
  const std::string ws = std::move(workspace);
  KEEL_TRY(tools.add(make_tool(
      spec("todo_list",
           "List the task list of this workspace (open todos by default; status \"done\" or \"all\" for the rest).",
           kListSchema, true),
      [s, ws](const json& args, const ToolContext&) { return list_todos(*s, ws, args); })));
  KEEL_TRY(tools.add(make_tool(
      spec("todo_add", "Add a task to this workspace's todo list; it is kept across sessions.", kAddSchema, false),
      [s, ws](const json& args, const ToolContext&) { return add_todo(*s, ws, args); })));
  KEEL_TRY(tools.add(
      make_tool(spec("todo_complete", "Mark a todo done by its id (from todo_list or todo_add).", kCompleteSchema, false),
                [s, ws](const json& args, const ToolContext&) { return complete_todo(*s, ws, args); })));
  return Status::Ok();
}

}  // namespace keel
