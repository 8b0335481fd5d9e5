// IBM Granite 3.x: <|tool_call|>[{"name": NAME, "arguments": {...}}, ...] (a single object instead
// of the list is accepted; "parameters" too), and Granite 20B function calling:
// <function_call> {"name": NAME, "arguments": {...}}, one marker per call. Granite 3.3's answer
// after its thinking comes in <response>...</response>: a reply that starts with <response> is
// read without those tags. The format has no end token: JSON left open at the
// very end of the reply goes to the repair pass, which closes it only when nothing was cut off;
// otherwise it is an error. Text around the calls is content; <|end_of_text|> is dropped. A marker
// right after a backtick, or followed by anything but JSON, is a mention in prose.
#include <algorithm>
#include <utility>

#include "core/parsing/formats/format_util.hpp"
#include "core/parsing/formats/formats.hpp"
#include "core/parsing/formats/text_scan.hpp"
#include "core/parsing/json/json_repair.hpp"
#include "core/text/text_util.hpp"

namespace keel::detail {
namespace {

constexpr size_t npos = std::string_view::npos;
constexpr std::string_view kMarker = "<|tool_call|>";
constexpr std::string_view kFunctionCall = "<function_call>";
constexpr std::string_view kResponse = "<response>";
constexpr std::string_view kResponseEnd = "</response>";
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
size_t read_json(std::string_view text, size_t pos, std::string_view marker, FormatResult& out, LenientText& parsed,
                 bool& open) {
  const size_t end = lenient_json_at(text, pos, parsed, open);
  // Left open, a ',', ':' or an opening bracket last means more was coming: nothing to close.
  const std::string_view tail = trim(text.substr(pos));
  if (parsed.ok() && open && (tail.back() == ',' || tail.back() == ':' || tail.back() == '{' || tail.back() == '[')) {
    parsed.error = "it ends with '" + std::string(1, tail.back()) + "' at offset " +
                   std::to_string(static_cast<size_t>(tail.data() - text.data()) + tail.size() - 1);
  }
  if (!parsed.ok()) {
    out.error =
        concat({"the tool call after ", marker, open ? " was cut off: " : " is not valid JSON: "}) + parsed.error;
    return end;
  }
  for (auto& r : parsed.repairs) out.repairs.push_back(concat({marker, ": "}) + r);
  return end;
}

// The calls of a list (or single object) of {"name", "arguments"}.
// `open`: the JSON ran to the end of the reply and was closed by the repair pass; a call without
// arguments was then cut off before them.
void add_calls(JsonView value, std::string_view marker, bool open, FormatResult& out) {
  if (!value.is_object() && (!value.is_array() || value.empty())) {
    out.error = concat({marker, " must be followed by a list of calls"});
    return;
  }
  size_t n = 0;
  auto add = [&](JsonView c) {
    ++n;
    const auto [name, args, params] = c.find_each({"name", "arguments", "parameters"});
    if (!name || !name->is_string() || name->raw().size() == 2) {
      out.error = concat({"call ", std::to_string(n), " after ", marker, " has no \"name\""});
      return false;
    }
    if (open && !args && !params) {
      out.error = concat({"the call to '", name->str(), "' after ", marker, " was cut off before its arguments"});
      return false;
    }
    return add_view_call(out, name->str(), args ? args : params);
  };
  for_each_call_object(value, add);
}

class GraniteFormat final : public ToolCallFormat {
 public:
  std::string_view name() const override { return "granite"; }
  std::string_view description() const override {
    return "Granite 3.x: <|tool_call|>[{\"name\", \"arguments\"}]; Granite 20B: <function_call> {\"name\", "
           "\"arguments\"}";
  }
  std::span<const std::string_view> markers() const override {
    static constexpr std::string_view kMarkers[] = {kMarker, kFunctionCall, kResponse};
    return kMarkers;
  }

  // <function_call>...</function_call> with its closing tag is Hermes' wrapper, not Granite 20B's
  // one-marker-per-call form (which has no closing tag).
  bool detect_marked(std::string_view text) const override {
    return text.find(kMarker) != npos || text.find(kResponse) != npos || text.find("</function_call>") == npos;
  }

  FormatResult parse(std::string_view text, std::span<const ToolSpec>) const override {
    FormatResult out;
    // Granite 3.3 with thinking wraps its answer in <response>...</response>; the tags go.
    if (std::string_view t = trim(text); t.starts_with(kResponse)) {
      t.remove_prefix(kResponse.size());
      if (t.ends_with(kResponseEnd)) t.remove_suffix(kResponseEnd.size());
      text = t;
      out.framed = true;
    }
    size_t cursor = 0;  // start of the text not yet taken as content or calls
    size_t pos = 0;
    while (!out.error) {
      std::string_view marker;  // the next of the two markers, found in one pass over the '<'s
      for (pos = text.find('<', pos); pos != npos; pos = text.find('<', pos + 1)) {
        if (starts_at(text, pos, kMarker)) {
          marker = kMarker;
          break;
        }
        if (starts_at(text, pos, kFunctionCall)) {
          marker = kFunctionCall;
          break;
        }
      }
      if (pos == npos) break;
      if (pos > 0 && text[pos - 1] == '`' && (pos == 1 || text[pos - 2] != '`')) {  // quoted in prose
        pos += marker.size();
        continue;
      }
      size_t start = skip_blanks(text, pos + marker.size());
      if (start == text.size()) start = npos;
      if (start != npos && text[start] != '[' && text[start] != '{') {  // prose mentioning the token
        pos += marker.size();
        continue;
      }
      append_content(out.content, text.substr(cursor, pos - cursor));
      if (start == npos) {
        out.error = concat({"the tool call was cut off right after ", marker});
        return out;
      }
      LenientText value;
      bool open = false;
      cursor = pos = read_json(text, start, marker, out, value, open);
      if (value.ok()) add_calls(value.view(), marker, open, out);
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
