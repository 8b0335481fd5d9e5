#include "tools/call_preparation.hpp"

#include <vector>

#include "core/text/utf8_text.hpp"

namespace keel::detail {
namespace {

std::string unknown_tool_message(const ToolRegistry& registry, const std::string& name) {
  std::vector<std::string> names;
  for (const ToolSpec& spec : registry.specs()) names.push_back(spec.name);
  std::string msg = "unknown tool '" + sanitize_utf8(name) + "'; ";
  if (names.empty()) return msg + "no tools are available";
  return msg + "available: " + join(names, ", ");
}

std::string_view trim(std::string_view s) {
  const size_t begin = s.find_first_not_of(" \t\r\n");
  if (begin == std::string_view::npos) return {};
  const size_t end = s.find_last_not_of(" \t\r\n");
  return s.substr(begin, end - begin + 1);
}

// nlohmann's what() starts with "[json.exception.parse_error.101] "; the model needs the rest.
std::string parse_error_text(const nlohmann::json::exception& e) {
  std::string text = e.what();
  if (!text.empty() && text[0] == '[') {
    const size_t close = text.find("] ");
    if (close != std::string::npos) text.erase(0, close + 2);
  }
  return text;
}

std::string type_name(const nlohmann::json& v) {
  switch (v.type()) {
    case nlohmann::json::value_t::array: return "an array";
    case nlohmann::json::value_t::string: return "a string";
    case nlohmann::json::value_t::boolean: return "a boolean";
    case nlohmann::json::value_t::null: return "null";
    default: return "a number";
  }
}

}  // namespace

PreparedCall prepare_call(const ToolRegistry& registry, const ToolCall& call) {
  PreparedCall out;
  try {
    Tool* tool = registry.find(call.name);
    if (tool == nullptr) {
      out.error = unknown_tool_message(registry, call.name);
      return out;
    }
    const std::string_view text = trim(call.arguments);
    if (text.empty()) {
      out.args = nlohmann::json::object();
    } else {
      try {
        out.args = nlohmann::json::parse(text);
      } catch (const nlohmann::json::exception& e) {
        out.error = "arguments for " + call.name + " are not a JSON object: " + parse_error_text(e);
        return out;
      }
      if (!out.args.is_object()) {
        out.error = "arguments for " + call.name + " are not a JSON object: got " + type_name(out.args);
        return out;
      }
    }
    Status valid = registry.validate_arguments(call.name, out.args);
    if (!valid.ok()) {
      out.error = valid.message();
      return out;
    }
    out.tool = tool;
  } catch (const std::exception& e) {  // out of memory and the like
    out.tool = nullptr;
    out.error = "could not check the call to " + sanitize_utf8(call.name) + ": " + e.what();
  }
  return out;
}

}  // namespace keel::detail
