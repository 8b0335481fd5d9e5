// IBM Granite 3.x: <|tool_call|>[{"name": NAME, "arguments": {...}}, ...] (a single object instead
// of the list is accepted; "parameters" too). The format has no end token: JSON left open at the
// very end of the reply goes to the repair pass, which closes it only when nothing was cut off;
// otherwise it is an error. Text around the calls is content; <|end_of_text|> is dropped. A marker
// right after a backtick, or followed by anything but JSON, is a mention in prose.
#include <utility>

#include "core/parsing/formats/format_util.hpp"
#include "core/parsing/formats/formats.hpp"
#include "core/parsing/json/json_repair.hpp"
#include "core/text/text_util.hpp"

namespace keel::detail {
namespace {

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

// Reads the JSON value at text[pos] ('[' or '{'): to its balanced end, or — left open — to the end
// of the text, into `parsed`. Returns the end (exclusive); out.error is set when it is unusable.
size_t read_json(std::string_view text, size_t pos, FormatResult& out, LenientText& parsed) {
  bool open = false;
  const size_t end = lenient_json_at(text, pos, parsed, open);
  if (!parsed.ok()) {
    out.error = std::string(open ? "the tool call after <|tool_call|> was cut off: "
                                 : "the tool call after <|tool_call|> is not valid JSON: ") +
                parsed.error;
    return end;
  }
  for (auto& r : parsed.repairs) out.repairs.push_back("<|tool_call|>: " + r);
  return end;
}

// The calls of a list (or single object) of {"name", "arguments"}.
void add_calls(JsonView value, FormatResult& out) {
  if (!value.is_object() && (!value.is_array() || value.empty())) {
    out.error = "<|tool_call|> must be followed by a list of calls";
    return;
  }
  size_t n = 0;
  auto add = [&](JsonView c) {
    ++n;
    const auto [name, args, params] = c.find_each({"name", "arguments", "parameters"});
    if (!name || !name->is_string() || name->raw().size() == 2) {
      out.error = "call " + std::to_string(n) + " after <|tool_call|> has no \"name\"";
      return false;
    }
    return add_view_call(out, name->str(), args ? args : params);
  };
  for_each_call_object(value, add);
}

class GraniteFormat final : public ToolCallFormat {
 public:
  std::string_view name() const override { return "granite"; }
  std::string_view description() const override { return "Granite 3.x: <|tool_call|>[{\"name\", \"arguments\"}]"; }
  std::span<const std::string_view> markers() const override {
    static constexpr std::string_view kMarkers[] = {kMarker};
    return kMarkers;
  }

  FormatResult parse(std::string_view text, std::span<const ToolSpec>) const override {
    FormatResult out;
    size_t cursor = 0;  // start of the text not yet taken as content or calls
    size_t pos = 0;
    while (!out.error && (pos = find_literal(text, kMarker, pos)) != npos) {
      if (pos > 0 && text[pos - 1] == '`' && (pos == 1 || text[pos - 2] != '`')) {  // quoted in prose
        pos += kMarker.size();
        continue;
      }
      size_t start = skip_blanks(text, pos + kMarker.size());
      if (start == text.size()) start = npos;
      if (start != npos && text[start] != '[' && text[start] != '{') {  // prose mentioning the token
        pos += kMarker.size();
        continue;
      }
      append_content(out.content, text.substr(cursor, pos - cursor));
      if (start == npos) {
        out.error = "the tool call was cut off right after <|tool_call|>";
        return out;
      }
      LenientText value;
      cursor = pos = read_json(text, start, out, value);
      if (value.ok()) add_calls(value.view(), out);
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
