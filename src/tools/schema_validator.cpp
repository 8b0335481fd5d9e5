#include "tools/schema_validator.hpp"

// valijson reports schema problems by calling throwRuntimeError(); without this switch it prints
// and aborts. <stdexcept> must come first: valijson includes it inside its own namespace.
#include <stdexcept>
#define VALIJSON_USE_EXCEPTIONS 1
#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validation_results.hpp>
#include <valijson/validator.hpp>

#include <algorithm>
#include <optional>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "core/text/utf8_text.hpp"

namespace keel::detail {

struct CompiledSchema::Impl {
  nlohmann::json json;
  valijson::Schema schema;
};

namespace {

using Tokens = std::vector<std::string>;

// "/a/b~1c" from {"a", "b/c"} (RFC 6901 escaping); "(root)" for the empty pointer.
std::string to_pointer(const Tokens& tokens) {
  if (tokens.empty()) return "(root)";
  std::string out;
  for (const std::string& t : tokens) {
    out += '/';
    for (char c : t) {
      if (c == '~') out += "~0";
      else if (c == '/') out += "~1";
      else out += c;
    }
  }
  return out;
}

// valijson's context is {"<root>", "[name]", "[0]", ...}.
Tokens context_tokens(const std::vector<std::string>& context) {
  Tokens tokens;
  for (size_t i = 1; i < context.size(); ++i) {
    const std::string& c = context[i];
    if (c.size() >= 2 && c.front() == '[' && c.back() == ']') tokens.push_back(c.substr(1, c.size() - 2));
    else tokens.push_back(c);
  }
  return tokens;
}

std::optional<size_t> to_index(const std::string& token) {
  if (token.empty() || token.size() > 9 || token.find_first_not_of("0123456789") != std::string::npos) return {};
  return static_cast<size_t>(std::stoul(token));
}

// The value inside `doc` at `tokens`, or nullptr.
const nlohmann::json* instance_at(const nlohmann::json& doc, const Tokens& tokens) {
  const nlohmann::json* node = &doc;
  for (const std::string& t : tokens) {
    if (node->is_object()) {
      auto it = node->find(t);
      if (it == node->end()) return nullptr;
      node = &*it;
    } else if (node->is_array()) {
      auto index = to_index(t);
      if (!index || *index >= node->size()) return nullptr;
      node = &(*node)[*index];
    } else {
      return nullptr;
    }
  }
  return node;
}

// The subschema that governs the value at `tokens` (following properties, additionalProperties
// and items only), or nullptr when it cannot be found that simply.
const nlohmann::json* schema_at(const nlohmann::json& schema, const Tokens& tokens) {
  const nlohmann::json* node = &schema;
  for (const std::string& t : tokens) {
    if (!node->is_object()) return nullptr;
    auto props = node->find("properties");
    if (props != node->end() && props->is_object() && props->contains(t)) {
      node = &(*props)[t];
      continue;
    }
    auto items = node->find("items");
    if (items != node->end() && items->is_object() && to_index(t)) {
      node = &*items;
      continue;
    }
    auto extra = node->find("additionalProperties");
    if (extra != node->end() && extra->is_object()) {
      node = &*extra;
      continue;
    }
    return nullptr;
  }
  return node;
}

std::string json_type_name(const nlohmann::json& v) {
  if (v.is_null()) return "null";
  if (v.is_boolean()) return "boolean";
  if (v.is_number_integer()) return "integer";
  if (v.is_number()) return "number";
  if (v.is_string()) return "string";
  if (v.is_array()) return "array";
  return "object";
}

bool starts_with(const std::string& s, std::string_view prefix) { return s.rfind(prefix, 0) == 0; }

// The text between the last pair of single quotes, e.g. the property name in
// "Missing required property 'path'.".
std::string last_quoted(const std::string& s) {
  const size_t close = s.rfind('\'');
  if (close == std::string::npos || close == 0) return {};
  const size_t open = s.rfind('\'', close - 1);
  if (open == std::string::npos) return {};
  return s.substr(open + 1, close - open - 1);
}

std::string schema_keyword(const nlohmann::json* node, const char* key) {
  if (node == nullptr || !node->is_object() || !node->contains(key)) return {};
  return (*node)[key].dump();
}

// One readable "pointer: problem" line for a valijson error; empty for wrapper errors that only
// repeat a failure already reported at a deeper path.
std::string describe(const valijson::ValidationResults::Error& error, const nlohmann::json& schema,
                     const nlohmann::json& instance) {
  const std::string& d = error.description;
  if (starts_with(d, "Failed to validate against schema associated with") ||
      starts_with(d, "Failed to validate against additional properties schema") ||
      starts_with(d, "Failed to validate item #")) {
    return {};
  }
  Tokens tokens = context_tokens(error.context);
  const nlohmann::json* node = schema_at(schema, tokens);
  const nlohmann::json* value = instance_at(instance, tokens);

  if (starts_with(d, "Missing required property")) {
    tokens.push_back(last_quoted(d));
    return to_pointer(tokens) + ": missing required property";
  }
  if (starts_with(d, "Object contains a property that could not be validated")) {
    std::vector<std::string> allowed;
    if (node != nullptr && node->contains("properties") && (*node)["properties"].is_object()) {
      for (const auto& [key, sub] : (*node)["properties"].items()) allowed.push_back(key);
    }
    tokens.push_back(last_quoted(d));
    std::string line = to_pointer(tokens) + ": unknown property";
    if (!allowed.empty()) line += " (allowed: " + join(allowed, ", ") + ")";
    return line;
  }
  if (starts_with(d, "Value type not permitted by 'type' constraint")) {
    std::string expected = "another type";
    if (node != nullptr && node->contains("type")) {
      const nlohmann::json& type = (*node)["type"];
      if (type.is_string()) {
        expected = type.get<std::string>();
      } else if (type.is_array()) {
        std::vector<std::string> names;
        for (const auto& t : type) names.push_back(t.is_string() ? t.get<std::string>() : t.dump());
        expected = join(names, " or ");
      }
    }
    std::string line = to_pointer(tokens) + ": expected " + expected;
    if (value != nullptr) line += ", got " + json_type_name(*value);
    return line;
  }
  if (starts_with(d, "Failed to match against any enum values")) {
    std::string allowed = schema_keyword(node, "enum");
    return to_pointer(tokens) + ": must be one of " + (allowed.empty() ? "the allowed values" : allowed);
  }
  struct Bound {
    std::string_view prefix, keyword, op;
  };
  static constexpr Bound kBounds[] = {
      {"Expected number greater than or equal to", "minimum", ">="},
      {"Expected number greater than", "exclusiveMinimum", ">"},
      {"Expected number less than or equal to", "maximum", "<="},
      {"Expected number less than", "exclusiveMaximum", "<"},
  };
  for (const Bound& b : kBounds) {
    if (!starts_with(d, b.prefix)) continue;
    std::string limit = schema_keyword(node, std::string(b.keyword).c_str());
    if (limit.empty()) limit = d.substr(b.prefix.size());
    return to_pointer(tokens) + ": must be " + std::string(b.op) + " " + limit;
  }
  // Anything else: valijson's sentence, lower-cased and without the final period.
  std::string text = d;
  if (!text.empty() && text.back() == '.') text.pop_back();
  if (!text.empty() && text[0] >= 'A' && text[0] <= 'Z') text[0] = static_cast<char>(text[0] - 'A' + 'a');
  return to_pointer(tokens) + ": " + text;
}

// valijson compiles "pattern" regexes (std::regex, ECMAScript) only when validating; compiling
// them here rejects a schema with a broken pattern at registration instead. Data keywords are
// skipped: their contents are values, not schemas.
Status check_patterns(const nlohmann::json& node) {
  if (node.is_array()) {
    for (const auto& item : node) KEEL_TRY(check_patterns(item));
    return Status::Ok();
  }
  if (!node.is_object()) return Status::Ok();
  for (const auto& [key, value] : node.items()) {
    if (key == "enum" || key == "const" || key == "default" || key == "examples") continue;
    std::vector<std::string> patterns;
    if (key == "pattern" && value.is_string()) patterns.push_back(value.get<std::string>());
    if (key == "patternProperties" && value.is_object()) {
      for (const auto& [pattern, sub] : value.items()) patterns.push_back(pattern);
    }
    for (const std::string& pattern : patterns) {
      try {
        std::regex re(pattern);
      } catch (const std::regex_error& e) {
        return Status::InvalidArgument("parameters_schema has an invalid pattern '" + pattern + "': " + e.what());
      }
    }
    KEEL_TRY(check_patterns(value));
  }
  return Status::Ok();
}

}  // namespace

CompiledSchema::CompiledSchema(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
CompiledSchema::~CompiledSchema() = default;

const nlohmann::json& CompiledSchema::json() const { return impl_->json; }

Result<std::shared_ptr<const CompiledSchema>> CompiledSchema::compile(std::string_view schema_text) {
  auto impl = std::make_unique<Impl>();
  try {
    impl->json = nlohmann::json::parse(schema_text);
  } catch (const nlohmann::json::exception& e) {
    return Status::InvalidArgument(std::string("parameters_schema is not valid JSON: ") + e.what());
  }
  if (!impl->json.is_object()) {
    return Status::InvalidArgument("parameters_schema must be a JSON object, got " + json_type_name(impl->json));
  }
  KEEL_TRY(check_patterns(impl->json));
  try {
    valijson::SchemaParser parser(valijson::SchemaParser::kDraft7);
    valijson::adapters::NlohmannJsonAdapter adapter(impl->json);
    parser.populateSchema(adapter, impl->schema);
  } catch (const std::exception& e) {
    return Status::InvalidArgument(std::string("parameters_schema is not a valid JSON Schema: ") + e.what());
  }
  return std::shared_ptr<const CompiledSchema>(new CompiledSchema(std::move(impl)));
}

Status CompiledSchema::validate(const nlohmann::json& value, std::string_view tool_name) const {
  valijson::ValidationResults results;
  bool ok = false;
  try {
    valijson::Validator validator(valijson::Validator::kStrongTypes);
    valijson::adapters::NlohmannJsonAdapter adapter(value);
    ok = validator.validate(impl_->schema, adapter, &results);
  } catch (const std::exception& e) {
    // e.g. a "pattern" that std::regex cannot compile: the schema, not the call, is at fault.
    return Status::Internal("the schema of " + std::string(tool_name) + " could not be applied: " + e.what());
  }
  if (ok) return Status::Ok();

  std::vector<std::string> lines;
  std::set<std::string> seen;
  for (const auto& error : results) {
    std::string line = describe(error, impl_->json, value);
    if (!line.empty() && seen.insert(line).second) lines.push_back(std::move(line));
  }
  // Missing fields first: they are usually the root cause of the other complaints.
  std::stable_partition(lines.begin(), lines.end(), [](const std::string& line) {
    return line.ends_with(": missing required property");
  });
  if (lines.empty()) lines.push_back("(root): does not match the schema");
  return Status::InvalidArgument("invalid arguments for " + std::string(tool_name) + ": " + join(lines, "; "));
}

}  // namespace keel::detail
