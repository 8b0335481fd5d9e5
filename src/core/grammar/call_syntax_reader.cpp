// read_tool_calls: the calls of a reply written in a CallSyntax (keel/core/chat_template.hpp).
#include <nlohmann/json.hpp>

#include "core/parsing/formats/format_util.hpp"
#include "core/text/text_util.hpp"
#include "keel/core/chat_template.hpp"

namespace keel {
namespace {

bool take(std::string_view text, size_t& at, std::string_view word) {
  if (text.substr(at, word.size()) != word) return false;
  at += word.size();
  return true;
}

// One JSON object at `at` (after optional space), advanced past it.
std::optional<nlohmann::json> take_object(std::string_view text, size_t& at) {
  at = detail::skip_blanks(text, at);
  if (at >= text.size() || text[at] != '{') return std::nullopt;
  size_t end = detail::json_extent(text, at);
  if (end == std::string::npos) return std::nullopt;
  nlohmann::json j = nlohmann::json::parse(text.substr(at, end - at), nullptr, false);
  if (j.is_discarded() || !j.is_object()) return std::nullopt;
  at = end;
  return j;
}

std::optional<ToolCall> call_from_object(const CallSyntax& syntax, const nlohmann::json& j) {
  auto name = j.find("name");
  auto args = j.find(syntax.arguments_key);
  if (name == j.end() || !name->is_string() || args == j.end()) return std::nullopt;
  ToolCall call;
  call.name = name->get<std::string>();
  if (args->is_object()) call.arguments = args->dump();
  else if (args->is_string()) call.arguments = args->get<std::string>();
  else return std::nullopt;
  return call;
}

// One call at `at`, advanced past it.
std::optional<ToolCall> take_call(const CallSyntax& syntax, std::string_view text, size_t& at) {
  if (!take(text, at, syntax.open)) return std::nullopt;
  if (syntax.name_first) {
    size_t end = syntax.name_close.empty() ? text.find('{', at) : text.find(syntax.name_close, at);
    if (end == std::string::npos || end == at) return std::nullopt;
    ToolCall call;
    call.name = std::string(text.substr(at, end - at));
    at = end + syntax.name_close.size();
    std::optional<nlohmann::json> args = take_object(text, at);
    if (!args) return std::nullopt;
    call.arguments = args->dump();
    if (!syntax.close.empty() && !take(text, at, syntax.close)) return std::nullopt;
    return call;
  }
  std::optional<nlohmann::json> j = take_object(text, at);
  if (!j) return std::nullopt;
  std::optional<ToolCall> call = call_from_object(syntax, *j);
  if (!call) return std::nullopt;
  size_t after = at;
  after = detail::skip_blanks(text, after);
  if (!syntax.close.empty()) {
    if (!take(text, after, syntax.close)) return std::nullopt;
    at = after;
  }
  return call;
}

}  // namespace

std::optional<std::vector<ToolCall>> read_tool_calls(const CallSyntax& syntax, std::string_view text,
                                                     std::string* before) {
  const std::string& trigger = syntax.trigger();
  if (trigger.empty()) return std::nullopt;
  size_t start = text.find(trigger);
  if (start == std::string::npos) return std::nullopt;
  size_t at = start + syntax.calls_open.size();
  std::vector<ToolCall> calls;
  if (syntax.list && !syntax.name_first) {
    if (!take(text, at, syntax.open)) return std::nullopt;
    at = detail::skip_blanks(text, at);
    size_t end = at < text.size() && text[at] == '[' ? detail::json_extent(text, at) : std::string::npos;
    if (end == std::string::npos) return std::nullopt;
    nlohmann::json list = nlohmann::json::parse(text.substr(at, end - at), nullptr, false);
    if (list.is_discarded() || !list.is_array() || list.empty()) return std::nullopt;
    for (const nlohmann::json& j : list) {
      std::optional<ToolCall> call = j.is_object() ? call_from_object(syntax, j) : std::nullopt;
      if (!call) return std::nullopt;
      calls.push_back(std::move(*call));
    }
    at = end;
    if (!syntax.close.empty()) {
      at = detail::skip_blanks(text, at);
      if (!take(text, at, syntax.close)) return std::nullopt;
    }
  } else {
    for (;;) {
      std::optional<ToolCall> call = take_call(syntax, text, at);
      if (!call) return std::nullopt;
      calls.push_back(std::move(*call));
      size_t next = at;
      next = detail::skip_blanks(text, next);
      if (next >= text.size() || text.substr(next, syntax.open.size()) != syntax.open || syntax.open.empty()) break;
      at = next;
    }
  }
  if (!syntax.calls_close.empty()) {  // optional: the grammar ends a reply without it
    size_t after = at;
    after = detail::skip_blanks(text, after);
    if (take(text, after, syntax.calls_close)) at = after;
  }
  if (before != nullptr) *before = std::string(text.substr(0, start));
  return calls;
}

}  // namespace keel
