// KeelCatalog: sessions rendered as markdown transcripts, memory notes, knowledge skills as
// prompts, and the dispatch of URIs and completion references to them (workspace files are in
// keel_catalog_files.cpp).
#include "mcp_server/keel_catalog.hpp"

#include <algorithm>
#include <charconv>
#include <functional>
#include <system_error>
#include <utility>

#include "core/text/utf8_text.hpp"
#include "keel/memory_tools.hpp"

namespace keel::mcp {
namespace {

constexpr std::string_view catalog_kSessionTemplate = "keel://sessions/{id}";
constexpr std::string_view catalog_kNoteTemplate = "keel://memory/{id}";
constexpr std::string_view catalog_kFileTemplate = "file://{+path}";
constexpr std::string_view catalog_kSessionPrefix = "keel://sessions/";
constexpr std::string_view catalog_kNotePrefix = "keel://memory/";
constexpr size_t catalog_kNoteNameBytes = 80;  // a note's name: its first line, cut at this length

// The longest run of backticks in `text`.
size_t catalog_longest_backtick_run(std::string_view text) {
  size_t longest = 0;
  size_t run = 0;
  for (char c : text) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  return longest;
}

// `text` as an inline code span that its own backticks cannot close early.
std::string catalog_code_span(std::string_view text) {
  std::string ticks(catalog_longest_backtick_run(text) + 1, '`');
  bool pad = !text.empty() && (text.front() == '`' || text.back() == '`');
  std::string out = ticks;
  if (pad) out += ' ';
  out += text;
  if (pad) out += ' ';
  return out + ticks;
}

// `text` as a fenced code block whose fence is longer than any backtick run in it.
std::string catalog_code_block(std::string_view text) {
  std::string fence(std::max<size_t>(3, catalog_longest_backtick_run(text) + 1), '`');
  std::string out = fence + "\n";
  out += text;
  if (!text.empty() && text.back() != '\n') out += '\n';
  return out + fence + "\n";
}

std::string_view catalog_trim_end(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ' || text.back() == '\t')) {
    text.remove_suffix(1);
  }
  return text;
}

std::string catalog_session_name(const SessionRecord& s) {
  return s.title.empty() ? s.id : s.title;
}

// "3 messages, model openai:gpt-4o".
std::string catalog_session_facts(const SessionRecord& s) {
  std::string out = std::to_string(s.message_count) + (s.message_count == 1 ? " message" : " messages");
  if (!s.model.empty()) out += ", model " + s.model;
  return out;
}

std::string catalog_session_description(const SessionRecord& s) {
  return "keel session, " + catalog_session_facts(s);
}

// One stored message as a markdown section: a heading with its position and role, its text, its
// tool calls as `name(arguments)` lines, and a tool result's output in a code block.
void catalog_render_message(const StoredMessage& stored, std::string& out) {
  const Message& m = stored.message;
  out += "## " + std::to_string(stored.seq) + ". ";
  if (m.role == Role::kTool) {
    out += "tool result for call " + m.tool_call_id;
    if (!m.name.empty()) out += " (" + m.name + ")";
    auto status = m.metadata.find("status");
    if (status != m.metadata.end() && status->second != "ok") out += ", " + status->second;
    out += "\n\n";
    out += catalog_code_block(m.content);
    out += '\n';
    return;
  }
  out += role_name(m.role);
  out += "\n\n";
  std::string_view text = catalog_trim_end(m.content);
  if (!text.empty()) {
    out += text;
    out += "\n\n";
  }
  for (const ToolCall& call : m.tool_calls) {
    out += "- tool call " + call.id + ": " + catalog_code_span(call.name + "(" + call.arguments + ")") + "\n";
  }
  if (!m.tool_calls.empty()) out += '\n';
}

std::string catalog_render_transcript(const SessionRecord& s, const std::vector<StoredMessage>& messages) {
  std::string out = "# " + catalog_session_name(s) + "\n\n";
  out += "keel session " + s.id + ", " + catalog_session_facts(s) + ".\n\n";
  for (const StoredMessage& m : messages) catalog_render_message(m, out);
  return out;
}

std::string catalog_note_text(const MemoryNote& note) {
  std::string text = note.text;
  if (!note.tags.empty()) text += "\n\ntags: " + note.tags;
  return text;
}

std::string catalog_note_name(const MemoryNote& note) {
  std::string_view first = note.text;
  first = first.substr(0, first.find('\n'));
  if (first.size() > catalog_kNoteNameBytes) {
    first = first.substr(0, detail::utf8_cut_length(first, catalog_kNoteNameBytes));
    return std::string(first) + "...";
  }
  return first.empty() ? "note " + std::to_string(note.id) : std::string(first);
}

std::string catalog_hex(size_t value) {
  char buf[2 * sizeof(size_t) + 1];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), value, 16);
  (void)ec;
  return std::string(buf, end);
}

// The enabled skill called `name` (the first of that name), or nullptr.
const KnowledgeSkill* catalog_find_skill(const std::vector<KnowledgeSkill>& skills, const std::string& name) {
  for (const KnowledgeSkill& s : skills) {
    if (s.enabled && s.name == name) return &s;
  }
  return nullptr;
}

std::vector<std::string> catalog_cap(std::vector<std::string> values) {
  if (values.size() > kCatalogCompletionValues) values.resize(kCatalogCompletionValues);
  return values;
}

}  // namespace

KeelCatalog::KeelCatalog(KeelCatalogOptions options) : options_(std::move(options)) {
  if (!options_.workspace.empty()) {
    std::error_code ec;
    std::filesystem::path canonical = std::filesystem::weakly_canonical(options_.workspace, ec);
    if (!ec && canonical.is_absolute()) root_ = canonical.lexically_normal();
    // "/ws/" and "/ws" are the same folder; keep the form without the trailing separator.
    if (!root_.empty() && !root_.has_filename() && root_ != root_.root_path()) root_ = root_.parent_path();
  }
}

// ---------------------------------------------------------------- resources

std::vector<ResourceEntry> KeelCatalog::resources() const {
  std::vector<ResourceEntry> out;
  if (options_.store != nullptr) {
    SessionFilter filter;
    filter.workspace = options_.workspace;
    filter.limit = kCatalogSessionsListed;
    Result<std::vector<SessionRecord>> sessions = options_.store->list_sessions(filter);
    if (sessions.ok()) {
      for (const SessionRecord& s : *sessions) {
        out.push_back({std::string(catalog_kSessionPrefix) + s.id, catalog_session_name(s), "",
                       catalog_session_description(s), "text/markdown", -1});
      }
    }
    Result<std::vector<MemoryNote>> notes =
        memory_list_with_shared(*options_.store, options_.workspace, kCatalogNotesListed);
    if (notes.ok()) {
      for (const MemoryNote& n : *notes) {
        std::string description = n.workspace.empty() ? "keel memory note (shared)" : "keel memory note";
        if (!n.tags.empty()) description += ", tags: " + n.tags;
        out.push_back({std::string(catalog_kNotePrefix) + std::to_string(n.id), catalog_note_name(n), "", description,
                       "text/plain", static_cast<int64_t>(catalog_note_text(n).size())});
      }
    }
  }
  std::vector<ResourceEntry> files = file_resources();
  out.insert(out.end(), files.begin(), files.end());
  return out;
}

std::vector<ResourceTemplateEntry> KeelCatalog::resource_templates() const {
  std::vector<ResourceTemplateEntry> out;
  if (options_.store != nullptr) {
    out.push_back({std::string(catalog_kSessionTemplate), "session", "",
                   "A keel session of this workspace as a markdown transcript: its messages, tool calls and "
                   "tool results",
                   "text/markdown"});
    out.push_back({std::string(catalog_kNoteTemplate), "memory note", "",
                   "A keel memory note of this workspace (or a shared one) by its number", "text/plain"});
  }
  if (!root_.empty()) {
    out.push_back({std::string(catalog_kFileTemplate), "workspace file", "",
                   "A file inside the workspace " + root_.string() + ", by its absolute path", ""});
  }
  return out;
}

Result<SessionRecord> KeelCatalog::find_session(const std::string& id) const {
  // One message for an unknown id and another workspace's session, so neither reveals the other.
  const std::string unknown = "no session '" + id + "' in this workspace";
  if (options_.store == nullptr) return Status::NotFound(unknown);
  Result<SessionRecord> record = options_.store->get_session(id);
  if (!record.ok()) {
    if (record.status().code() == ErrorCode::kNotFound) return Status::NotFound(unknown);
    return record.status();
  }
  bool ours = record->workspace == options_.workspace || (!root_.empty() && record->workspace == root_.string());
  if (!ours) return Status::NotFound(unknown);
  return record;
}

Result<MemoryNote> KeelCatalog::find_note(const std::string& id) const {
  const std::string unknown = "no memory note '" + id + "' in this workspace";
  int64_t number = 0;
  auto [end, ec] = std::from_chars(id.data(), id.data() + id.size(), number);
  if (options_.store == nullptr || id.empty() || ec != std::errc() || end != id.data() + id.size() || number <= 0) {
    return Status::NotFound(unknown);
  }
  KEEL_ASSIGN_OR_RETURN(std::vector<MemoryNote> notes, memory_list_with_shared(*options_.store, options_.workspace, 0));
  for (MemoryNote& n : notes) {
    if (n.id == number) return std::move(n);
  }
  return Status::NotFound(unknown);
}

Result<nlohmann::json> KeelCatalog::read_resource(const std::string& uri) const {
  using Json = nlohmann::json;
  if (uri.starts_with(catalog_kSessionPrefix) && options_.store != nullptr) {
    auto vars = match_uri_template(catalog_kSessionTemplate, uri);
    if (!vars) return Status::NotFound("unknown resource " + uri);
    KEEL_ASSIGN_OR_RETURN(SessionRecord session, find_session(vars->at("id")));
    KEEL_ASSIGN_OR_RETURN(std::vector<StoredMessage> messages, options_.store->load_messages(session.id));
    return Json::array(
        {{{"uri", uri}, {"mimeType", "text/markdown"}, {"text", catalog_render_transcript(session, messages)}}});
  }
  if (uri.starts_with(catalog_kNotePrefix) && options_.store != nullptr) {
    auto vars = match_uri_template(catalog_kNoteTemplate, uri);
    if (!vars) return Status::NotFound("unknown resource " + uri);
    KEEL_ASSIGN_OR_RETURN(MemoryNote note, find_note(vars->at("id")));
    return Json::array({{{"uri", uri}, {"mimeType", "text/plain"}, {"text", catalog_note_text(note)}}});
  }
  if (uri.starts_with("file://")) return read_file_resource(uri);
  return Status::NotFound("unknown resource " + uri);
}

Result<std::string> KeelCatalog::resource_version(const std::string& uri) const {
  if (uri.starts_with(catalog_kSessionPrefix) && options_.store != nullptr) {
    auto vars = match_uri_template(catalog_kSessionTemplate, uri);
    if (!vars) return Status::NotFound("unknown resource " + uri);
    KEEL_ASSIGN_OR_RETURN(SessionRecord session, find_session(vars->at("id")));
    return std::to_string(session.message_count) + ":" + std::to_string(session.updated_ms);
  }
  if (uri.starts_with(catalog_kNotePrefix) && options_.store != nullptr) {
    auto vars = match_uri_template(catalog_kNoteTemplate, uri);
    if (!vars) return Status::NotFound("unknown resource " + uri);
    KEEL_ASSIGN_OR_RETURN(MemoryNote note, find_note(vars->at("id")));
    std::string text = catalog_note_text(note);
    return std::to_string(note.updated_ms) + ":" + std::to_string(text.size()) + ":" +
           catalog_hex(std::hash<std::string>{}(text));
  }
  if (uri.starts_with("file://")) return file_version(uri);
  return Status::NotFound("unknown resource " + uri);
}

// ---------------------------------------------------------------- prompts

std::vector<PromptEntry> KeelCatalog::prompts() const {
  std::vector<PromptEntry> out;
  for (const KnowledgeSkill& s : options_.skills) {
    if (!s.enabled || catalog_find_skill(options_.skills, s.name) != &s) continue;  // disabled or hidden
    out.push_back({s.name, "", s.description, {{"task", "What to apply the skill to", false}}});
  }
  return out;
}

Result<nlohmann::json> KeelCatalog::get_prompt(const std::string& name,
                                               const std::map<std::string, std::string>& arguments) const {
  using Json = nlohmann::json;
  const KnowledgeSkill* skill = catalog_find_skill(options_.skills, name);
  if (skill == nullptr) return Status::NotFound("unknown prompt " + name);
  for (const auto& [key, value] : arguments) {
    (void)value;
    if (key != "task") {
      return Status::InvalidArgument("prompt " + name + " has no argument '" + key + "'; its only argument is task");
    }
  }
  std::string text(catalog_trim_end(skill->body));
  if (!skill->resources.empty()) text += "\n\nFiles in this skill: " + detail::join(skill->resources, ", ");
  auto task = arguments.find("task");
  if (task != arguments.end() && !task->second.empty()) text += "\n\nTask: " + task->second;
  return Json::array({{{"role", "user"}, {"content", {{"type", "text"}, {"text", text}}}}});
}

// ---------------------------------------------------------------- completions

Result<std::vector<std::string>> KeelCatalog::complete_session_ids(const std::string& prefix) const {
  SessionFilter filter;
  filter.workspace = options_.workspace;
  filter.limit = 0;
  KEEL_ASSIGN_OR_RETURN(std::vector<SessionRecord> sessions, options_.store->list_sessions(filter));
  std::vector<std::string> out;
  for (const SessionRecord& s : sessions) {
    if (s.id.starts_with(prefix)) out.push_back(s.id);
    if (out.size() == kCatalogCompletionValues) break;
  }
  return out;
}

Result<std::vector<std::string>> KeelCatalog::complete_note_ids(const std::string& prefix) const {
  KEEL_ASSIGN_OR_RETURN(std::vector<MemoryNote> notes, memory_list_with_shared(*options_.store, options_.workspace, 0));
  std::vector<std::string> out;
  for (const MemoryNote& n : notes) {
    std::string id = std::to_string(n.id);
    if (id.starts_with(prefix)) out.push_back(std::move(id));
    if (out.size() == kCatalogCompletionValues) break;
  }
  return out;
}

Result<std::vector<std::string>> KeelCatalog::complete(const CompletionQuery& query) const {
  if (query.is_prompt) {
    // A skill's only argument, task, is free text: nothing to offer.
    if (catalog_find_skill(options_.skills, query.ref) == nullptr) {
      return Status::NotFound("unknown prompt " + query.ref);
    }
    return std::vector<std::string>{};
  }
  if (options_.store != nullptr && query.ref == catalog_kSessionTemplate) {
    if (query.argument != "id") return std::vector<std::string>{};
    return complete_session_ids(query.value);
  }
  if (options_.store != nullptr && query.ref == catalog_kNoteTemplate) {
    if (query.argument != "id") return std::vector<std::string>{};
    return complete_note_ids(query.value);
  }
  if (!root_.empty() && query.ref == catalog_kFileTemplate) {
    if (query.argument != "path") return std::vector<std::string>{};
    return catalog_cap(complete_file_paths(query.value));
  }
  return Status::NotFound("unknown resource template " + query.ref);
}

}  // namespace keel::mcp
