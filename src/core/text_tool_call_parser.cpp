// The default text-protocol tool-call parser (see keel/core/tool_call_parser.hpp).
#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>
#include <utility>

#include "core/text_util.hpp"
#include "keel/core/tool_call_parser.hpp"

namespace keel {
namespace {

using nlohmann::json;

struct Segment {
  size_t begin;
  size_t end;
};

using detail::trim;

// One call from a JSON object, or nullopt when the object is not shaped like a call.
// `error` is set when it is shaped like a call but its arguments are unusable.
std::optional<ToolCall> call_from_object(const json& obj, std::string& error) {
  if (!obj.is_object()) return std::nullopt;
  const json* fn = &obj;
  if (obj.contains("function") && obj["function"].is_object()) fn = &obj["function"];
  std::string name;
  json args = json::object();
  if (fn->contains("tool") && (*fn)["tool"].is_string()) {
    name = (*fn)["tool"].get<std::string>();
    bool nested = false;
    for (const char* key : {"arguments", "args", "parameters"}) {
      if (fn->contains(key) && fn->size() == 2) {
        args = (*fn)[key];
        nested = true;
        break;
      }
    }
    if (!nested) {
      for (auto it = fn->begin(); it != fn->end(); ++it) {
        if (it.key() != "tool") args[it.key()] = it.value();
      }
    }
  } else if (fn->contains("name") && (*fn)["name"].is_string()) {
    name = (*fn)["name"].get<std::string>();
    bool has_args = false;
    for (const char* key : {"arguments", "parameters"}) {
      if (fn->contains(key)) {
        args = (*fn)[key];
        has_args = true;
        break;
      }
    }
    if (!has_args && fn->size() != 1) return std::nullopt;  // {"name": "Ada", "age": 3} is data
  } else {
    return std::nullopt;
  }
  if (args.is_string()) {
    json inner = json::parse(args.get<std::string>(), nullptr, false);
    if (inner.is_discarded() || !inner.is_object()) {
      error = "the arguments of '" + name + "' are a string that is not a JSON object";
      return std::nullopt;
    }
    args = std::move(inner);
  }
  if (args.is_null()) args = json::object();
  if (!args.is_object()) {
    error = "the arguments of '" + name + "' must be a JSON object";
    return std::nullopt;
  }
  return ToolCall{"", name, args.dump()};
}

// Calls from an object or array; nullopt if any element is not a call.
std::optional<std::vector<ToolCall>> calls_from_json(const json& value, std::string& error) {
  std::vector<ToolCall> calls;
  if (value.is_array()) {
    if (value.empty()) return std::nullopt;
    for (const auto& el : value) {
      auto c = call_from_object(el, error);
      if (!c) return std::nullopt;
      calls.push_back(std::move(*c));
    }
    return calls;
  }
  auto c = call_from_object(value, error);
  if (!c) return std::nullopt;
  calls.push_back(std::move(*c));
  return calls;
}

bool all_registered(const std::vector<ToolCall>& calls, std::span<const ToolSpec> tools) {
  return std::all_of(calls.begin(), calls.end(), [&](const ToolCall& c) {
    return std::any_of(tools.begin(), tools.end(), [&](const ToolSpec& t) { return t.name == c.name; });
  });
}

// End (exclusive) of the balanced JSON object/array starting at `pos`, or npos.
size_t json_extent(std::string_view s, size_t pos) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = pos; i < s.size(); ++i) {
    char c = s[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    else if (c == '{' || c == '[') ++depth;
    else if (c == '}' || c == ']') {
      if (--depth == 0) return i + 1;
    }
  }
  return std::string_view::npos;
}

bool overlaps(const std::vector<Segment>& segs, size_t pos) {
  return std::any_of(segs.begin(), segs.end(), [&](const Segment& s) { return pos >= s.begin && pos < s.end; });
}

class DefaultToolCallParser final : public ToolCallParser {
 public:
  ParsedReply parse(std::string_view text, std::span<const ToolSpec> tools) const override {
    ParsedReply out;
    std::vector<Segment> segments;
    parse_tagged(text, out, segments);
    parse_fenced(text, tools, out, segments);
    if (out.calls.empty() && out.errors.empty()) parse_bare(text, tools, out, segments);
    std::sort(segments.begin(), segments.end(), [](const Segment& a, const Segment& b) { return a.begin < b.begin; });
    std::string rest;
    size_t cursor = 0;
    for (const auto& s : segments) {
      if (s.begin > cursor) rest.append(text.substr(cursor, s.begin - cursor));
      cursor = std::max(cursor, s.end);
    }
    if (cursor < text.size()) rest.append(text.substr(cursor));
    out.text = std::string(trim(rest));
    return out;
  }

 private:
  static void parse_tagged(std::string_view text, ParsedReply& out, std::vector<Segment>& segments) {
    constexpr std::string_view kOpen = "<tool_call>";
    constexpr std::string_view kClose = "</tool_call>";
    size_t pos = 0;
    while ((pos = text.find(kOpen, pos)) != std::string_view::npos) {
      size_t body = pos + kOpen.size();
      size_t close = text.find(kClose, body);
      size_t end = close == std::string_view::npos ? text.size() : close + kClose.size();
      std::string_view inner = trim(text.substr(body, (close == std::string_view::npos ? text.size() : close) - body));
      segments.push_back({pos, end});
      json value = json::parse(inner, nullptr, false);
      std::string error;
      if (value.is_discarded()) {
        out.errors.push_back(close == std::string_view::npos
                                 ? "a <tool_call> block was cut off before </tool_call> and its JSON is incomplete"
                                 : "a <tool_call> block does not contain valid JSON");
      } else if (auto calls = calls_from_json(value, error)) {
        for (auto& c : *calls) out.calls.push_back(std::move(c));
      } else {
        out.errors.push_back(error.empty() ? "a <tool_call> block does not name a tool: expected {\"name\": ..., \"arguments\": {...}}" : error);
      }
      pos = end;
    }
  }

  static void parse_fenced(std::string_view text, std::span<const ToolSpec> tools, ParsedReply& out,
                           std::vector<Segment>& segments) {
    size_t pos = 0;
    while ((pos = text.find("```", pos)) != std::string_view::npos) {
      size_t line_end = text.find('\n', pos);
      if (line_end == std::string_view::npos) return;
      std::string_view lang = trim(text.substr(pos + 3, line_end - pos - 3));
      size_t close = text.find("```", line_end);
      if (close == std::string_view::npos) return;
      size_t end = close + 3;
      if ((lang.empty() || lang == "json" || lang == "tool_call") && !overlaps(segments, pos)) {
        json value = json::parse(trim(text.substr(line_end + 1, close - line_end - 1)), nullptr, false);
        std::string error;
        if (!value.is_discarded()) {
          auto calls = calls_from_json(value, error);
          if (calls && all_registered(*calls, tools)) {
            for (auto& c : *calls) out.calls.push_back(std::move(c));
            segments.push_back({pos, end});
          }
        }
      }
      pos = end;
    }
  }

  // JSON starting at the beginning of a line (the whole reply, or after a lead-in sentence).
  static void parse_bare(std::string_view text, std::span<const ToolSpec> tools, ParsedReply& out,
                         std::vector<Segment>& segments) {
    size_t pos = 0;
    while (pos < text.size()) {
      size_t start = text.find_first_not_of(" \t\r\n", pos);
      if (start == std::string_view::npos) return;
      if (text[start] == '{' || text[start] == '[') {
        size_t end = json_extent(text, start);
        if (end == std::string_view::npos) return;
        json value = json::parse(text.substr(start, end - start), nullptr, false);
        std::string error;
        if (!value.is_discarded()) {
          auto calls = calls_from_json(value, error);
          if (calls && all_registered(*calls, tools)) {
            for (auto& c : *calls) out.calls.push_back(std::move(c));
            segments.push_back({start, end});
          }
        }
        pos = end;
        continue;
      }
      size_t nl = text.find('\n', start);
      if (nl == std::string_view::npos) return;
      pos = nl + 1;
    }
  }
};

}  // namespace

std::unique_ptr<ToolCallParser> make_default_tool_call_parser() { return std::make_unique<DefaultToolCallParser>(); }

}  // namespace keel
