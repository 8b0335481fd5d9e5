// The generic JSON format: calls written as JSON objects (or arrays of them) — bare, after a
// lead-in sentence, or in ```json fences:
//   {"name": "fs_read", "arguments": {"path": "a"}}     ("parameters" too; arguments may be a JSON string)
//   {"tool": "fs_read", "path": "a"}                     (seed 004: arguments inline)
//   {"function": {"name": ..., "arguments": ...}}
// JSON that names no registered tool is prose (an example shown to the user), never a call.
#include <algorithm>

#include "core/formats/format_util.hpp"
#include "core/formats/formats.hpp"
#include "core/json_repair.hpp"
#include "core/text_util.hpp"

namespace keel::detail {
namespace {

using nlohmann::json;

struct Segment {
  size_t begin;
  size_t end;
};

// A call from an object shaped like one, or nullopt. `error` is set when it is shaped like a
// call but its arguments are unusable.
std::optional<std::pair<std::string, json>> call_from_object(const json& obj, std::vector<std::string>& repairs,
                                                             std::string& error) {
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
    LenientJson inner = unwrap_string_arguments(args);
    if (!inner.value) {
      error = "the arguments of '" + name + "' are a string that is not a JSON object: " + inner.error;
      return std::nullopt;
    }
    for (auto& r : inner.repairs) repairs.push_back(r);
    args = std::move(*inner.value);
  }
  if (args.is_null()) args = json::object();
  return std::make_pair(name, std::move(args));
}

// All calls of an object or array, or nullopt when any element is not a call.
std::optional<std::vector<std::pair<std::string, json>>> calls_from_json(const json& value,
                                                                         std::vector<std::string>& repairs,
                                                                         std::string& error) {
  std::vector<std::pair<std::string, json>> calls;
  if (value.is_array()) {
    if (value.empty()) return std::nullopt;
    for (const auto& el : value) {
      auto c = call_from_object(el, repairs, error);
      if (!c) return std::nullopt;
      calls.push_back(std::move(*c));
    }
    return calls;
  }
  auto c = call_from_object(value, repairs, error);
  if (!c) return std::nullopt;
  calls.push_back(std::move(*c));
  return calls;
}

bool all_registered(const std::vector<std::pair<std::string, json>>& calls, std::span<const ToolSpec> tools) {
  return std::all_of(calls.begin(), calls.end(), [&](const auto& c) { return find_tool(tools, c.first) != nullptr; });
}

// Whether an unfinished candidate is clearly a call: a "name"/"tool" key whose value is a
// registered tool.
bool looks_like_cut_call(std::string_view candidate, std::span<const ToolSpec> tools) {
  if (candidate.find("\"name\"") == std::string_view::npos && candidate.find("\"tool\"") == std::string_view::npos) {
    return false;
  }
  return std::any_of(tools.begin(), tools.end(), [&](const ToolSpec& t) {
    return candidate.find("\"" + t.name + "\"") != std::string_view::npos;
  });
}

class JsonFormat final : public ToolCallFormat {
 public:
  std::string_view name() const override { return "json"; }
  std::string_view description() const override {
    return "JSON calls, bare or in ```json fences: {\"name\", \"arguments\"|\"parameters\"}, {\"tool\": NAME, ...}, arrays";
  }
  bool detect(std::string_view text) const override { return text.find_first_of("{[") != std::string_view::npos; }

  FormatResult parse(std::string_view text, std::span<const ToolSpec> tools) const override {
    FormatResult out;
    std::vector<Segment> segments;
    parse_fenced(text, tools, out, segments);
    if (out.calls.empty() && !out.error) parse_bare(text, tools, out, segments);
    std::sort(segments.begin(), segments.end(), [](const Segment& a, const Segment& b) { return a.begin < b.begin; });
    std::string rest;
    size_t cursor = 0;
    for (const auto& s : segments) {
      if (s.begin > cursor) rest.append(text.substr(cursor, s.begin - cursor));
      cursor = std::max(cursor, s.end);
    }
    if (cursor < text.size()) rest.append(text.substr(cursor));
    out.content = std::string(trim(rest));
    return out;
  }

 private:
  // Adds the calls of one candidate when it names registered tools; true when it did.
  static bool take(std::string_view candidate, std::span<const ToolSpec> tools, FormatResult& out) {
    LenientJson parsed = parse_json_lenient(candidate);
    if (!parsed.value) return false;
    std::vector<std::string> repairs = parsed.repairs;
    std::string error;
    auto calls = calls_from_json(*parsed.value, repairs, error);
    if (!calls) {
      if (!error.empty() && looks_like_cut_call(candidate, tools)) out.error = error;
      return false;
    }
    if (!all_registered(*calls, tools)) return false;
    for (auto& r : repairs) out.repairs.push_back(r);
    for (auto& [n, a] : *calls) add_call(out, n, a);
    return true;
  }

  static void parse_fenced(std::string_view text, std::span<const ToolSpec> tools, FormatResult& out,
                           std::vector<Segment>& segments) {
    size_t pos = 0;
    while ((pos = text.find("```", pos)) != std::string_view::npos) {
      size_t line_end = text.find('\n', pos);
      if (line_end == std::string_view::npos) return;
      std::string_view lang = trim(text.substr(pos + 3, line_end - pos - 3));
      size_t close = text.find("```", line_end);
      if (close == std::string_view::npos) return;
      size_t end = close + 3;
      if (lang.empty() || lang == "json" || lang == "tool_call") {
        if (take(trim(text.substr(line_end + 1, close - line_end - 1)), tools, out)) segments.push_back({pos, end});
      }
      pos = end;
    }
  }

  // JSON starting at the beginning of a line (the whole reply, or after a lead-in sentence).
  static void parse_bare(std::string_view text, std::span<const ToolSpec> tools, FormatResult& out,
                         std::vector<Segment>& segments) {
    size_t pos = 0;
    while (pos < text.size()) {
      size_t start = text.find_first_not_of(" \t\r\n", pos);
      if (start == std::string_view::npos) return;
      if (text[start] == '{' || text[start] == '[') {
        size_t end = json_extent(text, start);
        if (end == std::string_view::npos) {
          // Unbalanced to the end: complete only what the repair pass can close without guessing.
          std::string_view rest = text.substr(start);
          LenientJson parsed = parse_json_lenient(rest);
          if (parsed.value) {
            if (take(rest, tools, out)) segments.push_back({start, text.size()});
          } else if (looks_like_cut_call(rest, tools)) {
            out.error = "the tool call was cut off: " + parsed.error;
            segments.push_back({start, text.size()});
          }
          return;
        }
        if (take(text.substr(start, end - start), tools, out)) segments.push_back({start, end});
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

std::unique_ptr<ToolCallFormat> make_json_format() { return std::make_unique<JsonFormat>(); }

}  // namespace keel::detail
