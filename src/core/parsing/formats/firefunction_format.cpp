// Fireworks Firefunction v2: ` functools[{"name": NAME, "arguments": {...}}, ...]`. The marker is
// plain text, so it counts only at the start of a line (the model prints it first) and directly
// before '[': "Python's functools module" or `functools[...]` quoted mid-sentence is prose. There
// is no end token: JSON left open at the very end of the reply goes to the repair pass, which
// closes it only when nothing was cut off; otherwise it is an error. Text around it is content.
#include <utility>

#include "core/parsing/formats/format_util.hpp"
#include "core/parsing/formats/formats.hpp"
#include "core/parsing/json/json_repair.hpp"
#include "core/text/text_util.hpp"

namespace keel::detail {
namespace {

constexpr size_t npos = std::string_view::npos;
constexpr std::string_view kMarker = "functools";

void append_content(std::string& to, std::string_view piece) {
  std::string_view t = trim(piece);
  if (t.empty()) return;
  if (!to.empty()) to += "\n";
  to.append(t);
}

// The calls of a list (or single object) of {"name", "arguments"}.
void add_calls(JsonView value, FormatResult& out) {
  if (!value.is_object() && (!value.is_array() || value.empty())) {
    out.error = "functools must be followed by a list of calls";
    return;
  }
  size_t n = 0;
  auto add = [&](JsonView c) {
    ++n;
    const auto [name, args] = c.find_each({"name", "arguments"});
    if (!name || !name->is_string() || name->raw().size() == 2) {
      out.error = "call " + std::to_string(n) + " after functools has no \"name\"";
      return false;
    }
    return add_view_call(out, name->str(), args);
  };
  for_each_call_object(value, add);
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
  std::span<const std::string_view> markers() const override {
    static constexpr std::string_view kMarkers[] = {"functools["};
    return kMarkers;
  }

  FormatResult parse(std::string_view text, std::span<const ToolSpec>) const override {
    FormatResult out;
    size_t cursor = 0;  // start of the text not yet taken as content or calls
    size_t pos = 0;
    while (!out.error && (pos = find_literal(text, kMarker, pos)) != npos) {
      if (!is_marker(text, pos)) {
        pos += kMarker.size();
        continue;
      }
      append_content(out.content, text.substr(cursor, pos - cursor));
      bool open = false;
      LenientText p;
      cursor = pos = lenient_json_at(text, pos + kMarker.size(), p, open);
      if (!p.ok()) {
        out.error = std::string(open ? "the functools call list was cut off: "
                                     : "the functools call list is not valid JSON: ") +
                    p.error;
        break;
      }
      for (auto& r : p.repairs) out.repairs.push_back("functools: " + r);
      add_calls(p.view(), out);
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
