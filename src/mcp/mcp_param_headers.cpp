// Headers mirrored from an MCP 2026-07-28 request body; see mcp_param_headers.hpp.
#include "mcp/mcp_param_headers.hpp"

#include <set>

#include "core/text/base64.hpp"
#include "core/text/text_util.hpp"

namespace keel::mcp {

using nlohmann::json;

namespace {

constexpr std::string_view kSentinelOpen = "=?base64?";
constexpr std::string_view kSentinelClose = "?=";
constexpr int64_t kMaxSafeInteger = 9007199254740991;  // 2^53 - 1

bool is_token_char(char c) {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return true;
  return std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

// Walks `schema` and reports each x-mcp-header: where it sits (true when reached through
// `properties` alone from the root), its name and the property's schema.
struct Annotation {
  bool reachable = false;
  std::string name;
  const json* property = nullptr;
  std::vector<std::string> path;  // the properties chain
};

void collect(const json& node, bool reachable, std::vector<std::string>& path, std::vector<Annotation>& out) {
  if (node.is_array()) {
    for (const json& item : node) collect(item, false, path, out);
    return;
  }
  if (!node.is_object()) return;
  if (auto h = node.find("x-mcp-header"); h != node.end()) {
    out.push_back({reachable && !path.empty(), h->is_string() ? h->get<std::string>() : std::string(), &node, path});
  }
  for (const auto& [key, value] : node.items()) {
    if (key == "properties" && value.is_object()) {
      for (const auto& [name, property] : value.items()) {
        path.push_back(name);
        collect(property, reachable, path, out);
        path.pop_back();
      }
    } else if (key != "x-mcp-header") {
      collect(value, false, path, out);  // items, oneOf, $defs, if/then/else: not statically reachable
    }
  }
}

std::vector<Annotation> annotations_of(const json& schema) {
  std::vector<Annotation> out;
  std::vector<std::string> path;
  collect(schema, true, path, out);
  return out;
}

}  // namespace

std::string mirrored_header_value(const std::string& text) {
  bool plain =
      !text.empty() && text.front() != ' ' && text.front() != '\t' && text.back() != ' ' && text.back() != '\t';
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u > 0x7e) plain = false;
  }
  const bool looks_encoded =
      text.size() >= kSentinelOpen.size() + kSentinelClose.size() &&
      text.compare(0, kSentinelOpen.size(), kSentinelOpen) == 0 &&
      text.compare(text.size() - kSentinelClose.size(), kSentinelClose.size(), kSentinelClose) == 0;
  if (plain && !looks_encoded) return text;
  return std::string(kSentinelOpen) + keel::detail::base64_encode(text) + std::string(kSentinelClose);
}

Status check_param_annotations(const json& input_schema) {
  std::set<std::string> seen;
  for (const Annotation& a : annotations_of(input_schema)) {
    if (!a.reachable) {
      return Status::InvalidArgument("x-mcp-header '" + a.name +
                                     "' is not on a property reached through `properties` alone (inside items, a "
                                     "composition, a condition or $defs)");
    }
    if (a.name.empty()) return Status::InvalidArgument("an x-mcp-header is empty (or not a string)");
    for (char c : a.name) {
      if (!is_token_char(c)) return Status::InvalidArgument("x-mcp-header '" + a.name + "' is not an HTTP field name");
    }
    if (!seen.insert(keel::detail::lowercase(a.name)).second) {
      return Status::InvalidArgument("x-mcp-header '" + a.name + "' is used twice");
    }
    const std::string type = a.property->value("type", "");
    if (type != "string" && type != "integer" && type != "boolean") {
      return Status::InvalidArgument("x-mcp-header '" + a.name + "' is on a property of type '" + type +
                                     "'; only string, integer and boolean may be mirrored");
    }
  }
  return Status::Ok();
}

std::vector<std::string> param_header_lines(const json& input_schema, const json& arguments) {
  std::vector<std::string> lines;
  for (const Annotation& a : annotations_of(input_schema)) {
    if (!a.reachable || a.name.empty()) continue;
    const json* value = &arguments;
    for (const std::string& step : a.path) {
      if (!value->is_object() || !value->contains(step)) {
        value = nullptr;
        break;
      }
      value = &(*value)[step];
    }
    if (value == nullptr || value->is_null()) continue;
    std::string text;
    if (value->is_string()) {
      text = value->get<std::string>();
    } else if (value->is_boolean()) {
      text = value->get<bool>() ? "true" : "false";
    } else if (value->is_number_integer()) {
      const int64_t n = value->get<int64_t>();
      if (n > kMaxSafeInteger || n < -kMaxSafeInteger) continue;
      text = std::to_string(n);
    } else {
      continue;  // not a primitive the revision mirrors
    }
    lines.push_back("Mcp-Param-" + a.name + ": " + mirrored_header_value(text));
  }
  return lines;
}

std::vector<std::string> standard_header_lines(const json& message) {
  std::vector<std::string> lines;
  if (!message.is_object() || !message.contains("method") || !message["method"].is_string()) return lines;
  const std::string method = message["method"].get<std::string>();
  lines.push_back("Mcp-Method: " + mirrored_header_value(method));
  const json params = message.value("params", json::object());
  const char* field = method == "tools/call" || method == "prompts/get" ? "name"
                      : method == "resources/read"                      ? "uri"
                                                                        : nullptr;
  if (field != nullptr && params.is_object() && params.contains(field) && params[field].is_string()) {
    lines.push_back("Mcp-Name: " + mirrored_header_value(params[field].get<std::string>()));
  }
  return lines;
}

}  // namespace keel::mcp
