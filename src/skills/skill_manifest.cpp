// skill.json: the manifest of an executable skill, checked key by key so that every mistake is
// reported with the file and the key at fault.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "keel/core/skill_graph.hpp"
#include "keel/skill_runner.hpp"
#include "core/text/text_util.hpp"
#include "tools/schema_validator.hpp"

namespace keel {
namespace {

using detail::concat;
using nlohmann::json;

constexpr const char* kKnownKeys[] = {"id",          "version",      "description",  "model",     "triggers",
                                      "inputSchema", "outputSchema", "approvalMode", "timeoutMs", "maxTokens",
                                      "depends",     "skipWhen",     "provides",     "action"};

bool valid_id(std::string_view id) {
  if (id.empty() || id.size() > 64) return false;
  for (size_t i = 0; i < id.size(); ++i) {
    char c = id[i];
    bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || (c == '-' && i > 0);
    if (!ok) return false;
  }
  return true;
}

// Builds "<file>: <key>: <problem>" messages.
class Problems {
 public:
  explicit Problems(std::string_view file) : file_(file) {}
  Status at(std::string_view key, std::string_view problem) const {
    std::string msg(file_);
    msg.append(": ");
    if (!key.empty()) msg.append("key '").append(key).append("': ");
    msg.append(problem);
    return Status::InvalidArgument(std::move(msg));
  }

 private:
  std::string file_;
};

Result<std::string> string_of(const json& doc, const char* key, const Problems& p) {
  auto it = doc.find(key);
  if (it == doc.end()) return std::string();
  if (!it->is_string()) return p.at(key, "must be a string");
  return it->get<std::string>();
}

// A list of non-empty strings; a single string counts as a list of one when `allow_single`.
Result<std::vector<std::string>> strings_of(const json& doc, const char* key, const Problems& p, bool allow_single) {
  std::vector<std::string> out;
  auto it = doc.find(key);
  if (it == doc.end()) return out;
  if (allow_single && it->is_string()) {
    out.push_back(it->get<std::string>());
  } else if (it->is_array()) {
    for (const json& v : *it) {
      if (!v.is_string()) {
        return p.at(key, allow_single ? "must be a string or an array of strings" : "must be an array of strings");
      }
      out.push_back(v.get<std::string>());
    }
  } else {
    return p.at(key, allow_single ? "must be a string or an array of strings" : "must be an array of strings");
  }
  for (const std::string& s : out) {
    if (s.empty()) return p.at(key, "has an empty string");
  }
  return out;
}

Result<int64_t> positive_of(const json& doc, const char* key, const Problems& p, int64_t fallback, int64_t max) {
  auto it = doc.find(key);
  if (it == doc.end()) return fallback;
  if (!it->is_number_integer() || it->get<int64_t>() < 1 || it->get<int64_t>() > max) {
    return p.at(key, concat({"must be an integer from 1 to ", std::to_string(max), ", got ", it->dump()}));
  }
  return it->get<int64_t>();
}

// A schema given inline as a JSON object, compiled to prove it is usable.
Result<std::string> schema_of(const json& doc, const char* key, const Problems& p, bool required) {
  auto it = doc.find(key);
  if (it == doc.end()) {
    if (required) return p.at(key, "is missing: every executable skill declares the JSON Schema of its output");
    return std::string();
  }
  if (!it->is_object()) return p.at(key, "must be a JSON Schema object");
  std::string text = it->dump();
  auto compiled = detail::CompiledSchema::compile(text);
  if (!compiled.ok()) return p.at(key, concat({"is not a usable JSON Schema: ", compiled.status().message()}));
  return text;
}

Result<std::optional<SkillAction>> action_of(const json& doc, const Problems& p) {
  auto it = doc.find("action");
  if (it == doc.end()) return std::optional<SkillAction>();
  if (!it->is_object()) return p.at("action", "must be an object {\"tool\": NAME, \"argumentsPointer\": \"/path\"}");
  SkillAction a;
  for (auto m = it->begin(); m != it->end(); ++m) {
    if (m.key() == "tool" && m->is_string()) {
      a.tool = m->get<std::string>();
    } else if (m.key() == "argumentsPointer" && m->is_string()) {
      a.arguments_pointer = m->get<std::string>();
    } else if (m.key() == "tool" || m.key() == "argumentsPointer") {
      return p.at(concat({"action.", m.key()}), "must be a string");
    } else {
      return p.at(concat({"action.", m.key()}), "is not a known key (known: tool, argumentsPointer)");
    }
  }
  if (a.tool.empty()) return p.at("action.tool", "is missing: name the tool the action calls");
  if (!a.arguments_pointer.empty() && a.arguments_pointer.front() != '/') {
    return p.at("action.argumentsPointer", "must be \"\" (the whole output) or a JSON Pointer such as \"/arguments\"");
  }
  try {
    (void)json::json_pointer(a.arguments_pointer);
  } catch (const json::exception& e) {
    return p.at("action.argumentsPointer", concat({"is not a valid JSON Pointer: ", e.what()}));
  }
  return std::optional<SkillAction>(std::move(a));
}

Result<SkillManifest> parse_document(const json& doc, const Problems& p) {
  if (!doc.is_object()) return p.at("", "must hold one JSON object");
  for (auto it = doc.begin(); it != doc.end(); ++it) {
    bool known = false;
    for (const char* k : kKnownKeys) known = known || it.key() == k;
    if (!known) {
      return p.at(it.key(),
                  "is not a known key (known: id, version, description, model, triggers, inputSchema, "
                  "outputSchema, approvalMode, timeoutMs, maxTokens, depends, skipWhen, provides, action)");
    }
  }
  SkillManifest m;
  KEEL_ASSIGN_OR_RETURN(m.id, string_of(doc, "id", p));
  if (!doc.contains("id")) return p.at("id", "is missing");
  if (!valid_id(m.id)) {
    return p.at(
        "id",
        concat({"'", m.id,
                "' is not a skill id: use lowercase letters, digits and '-' (not first), at most 64 characters"}));
  }
  KEEL_ASSIGN_OR_RETURN(m.version, string_of(doc, "version", p));
  KEEL_ASSIGN_OR_RETURN(m.description, string_of(doc, "description", p));
  KEEL_ASSIGN_OR_RETURN(m.model, string_of(doc, "model", p));
  KEEL_ASSIGN_OR_RETURN(m.triggers, strings_of(doc, "triggers", p, false));
  KEEL_ASSIGN_OR_RETURN(m.input_schema, schema_of(doc, "inputSchema", p, false));
  KEEL_ASSIGN_OR_RETURN(m.output_schema, schema_of(doc, "outputSchema", p, true));
  KEEL_ASSIGN_OR_RETURN(std::string mode, string_of(doc, "approvalMode", p));
  if (!mode.empty()) {
    std::optional<SkillApprovalMode> parsed = parse_skill_approval_mode(mode);
    if (!parsed) {
      return p.at("approvalMode",
                  concat({"'", mode, "' is not an approval mode (use advisory, proposal or auto-run-eligible)"}));
    }
    m.approval_mode = *parsed;
  }
  KEEL_ASSIGN_OR_RETURN(m.timeout_ms, positive_of(doc, "timeoutMs", p, m.timeout_ms, 3'600'000));
  if (doc.contains("maxTokens")) {
    KEEL_ASSIGN_OR_RETURN(int64_t tokens, positive_of(doc, "maxTokens", p, 0, 1'000'000));
    m.max_tokens = static_cast<int>(tokens);
  }
  KEEL_ASSIGN_OR_RETURN(m.depends, strings_of(doc, "depends", p, false));
  for (const std::string& d : m.depends) {
    if (!valid_id(d)) return p.at("depends", concat({"'", d, "' is not a skill id"}));
    if (d == m.id) return p.at("depends", concat({"skill cycle: ", m.id, " → ", m.id}));
  }
  KEEL_ASSIGN_OR_RETURN(m.skip_when, strings_of(doc, "skipWhen", p, true));
  for (const std::string& c : m.skip_when) {
    if (Result<SkipCondition> parsed = parse_skip_condition(c); !parsed.ok()) {
      return p.at("skipWhen", parsed.status().message());
    }
  }
  KEEL_ASSIGN_OR_RETURN(m.provides, strings_of(doc, "provides", p, false));
  KEEL_ASSIGN_OR_RETURN(m.action, action_of(doc, p));
  if (m.approval_mode == SkillApprovalMode::kAutoRunEligible && !m.action) {
    return p.at("approvalMode", "auto-run-eligible needs an action: the tool to run (\"action\": {\"tool\": ...})");
  }
  return m;
}

}  // namespace

Result<SkillManifest> parse_skill_manifest(std::string_view json_text, std::string_view file) {
  Problems p(file);
  json doc;
  try {
    doc = json::parse(json_text);
  } catch (const json::exception& e) {
    return p.at("", concat({"is not valid JSON: ", e.what()}));
  }
  try {
    return parse_document(doc, p);
  } catch (const json::exception& e) {
    return p.at("", concat({"could not be read: ", e.what()}));
  }
}

}  // namespace keel
