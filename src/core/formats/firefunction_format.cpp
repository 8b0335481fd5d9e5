// Fireworks Firefunction v2: ` functools[{"name": NAME, "arguments": {...}}, ...]`. The marker is
// plain text, so it counts only at the start of a line (the model prints it first) and directly
// before '[': "Python's functools module" or `functools[...]` quoted mid-sentence is prose. There
// is no end token: JSON left open at the very end of the reply goes to the repair pass, which
// closes it only when nothing was cut off; otherwise it is an error. Text around it is content.
#include <utility>

#include "core/formats/format_util.hpp"
#include "core/formats/formats.hpp"
#include "core/json_repair.hpp"
#include "core/text_util.hpp"

namespace keel::detail {
namespace {

using nlohmann::json;
constexpr size_t npos = std::string_view::npos;
constexpr std::string_view kMarker = "functools";

void append_content(std::string& to, std::string_view piece) {
  std::string_view t = trim(piece);
  if (t.empty()) return;
  if (!to.empty()) to += "\n";
  to.append(t);
}

// Appends the call `name` whose arguments are `args`: an object, an escaped JSON string, or
// null/absent ({}). False (out.error set) when they are unusable.
bool add_json_call(FormatResult& out, const std::string& name, const json* args) {
  if (args == nullptr || args->is_null()) {
    out.calls.push_back(ToolCall{{}, name, "{}"});
    return true;
  }
  if (args->is_object()) {  // the usual case, without a copy through unwrap_string_arguments
    add_call(out, name, *args);
    return !out.error;
  }
  std::string where = "the call to '" + name + "'";
  LenientJson v = unwrap_string_arguments(*args);
  if (!v.value) {
    out.error = where + ": " + v.error;
    return false;
  }
  for (auto& r : v.repairs) out.repairs.push_back(std::move(r.insert(0, where + ": ")));
  add_call(out, name, *v.value);
  return !out.error;
}

// The calls of a list (or single object) of {"name", "arguments"}.
void add_calls(json value, FormatResult& out) {
  json list = value.is_object() ? json::array({std::move(value)}) : std::move(value);
  if (!list.is_array() || list.empty()) {
    out.error = "functools must be followed by a list of calls";
    return;
  }
  size_t n = 0;
  for (const auto& c : list) {
    ++n;
    if (!c.is_object() || !c.contains("name") || !c["name"].is_string() || c["name"].get<std::string>().empty()) {
      out.error = "call " + std::to_string(n) + " after functools has no \"name\"";
      return;
    }
    const json* args = c.contains("arguments") ? &c["arguments"] : nullptr;
    if (!add_json_call(out, c["name"].get<std::string>(), args)) return;
  }
}

// Whether the marker at text[pos] starts its line (only blanks before it) and is followed by '['.
bool is_marker(std::string_view text, size_t pos) {
  size_t after = pos + kMarker.size();
  if (after >= text.size() || text[after] != '[') return false;
  for (size_t i = pos; i > 0; --i) {  // back over blanks only: linear over all markers
    char c = text[i - 1];
    if (c == '\n') return true;
    if (c != ' ' && c != '\t' && c != '\r') return false;
  }
  return true;
}

class FirefunctionFormat final : public ToolCallFormat {
 public:
  std::string_view name() const override { return "firefunction"; }
  std::string_view description() const override {
    return "Firefunction v2: functools[{\"name\", \"arguments\"}] at the start of a line";
  }
  bool detect(std::string_view text) const override { return text.find("functools[") != npos; }

  FormatResult parse(std::string_view text, std::span<const ToolSpec>) const override {
    FormatResult out;
    size_t cursor = 0;  // start of the text not yet taken as content or calls
    size_t pos = 0;
    while (!out.error && (pos = text.find(kMarker, pos)) != npos) {
      if (!is_marker(text, pos)) {
        pos += kMarker.size();
        continue;
      }
      append_content(out.content, text.substr(cursor, pos - cursor));
      size_t start = pos + kMarker.size();
      size_t end = json_extent(text, start);
      bool open = end == npos;
      if (open) end = text.size();
      LenientJson p = parse_json_lenient(text.substr(start, end - start));
      cursor = pos = end;
      if (!p.value) {
        out.error = std::string(open ? "the functools call list was cut off: "
                                     : "the functools call list is not valid JSON: ") +
                    p.error;
        break;
      }
      for (auto& r : p.repairs) out.repairs.push_back("functools: " + r);
      add_calls(std::move(*p.value), out);
    }
    if (!out.error && cursor < text.size()) append_content(out.content, text.substr(cursor));
    return out;
  }
};

}  // namespace

std::unique_ptr<ToolCallFormat> make_firefunction_format() {
  return std::make_unique<FirefunctionFormat>();
}

}  // namespace keel::detail
