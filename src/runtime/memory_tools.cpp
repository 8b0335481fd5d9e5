// memory_write / memory_search / memory_list: the agent's notes in the Store. Outputs are plain
// text for a model, one note per line ("12. [tags] text"), newlines inside a note shown as spaces.
#include "keel/memory_tools.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>

namespace keel {
namespace {

using nlohmann::json;

constexpr size_t kMaxNoteBytes = 8000;  // a note is a fact or a decision, not a document
constexpr int kSearchDefault = 5, kSearchMax = 20;
constexpr int kListDefault = 20, kListMax = 100;

constexpr const char* kWriteSchema = R"json({
  "type": "object",
  "properties": {
    "text": {"type": "string", "minLength": 1, "description": "The fact, decision or preference to remember, self-contained"},
    "tags": {"type": "string", "description": "Optional space-separated keywords that help find the note later"}
  },
  "required": ["text"],
  "additionalProperties": false
})json";

constexpr const char* kSearchSchema = R"json({
  "type": "object",
  "properties": {
    "query": {"type": "string", "minLength": 1, "description": "Words to look for; notes matching any of them are returned, best first"},
    "limit": {"type": "integer", "minimum": 1, "maximum": 20, "description": "Most notes returned (default 5)"}
  },
  "required": ["query"],
  "additionalProperties": false
})json";

constexpr const char* kListSchema = R"json({
  "type": "object",
  "properties": {
    "limit": {"type": "integer", "minimum": 1, "maximum": 100, "description": "Most notes returned, newest first (default 20)"}
  },
  "additionalProperties": false
})json";

std::string trimmed(std::string_view s) {
  const size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) return {};
  const size_t e = s.find_last_not_of(" \t\r\n");
  return std::string(s.substr(b, e - b + 1));
}

// The string argument `key`, or "" when absent or not a string (the schema already checked it).
std::string string_arg(const json& args, const char* key) {
  auto it = args.find(key);
  return it != args.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// The integer argument `key` clamped to [1, max], or `fallback` when absent.
int limit_arg(const json& args, int fallback, int max) {
  auto it = args.find("limit");
  if (it == args.end() || !it->is_number_integer()) return fallback;
  const int64_t v = it->get<int64_t>();
  return static_cast<int>(std::clamp<int64_t>(v, 1, max));
}

std::string note_line(const MemoryNote& note) {
  std::string text = note.text;
  std::replace_if(
      text.begin(), text.end(), [](char c) { return c == '\n' || c == '\r' || c == '\t'; }, ' ');
  std::string line = std::to_string(note.id) + ". ";
  if (!note.tags.empty()) line += "[" + note.tags + "] ";
  return line + text + "\n";
}

Status store_failure(std::string_view what, const Status& s) {
  return Status(s.code(), "could not " + std::string(what) + ": " + s.message() +
                              " (memory is unavailable for now; continue without it)");
}

Result<std::string> write_note(Store& store, const std::string& workspace, const json& args) {
  const std::string text = trimmed(string_arg(args, "text"));
  if (text.empty()) return Status::InvalidArgument("memory_write needs \"text\": the fact to remember, not empty");
  if (text.size() > kMaxNoteBytes) {
    return Status::InvalidArgument("note too long (" + std::to_string(text.size()) + " bytes, at most " +
                                   std::to_string(kMaxNoteBytes) + "); save a shorter summary");
  }
  const std::string tags = trimmed(string_arg(args, "tags"));
  Result<int64_t> id = store.memory_write(workspace, text, tags);
  if (!id.ok()) return store_failure("save the note", id.status());
  return "saved note " + std::to_string(*id);
}

Result<std::string> search_notes(Store& store, const std::string& workspace, const json& args) {
  const std::string query = trimmed(string_arg(args, "query"));
  if (query.empty()) return Status::InvalidArgument("memory_search needs \"query\": words to look for, not empty");
  Result<std::vector<MemoryHit>> hits =
      memory_search_with_shared(store, workspace, query, limit_arg(args, kSearchDefault, kSearchMax));
  if (!hits.ok()) return store_failure("search memory", hits.status());
  if (hits->empty()) {
    return "no notes match \"" + query + "\"; try other or fewer words, or memory_list to see the latest notes";
  }
  std::string out;
  for (const MemoryHit& h : *hits) out += note_line(h.note);
  return out;
}

Result<std::string> list_notes(Store& store, const std::string& workspace, const json& args) {
  Result<std::vector<MemoryNote>> notes =
      memory_list_with_shared(store, workspace, limit_arg(args, kListDefault, kListMax));
  if (!notes.ok()) return store_failure("list memory", notes.status());
  if (notes->empty()) return std::string("no notes saved yet; use memory_write to save one");
  std::string out;
  for (const MemoryNote& n : *notes) out += note_line(n);
  return out;
}

ToolSpec spec(const char* name, const char* description, const char* schema, bool read_only) {
  ToolTraits t;  // not cacheable: notes change as the agent writes them
  t.read_only = read_only;
  t.timeout_ms = 10000;
  return make_tool_spec(name, description, schema, t);
}

}  // namespace

Result<std::vector<MemoryNote>> memory_list_with_shared(Store& store, std::string_view workspace, int limit) {
  KEEL_ASSIGN_OR_RETURN(std::vector<MemoryNote> notes, store.memory_list(workspace, limit));
  if (workspace.empty()) return notes;
  KEEL_ASSIGN_OR_RETURN(std::vector<MemoryNote> shared, store.memory_list("", limit));
  notes.insert(notes.end(), shared.begin(), shared.end());
  std::stable_sort(notes.begin(), notes.end(), [](const MemoryNote& a, const MemoryNote& b) {
    return a.updated_ms != b.updated_ms ? a.updated_ms > b.updated_ms : a.id > b.id;
  });
  if (limit > 0 && notes.size() > static_cast<size_t>(limit)) notes.resize(static_cast<size_t>(limit));
  return notes;
}

Result<std::vector<MemoryHit>> memory_search_with_shared(Store& store, std::string_view workspace,
                                                         std::string_view query, int limit) {
  KEEL_ASSIGN_OR_RETURN(std::vector<MemoryHit> hits, store.memory_search(workspace, query, limit));
  if (workspace.empty()) return hits;
  KEEL_ASSIGN_OR_RETURN(std::vector<MemoryHit> shared, store.memory_search("", query, limit));
  hits.insert(hits.end(), shared.begin(), shared.end());
  // Scores of the two queries are comparable: both are bm25 over the same FTS table.
  std::stable_sort(hits.begin(), hits.end(), [](const MemoryHit& a, const MemoryHit& b) { return a.score > b.score; });
  if (limit > 0 && hits.size() > static_cast<size_t>(limit)) hits.resize(static_cast<size_t>(limit));
  return hits;
}

Status register_memory_tools(ToolRegistry& tools, Store& store, std::string workspace) {
  Store* s = &store;
  const std::string ws = std::move(workspace);
  KEEL_TRY(tools.add(
      make_tool(spec("memory_write",
                     "Save a note to long-term memory (facts, decisions, user preferences) so later sessions in this "
                     "workspace can find it.",
                     kWriteSchema, false),
                [s, ws](const json& args, const ToolContext&) { return write_note(*s, ws, args); })));
  KEEL_TRY(tools.add(make_tool(
      spec("memory_search", "Search long-term memory for notes matching any of the words in the query, best first.",
           kSearchSchema, true),
      [s, ws](const json& args, const ToolContext&) { return search_notes(*s, ws, args); })));
  KEEL_TRY(
      tools.add(make_tool(spec("memory_list", "List the most recent notes in long-term memory.", kListSchema, true),
                          [s, ws](const json& args, const ToolContext&) { return list_notes(*s, ws, args); })));
  return Status::Ok();
}

}  // namespace keel
