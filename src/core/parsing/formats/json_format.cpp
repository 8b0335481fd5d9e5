// The generic JSON format: calls written as JSON objects (or arrays of them) — bare, after a
// lead-in sentence, or in ```json fences:
//   {"name": "fs_read", "arguments": {"path": "a"}}     ("parameters" too; arguments may be a JSON string)
//   {"tool": "fs_read", "path": "a"}                     (seed 004: arguments inline)
//   {"function": {"name": ..., "arguments": ...}}
//   {"tool_calls": [...]}, a whole OpenAI assistant message {"role", "content", "tool_calls"}, and
//   the legacy {"function_call": {"name", "arguments"}} written into the content (xLAM, small models),
//   {"tool_call": {...}} (llama.cpp's generic format)
//   {"tool_name": ..., "parameters": {...}}              (Command R+, in ```json after "Action:")
//   [{...} {...}]                                        (a list missing its commas: Llama 3.2)
// JSON that names no registered tool is prose (an example shown to the user), never a call.
#include <algorithm>

#include "core/parsing/formats/format_util.hpp"
#include "core/parsing/formats/formats.hpp"
#include "core/parsing/formats/special_tokens.hpp"
#include "core/parsing/json/json_repair.hpp"
#include "core/text/small_vector.hpp"
#include "core/text/text_util.hpp"

namespace keel::detail {
namespace {

struct Segment {
  size_t begin;
  size_t end;
};
// The call segments of one reply (a few: no allocation for them).
using Segments = SmallVector<Segment, 8>;

// A call read from JSON: `arguments` is compact JSON text, an object unless `not_object` names
// the type it has instead (an error once the call is taken).
struct JsonCall {
  std::string name;
  std::string arguments = "{}";
  const char* not_object = nullptr;
  bool has_arguments = true;  // false: the object names the tool and nothing else
};

// The members of `fn` except "tool", as an object: {"tool": NAME, ...arguments inline}.
std::string inline_arguments(JsonView fn) {
  std::string out = "{";
  JsonView::Items it = fn.items();
  JsonView key, value;
  while (it.next(key, value)) {
    if (key.str_equals("tool")) continue;
    if (out.size() > 1) out += ',';
    (out += key.raw()) += ':';
    value.append_compact(out);
  }
  return out + "}";
}

// A call from an object shaped like one, or nullopt. `error` is set when it is shaped like a
// call but its arguments are unusable.
std::optional<JsonCall> call_from_object(JsonView obj, std::vector<std::string>& repairs, std::string& error) {
  if (!obj.is_object()) return std::nullopt;
  constexpr std::string_view kKeys[] = {"function", "tool", "name", "arguments", "args", "parameters"};
  auto keys = obj.find_each(kKeys);
  JsonView fn = obj;
  if (keys[0] && keys[0]->is_object()) {
    fn = *keys[0];
    keys = fn.find_each(kKeys);
  }
  if (!keys[1] && !keys[2]) keys[2] = fn.find("tool_name");  // Command R+: {"tool_name", "parameters"}
  const auto& [wrapped, tool, name, arguments, args_key, parameters] = keys;
  JsonCall call;
  std::optional<JsonView> args;
  if (tool && tool->is_string()) {
    call.name = tool->str();
    args = arguments ? arguments : args_key ? args_key : parameters;
    if (args && fn.distinct_keys(2) != 2) args.reset();
    if (!args) call.arguments = inline_arguments(fn);
  } else if (name && name->is_string()) {
    call.name = name->str();
    args = arguments ? arguments : parameters;
    if (!args && fn.distinct_keys(2) != 1) return std::nullopt;  // {"name": "Ada", "age": 3} is data
    call.has_arguments = args.has_value();
  } else {
    return std::nullopt;
  }
  if (!args || args->is_null()) return call;
  if (args->is_string()) {
    ArgumentsText inner = unwrap_string_arguments_text(*args);
    if (!inner.error.empty()) {
      error = "the arguments of '" + call.name + "' are a string that is not a JSON object: " + inner.error;
      return std::nullopt;
    }
    for (auto& r : inner.repairs) repairs.push_back(std::move(r));
    call.arguments = std::move(inner.text);
    return call;
  }
  call.arguments.clear();
  args->append_compact(call.arguments);
  if (!args->is_object()) call.not_object = args->type_name();
  return call;
}

// All calls of an object or array, or nullopt when any element is not a call. An object holding
// "tool_calls" (a list) or "function_call" / "tool_call" (an object) — OpenAI's shapes written as
// text, and llama.cpp's generic JSON format — gives
// those calls; a string "content" beside them goes to `message`.
std::optional<std::vector<JsonCall>> calls_from_json(JsonView value, std::vector<std::string>& repairs,
                                                     std::string& error, std::string* message = nullptr) {
  std::vector<JsonCall> calls;
  if (value.is_object()) {
    if (auto c = call_from_object(value, repairs, error)) {  // the usual case: the object is the call
      calls.push_back(std::move(*c));
      return calls;
    }
    if (!error.empty()) return std::nullopt;
    auto [tool_calls, function_call, tool_call, content] =
        value.find_each({"tool_calls", "function_call", "tool_call", "content"});
    if (!function_call || !function_call->is_object()) function_call = tool_call;  // llama.cpp's generic format
    if ((tool_calls && tool_calls->is_array() && !tool_calls->empty()) ||
        (function_call && function_call->is_object())) {
      auto inner = calls_from_json(tool_calls && tool_calls->is_array() ? *tool_calls : *function_call, repairs, error);
      if (inner && message != nullptr && content && content->is_string()) *message = content->str();
      return inner;
    }
    return std::nullopt;
  }
  if (value.is_array()) {
    if (value.empty()) return std::nullopt;
    JsonView::Items it = value.items();
    JsonView key, el;
    while (it.next(key, el)) {
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

bool all_registered(const std::vector<JsonCall>& calls, std::span<const ToolSpec> tools) {
  return std::all_of(calls.begin(), calls.end(),
                     [&](const JsonCall& c) { return find_tool(tools, c.name) != nullptr; });
}

// Whether an unfinished candidate is clearly a call: a "name"/"tool" key whose value is a
// registered tool.
bool looks_like_cut_call(std::string_view candidate, std::span<const ToolSpec> tools) {
  if (candidate.find("\"name\"") == std::string_view::npos && candidate.find("\"tool\"") == std::string_view::npos) {
    return false;
  }
  return std::any_of(tools.begin(), tools.end(),
                     [&](const ToolSpec& t) { return candidate.find("\"" + t.name + "\"") != std::string_view::npos; });
}

class JsonFormat final : public ToolCallFormat {
 public:
  std::string_view name() const override { return "json"; }
  std::string_view description() const override {
    return "JSON calls, bare or in ```json fences: {\"name\", \"arguments\"|\"parameters\"}, {\"tool\": NAME, ...}, "
           "arrays";
  }
  std::span<const std::string_view> markers() const override {
    static constexpr std::string_view kMarkers[] = {"{", "["};
    return kMarkers;
  }
  // Calls stand only in code fences or where a line starts with '{' or '[' (as parse() reads
  // them): a brace inside prose is no call.
  bool detect_marked(std::string_view text) const override {
    if (find_literal(text, "```") != std::string_view::npos) return true;
    for (size_t pos = 0;;) {
      const size_t start = skip_blanks(text, pos);
      if (start == text.size()) return false;
      if (text[start] == '{' || text[start] == '[') return true;
      const size_t nl = text.find('\n', start);
      if (nl == std::string_view::npos) return false;
      pos = nl + 1;
    }
  }

  FormatResult parse(std::string_view text, std::span<const ToolSpec> tools) const override {
    FormatResult out;
    Segments segments;
    parse_fenced(text, tools, out, segments);
    if (out.calls.empty() && !out.error) parse_bare(text, tools, out, segments);
    std::sort(segments.begin(), segments.end(), [](const Segment& a, const Segment& b) { return a.begin < b.begin; });
    // The text outside the segments, measured first: room for exactly that (none when the
    // segments are the whole reply).
    size_t outside = 0;
    size_t cursor = 0;
    for (const auto& s : segments) {
      if (s.begin > cursor) outside += s.begin - cursor;
      cursor = std::max(cursor, s.end);
    }
    if (cursor < text.size()) outside += text.size() - cursor;
    std::string rest;
    rest.reserve(outside);
    cursor = 0;
    for (const auto& s : segments) {
      if (s.begin > cursor) rest.append(text.substr(cursor, s.begin - cursor));
      cursor = std::max(cursor, s.end);
    }
    if (cursor < text.size()) rest.append(text.substr(cursor));
    const std::string_view kept = trim(rest);  // trimmed in place: no second copy
    const size_t begin = kept.empty() ? 0 : static_cast<size_t>(kept.data() - rest.data());
    rest.erase(begin + kept.size());
    rest.erase(0, begin);
    if (out.content.empty()) {
      out.content = std::move(rest);
    } else {  // the "content" of an assistant message written as JSON comes first
      append_line(out.content, rest);
    }
    return out;
  }

 private:
  // Adds the calls of one candidate (parsed into `parsed`) when it names registered tools; true
  // when it did.
  // `open`: the candidate ran to the end of the text unbalanced and the repair pass closed it; a
  // call that then has no arguments was cut off before them.
  static bool take(std::string_view candidate, const LenientText& parsed, std::span<const ToolSpec> tools,
                   FormatResult& out, bool open = false) {
    if (!parsed.ok()) return candidate[0] == '[' && take_spaced_list(candidate, tools, out);
    std::vector<std::string> repairs = parsed.repairs;
    std::string error;
    std::string message;
    auto calls = calls_from_json(parsed.view(), repairs, error, &message);
    if (!calls) {
      if (!error.empty() && looks_like_cut_call(candidate, tools)) out.error = error;
      return false;
    }
    if (!all_registered(*calls, tools)) return false;
    if (!message.empty()) append_line(out.content, message);
    if (open) {
      for (const auto& c : *calls) {
        if (!c.has_arguments) {
          out.error = "the call to '" + c.name + "' was cut off before its arguments";
          return true;
        }
      }
    }
    for (auto& r : repairs) out.repairs.push_back(std::move(r));
    for (auto& c : *calls) {
      if (c.not_object != nullptr) {
        out.error = "the arguments of '" + c.name + "' must be a JSON object, got " + c.not_object;
      } else {
        add_call(out, std::move(c.name), std::move(c.arguments));
      }
    }
    return true;
  }
  // A list of call objects separated by blanks instead of commas, [{...} {...}] (Llama 3.2 and
  // Qwen 2.5 write them); true when every element is a call to a registered tool.
  static bool take_spaced_list(std::string_view candidate, std::span<const ToolSpec> tools, FormatResult& out) {
    std::vector<JsonCall> calls;
    std::vector<std::string> repairs;
    size_t pos = 1;
    bool spaced = false;
    for (;;) {
      const size_t at = skip_blanks(candidate, pos);
      if (at >= candidate.size()) return false;
      if (candidate[at] == ']') break;
      if (candidate[at] == ',' && !calls.empty()) {
        pos = at + 1;
        continue;
      }
      if (candidate[at] != '{') return false;
      spaced = spaced || (!calls.empty() && candidate[at - 1] != ',' && candidate[skip_back(candidate, at)] != ',');
      LenientText element;
      bool open = false;
      pos = lenient_json_at(candidate, at, element, open);
      if (open || !element.ok()) return false;
      std::string error;
      auto c = calls_from_json(element.view(), repairs, error);
      if (!c) return false;
      for (auto& r : element.repairs) repairs.push_back(std::move(r));
      for (auto& call : *c) calls.push_back(std::move(call));
    }
    if (!spaced || calls.empty() || !all_registered(calls, tools)) return false;
    for (auto& r : repairs) out.repairs.push_back(std::move(r));
    out.repairs.push_back("read a list of calls without commas");
    for (auto& c : calls) {
      if (c.not_object != nullptr) {
        out.error = "the arguments of '" + c.name + "' must be a JSON object, got " + c.not_object;
      } else {
        add_call(out, std::move(c.name), std::move(c.arguments));
      }
    }
    return true;
  }
  // The position of the last non-blank byte before `at` (0 when none).
  static size_t skip_back(std::string_view text, size_t at) {
    while (at > 0 && is_blank(text[at - 1])) --at;
    return at > 0 ? at - 1 : 0;
  }

  static bool take(std::string_view candidate, std::span<const ToolSpec> tools, FormatResult& out) {
    // Only an object or a list of objects holds calls; an ASCII start other than '{' or '[' (a
    // non-ASCII one may be a stray character the repair pass drops) cannot be one.
    if (candidate.empty()) return false;
    const unsigned char first = static_cast<unsigned char>(candidate[0]);
    if ((first < 0x80 && first != '{' && first != '[') || !may_hold_calls(candidate)) return false;
    return take(candidate, parse_json_lenient_text(candidate), tools, out);
  }

  // False for a balanced candidate that cannot hold calls: an array whose first element (past
  // whitespace and the stray non-ASCII characters the repair pass drops) is no object. Saves the
  // lenient parse of bracketed prose and Python lists.
  static bool may_hold_calls(std::string_view candidate) {
    if (candidate[0] != '[') return true;
    size_t i = 1;
    while (i < candidate.size() && (is_blank(candidate[i]) || static_cast<unsigned char>(candidate[i]) >= 0x80)) ++i;
    return i < candidate.size() && candidate[i] == '{';
  }

  // Whether a fence with language tag `lang` may hold calls (json, JSON, tool_call, none, and xml:
  // Qwen2 served by mlx tags its JSON call so).
  static bool call_fence(std::string_view lang) {
    const std::string tag = lowercase(lang);
    return tag.empty() || tag == "json" || tag == "tool_call" || tag == "xml";
  }

  static void parse_fenced(std::string_view text, std::span<const ToolSpec> tools, FormatResult& out,
                           Segments& segments) {
    size_t pos = 0;
    while ((pos = text.find("```", pos)) != std::string_view::npos) {
      size_t line_end = text.find('\n', pos);
      if (line_end == std::string_view::npos) return;
      std::string_view lang = trim(text.substr(pos + 3, line_end - pos - 3));
      size_t close = text.find("```", line_end);
      if (close == std::string_view::npos) return;
      size_t end = close + 3;
      if (call_fence(lang)) {
        if (take(trim(text.substr(line_end + 1, close - line_end - 1)), tools, out)) segments.push_back({pos, end});
      }
      pos = end;
    }
  }

  // The end of a call's segment that ends at `end`: a ',' or ';' before the next call, or a stray
  // </tool_call> after it, go with it.
  static size_t after_call(std::string_view text, size_t end) {
    const size_t next = skip_blanks(text, end);
    if (next < text.size() && (text[next] == ',' || text[next] == ';')) return next + 1;
    constexpr std::string_view kStrayClose = "</tool_call>";
    if (text.substr(next, kStrayClose.size()) == kStrayClose) return next + kStrayClose.size();
    return end;
  }

  // JSON starting at the beginning of a line (the whole reply, or after a lead-in sentence). Code
  // fences are not looked into: parse_fenced() has read the ones that may hold calls (json,
  // tool_call, no language), and JSON in any other fence is an example. Only an unclosed fence of
  // those kinds is read on (a call cut off before its closing ```).
  static void parse_bare(std::string_view text, std::span<const ToolSpec> tools, FormatResult& out,
                         Segments& segments) {
    size_t pos = 0;
    while (pos < text.size()) {
      size_t start = skip_blanks(text, pos);
      if (start == text.size()) return;
      if (text.compare(start, 3, "```") == 0) {
        size_t line_end = text.find('\n', start);
        if (line_end == std::string_view::npos) return;
        size_t close = text.find("```", line_end);
        if (close != std::string_view::npos) {
          pos = close + 3;
          continue;
        }
        if (!call_fence(trim(text.substr(start + 3, line_end - start - 3)))) return;
        pos = line_end + 1;
        continue;
      }
      if (text[start] == '{' || text[start] == '[') {
        LenientText parsed;
        size_t end = valid_json_at(text, start, parsed);
        const bool valid = end != std::string_view::npos;
        if (!valid) end = json_extent(text, start);
        const bool open = end == std::string_view::npos;
        if (open) end = text.size();
        const std::string_view candidate = text.substr(start, end - start);
        if (open) {
          parsed = parse_json_lenient_text(candidate, /*known_invalid=*/true);
          // Unbalanced to the end: complete only what the repair pass can close without guessing.
          // A ',', ':' or an opening bracket last means more was coming.
          const std::string_view tail = trim(candidate);
          const char last = tail.back();
          if (parsed.ok() && (last == ',' || last == ':' || last == '{' || last == '[')) {
            parsed.error =
                "it ends with '" + std::string(1, tail.back()) + "' at offset " +
                std::to_string(start + static_cast<size_t>(tail.data() - candidate.data()) + tail.size() - 1);
          }
          if (parsed.ok()) {
            if (take(candidate, parsed, tools, out, /*open=*/true)) segments.push_back({start, text.size()});
          } else if (looks_like_cut_call(candidate, tools)) {
            out.error = "the tool call was cut off: " + parsed.error;
            segments.push_back({start, text.size()});
          }
          return;
        }
        if (may_hold_calls(candidate)) {
          if (!valid) parsed = parse_json_lenient_text(candidate, /*known_invalid=*/true);
          if (take(candidate, parsed, tools, out)) {
            end = after_call(text, end);
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

std::unique_ptr<ToolCallFormat> make_json_format() {
  return std::make_unique<JsonFormat>();
}

}  // namespace keel::detail
