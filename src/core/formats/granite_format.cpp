// IBM Granite 3.x: <|tool_call|>[{"name": NAME, "arguments": {...}}, ...] (a single object instead
// of the list is accepted; "parameters" too). The format has no end token: JSON left open at the
// very end of the reply goes to the repair pass, which closes it only when nothing was cut off;
// otherwise it is an error. Text around the calls is content; <|end_of_text|> is dropped. A marker
// right after a backtick, or followed by anything but JSON, is a mention in prose.
#include <utility>

#include "core/formats/format_util.hpp"
#include "core/formats/formats.hpp"
#include "core/json_repair.hpp"
#include "core/text_util.hpp"

namespace keel::detail {
namespace {

using nlohmann::json;
constexpr size_t npos = std::string_view::npos;
constexpr std::string_view kMarker = "<|tool_call|>";
constexpr std::string_view kEot = "<|end_of_text|>";

// Appends `piece` to the content, without <|end_of_text|>.
void append_content(std::string& to, std::string_view piece) {
  std::string_view t = trim(piece);
  if (t.size() >= kEot.size() && t.substr(t.size() - kEot.size()) == kEot)
    t = trim(t.substr(0, t.size() - kEot.size()));
  if (t.empty()) return;
  if (!to.empty()) to += "\n";
  to.append(t);
}

// Appends the call `name` whose arguments are `args`: an object, an escaped JSON string, or
// null/absent ({}). False (out.error set) when they are unusable.
bool add_json_call(FormatResult& out, const std::string& name, const json* args, std::string id) {
  if (args == nullptr || args->is_null()) {
    out.calls.push_back(ToolCall{std::move(id), name, "{}"});
    return true;
  }
  if (args->is_object()) {  // the usual case, without a copy through unwrap_string_arguments
    add_call(out, name, *args, std::move(id));
    return !out.error;
  }
  std::string where = "the call to '" + name + "'";
  LenientJson v = unwrap_string_arguments(*args);
  if (!v.value) {
    out.error = where + ": " + v.error;
    return false;
  }
  for (auto& r : v.repairs) out.repairs.push_back(std::move(r.insert(0, where + ": ")));
  add_call(out, name, *v.value, std::move(id));
  return !out.error;
}

// Reads the JSON value at text[pos] ('[' or '{'): to its balanced end, or — left open — to the end
// of the text. Returns the end (exclusive); `value` is unset and out.error set when it is unusable.
size_t read_json(std::string_view text, size_t pos, FormatResult& out, std::optional<json>& value) {
  size_t end = json_extent(text, pos);
  bool open = end == npos;
  if (open) end = text.size();
  LenientJson p = parse_json_lenient(text.substr(pos, end - pos));
  if (!p.value) {
    out.error = std::string(open ? "the tool call after <|tool_call|> was cut off: "
                                 : "the tool call after <|tool_call|> is not valid JSON: ") +
                p.error;
    return end;
  }
  for (auto& r : p.repairs) out.repairs.push_back("<|tool_call|>: " + r);
  value = std::move(p.value);
  return end;
}

// The calls of a list (or single object) of {"name", "arguments"}.
void add_calls(json value, FormatResult& out) {
  json list = value.is_object() ? json::array({std::move(value)}) : std::move(value);
  if (!list.is_array() || list.empty()) {
    out.error = "<|tool_call|> must be followed by a list of calls";
    return;
  }
  size_t n = 0;
  for (const auto& c : list) {
    ++n;
    if (!c.is_object() || !c.contains("name") || !c["name"].is_string() || c["name"].get<std::string>().empty()) {
      out.error = "call " + std::to_string(n) + " after <|tool_call|> has no \"name\"";
      return;
    }
    const json* args = c.contains("arguments")    ? &c["arguments"]
                       : c.contains("parameters") ? &c["parameters"]
                                                  : nullptr;
    if (!add_json_call(out, c["name"].get<std::string>(), args, {})) return;
  }
}

class GraniteFormat final : public ToolCallFormat {
 public:
  std::string_view name() const override { return "granite"; }
  std::string_view description() const override { return "Granite 3.x: <|tool_call|>[{\"name\", \"arguments\"}]"; }
  bool detect(std::string_view text) const override { return text.find(kMarker) != npos; }

  FormatResult parse(std::string_view text, std::span<const ToolSpec>) const override {
    FormatResult out;
    size_t cursor = 0;  // start of the text not yet taken as content or calls
    size_t pos = 0;
    while (!out.error && (pos = text.find(kMarker, pos)) != npos) {
      if (pos > 0 && text[pos - 1] == '`' && (pos == 1 || text[pos - 2] != '`')) {  // quoted in prose
        pos += kMarker.size();
        continue;
      }
      size_t start = text.find_first_not_of(" \t\r\n", pos + kMarker.size());
      if (start != npos && text[start] != '[' && text[start] != '{') {  // prose mentioning the token
        pos += kMarker.size();
        continue;
      }
      append_content(out.content, text.substr(cursor, pos - cursor));
      if (start == npos) {
        out.error = "the tool call was cut off right after <|tool_call|>";
        return out;
      }
      std::optional<json> value;
      cursor = pos = read_json(text, start, out, value);
      if (value) add_calls(std::move(*value), out);
    }
    if (!out.error && cursor < text.size()) append_content(out.content, text.substr(cursor));
    return out;
  }
};

}  // namespace

std::unique_ptr<ToolCallFormat> make_granite_format() {
  return std::make_unique<GraniteFormat>();
}

}  // namespace keel::detail
