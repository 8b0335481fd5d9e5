// Mistral tool calls, both generations:
//   [TOOL_CALLS][{"name": NAME, "arguments": {...}, "id": "abc123xyz"}, ...]      (v3 tokenizer; id optional)
//   [TOOL_CALLS]NAME[ARGS]{...}[TOOL_CALLS]NAME[ARGS]{...}                          (Small 3.2, Magistral, Devstral)
//   [TOOL_CALLS]NAME[CALL_ID]abc123xyz[ARGS]{...}
//   [TOOL_CALLS]NAME{...}                    (v11 output decoded without special tokens: [ARGS] is gone)
// [THINK]...[/THINK] is reasoning (Magistral); a trailing </s>, and a [/TOOL_CALLS] after a call
// (as Ollama's Mistral templates write it), are dropped. There is no end token:
// JSON left open at the very end of the reply goes to the repair pass, which closes it only when
// nothing was cut off; otherwise it is an error. A marker right after a backtick, or followed by a
// space and words, is a mention in prose.
#include <cctype>
#include <utility>

#include "core/parsing/formats/format_util.hpp"
#include "core/parsing/formats/formats.hpp"
#include "core/parsing/json/json_repair.hpp"
#include "core/text/text_util.hpp"

namespace keel::detail {
namespace {

constexpr size_t npos = std::string_view::npos;
constexpr std::string_view kCalls = "[TOOL_CALLS]";
constexpr std::string_view kArgs = "[ARGS]";
constexpr std::string_view kCallId = "[CALL_ID]";
constexpr std::string_view kCallsEnd = "[/TOOL_CALLS]";

// Appends `piece` to the content, without a trailing </s>.
void append_content(std::string& to, std::string_view piece) {
  std::string_view t = trim(piece);
  while (t.size() >= 4 && t.substr(t.size() - 4) == "</s>") t = trim(t.substr(0, t.size() - 4));
  if (t.empty()) return;
  if (!to.empty()) to += "\n";
  to.append(t);
}

// Splits [THINK]...[/THINK] off; a reply that starts inside the block (only [/THINK]) or ends
// inside it (no [/THINK]) is handled like <think>. Returns the visible text: `text` itself when it
// holds no block, else a view of `visible`.
std::string_view split_think(std::string_view text, std::string& reasoning, std::string& visible) {
  constexpr std::string_view kOpen = "[THINK]";
  constexpr std::string_view kClose = "[/THINK]";
  if (find_literal(text, "THINK]") == npos) return text;
  auto add = [&](std::string_view r) {
    r = trim(r);
    if (r.empty()) return;
    if (!reasoning.empty()) reasoning += "\n";
    reasoning.append(r);
  };
  size_t pos = 0;
  size_t first_close = text.find(kClose);
  if (first_close != npos && text.substr(0, first_close).find(kOpen) == npos) {
    add(text.substr(0, first_close));
    pos = skip_blanks(text, first_close + kClose.size());
  }
  while (pos < text.size()) {
    size_t open = text.find(kOpen, pos);
    if (open == npos) {
      visible.append(text.substr(pos));
      break;
    }
    std::string_view before = text.substr(pos, open - pos);  // the whitespace around a block goes with it
    while (!before.empty() && is_blank(before.back())) before.remove_suffix(1);
    visible.append(before);
    size_t close = text.find(kClose, open + kOpen.size());
    if (close == npos) {
      add(text.substr(open + kOpen.size()));
      break;
    }
    add(text.substr(open + kOpen.size(), close - open - kOpen.size()));
    pos = skip_blanks(text, close + kClose.size());
  }
  return visible;
}

// Reads the JSON value at text[pos] ('[' or '{'): to its balanced end, or — left open — to the end
// of the text, into `parsed`. Returns the end (exclusive); out.error is set when it is unusable.
// what() names the value for messages (called only for one).
template <class What>
size_t read_json(std::string_view text, size_t pos, What&& what, FormatResult& out, LenientText& parsed) {
  bool open = false;
  const size_t end = lenient_json_at(text, pos, parsed, open);
  if (!parsed.ok()) {
    out.error = what() + (open ? " was cut off: " : " is not valid JSON: ") + parsed.error;
    return end;
  }
  for (auto& r : parsed.repairs) out.repairs.push_back(prefixed(what(), std::move(r)));
  return end;
}

// The calls of a v3 list (or single object) of {"name", "arguments", "id"?}.
void add_list(JsonView value, FormatResult& out) {
  if (!value.is_object() && (!value.is_array() || value.empty())) {
    out.error = "[TOOL_CALLS] must be followed by a list of calls";
    return;
  }
  size_t n = 0;
  auto add = [&](JsonView c) {
    ++n;
    const auto [name, args, id] = c.find_each({"name", "arguments", "id"});
    if (!name || !name->is_string() || name->raw().size() == 2) {
      out.error = "call " + std::to_string(n) + " after [TOOL_CALLS] has no \"name\"";
      return false;
    }
    return add_view_call(out, name->str(), args, id && id->is_string() ? id->str() : "");
  };
  for_each_call_object(value, add);
}

bool name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
}

size_t skip_space(std::string_view s, size_t pos) {
  return skip_blanks(s, pos);
}

// Reads one call after [TOOL_CALLS] (at text[pos]); returns where its text ends, or npos when
// the marker is prose ("[TOOL_CALLS] marks calls": a word after a space, neither glued to the
// marker nor followed by [ARGS]).
size_t read_call(std::string_view text, size_t pos, FormatResult& out) {
  size_t p = skip_space(text, pos);
  if (p == text.size()) {
    out.error = "the tool call was cut off right after [TOOL_CALLS]";
    return p;
  }
  if (text.substr(p, kArgs.size()) == kArgs || text.substr(p, kCallId.size()) == kCallId) {
    out.error = "[TOOL_CALLS] is followed by [ARGS] or [CALL_ID] without a tool name";
    return p;
  }
  if (text[p] == '{' || text[p] == '[') {
    LenientText value;
    size_t end = read_json(
        text, p, [] { return std::string("the tool-call list after [TOOL_CALLS]"); }, out, value);
    if (value.ok()) add_list(value.view(), out);
    return end;
  }
  size_t e = p;
  while (e < text.size() && name_char(text[e])) ++e;
  size_t next = skip_space(text, e);
  // vLLM's v11 decoding drops the [ARGS] token: NAME{...} with the object glued to the name.
  const bool glued_args = e < text.size() && text[e] == '{';
  bool marked = glued_args || text.substr(next, kArgs.size()) == kArgs || text.substr(next, kCallId.size()) == kCallId;
  if (e == p || (p != pos && !marked)) return npos;  // no name glued to the marker, nor NAME[ARGS]
  std::string name(text.substr(p, e - p));
  auto where = [&] { return "the call to '" + name + "'"; };  // built only for a message
  std::string id;
  p = next;
  if (text.substr(p, kCallId.size()) == kCallId) {
    e = p + kCallId.size();
    while (e < text.size() && name_char(text[e])) ++e;
    id = std::string(text.substr(p + kCallId.size(), e - p - kCallId.size()));
    p = skip_space(text, e);
  }
  if (p == text.size()) {
    out.error = where() + " was cut off before [ARGS]";
    return p;
  }
  if (glued_args) {
    p = e;
  } else if (text.substr(p, kArgs.size()) != kArgs) {
    out.error = "expected [ARGS] after the tool name in " + where();
    return p;
  } else {
    p = skip_space(text, p + kArgs.size());
  }
  if (p == text.size()) {
    out.error = where() + " was cut off before its arguments";
    return p;
  }
  if (text[p] != '{') {
    out.error = where() + ": [ARGS] must be followed by a JSON object";
    return p;
  }
  LenientText value;
  size_t end = read_json(text, p, where, out, value);
  if (value.ok()) add_view_call(out, std::move(name), value.view(), std::move(id));
  return end;
}

class MistralFormat final : public ToolCallFormat {
 public:
  std::string_view name() const override { return "mistral"; }
  std::string_view description() const override {
    return "Mistral: [TOOL_CALLS][{\"name\", \"arguments\", \"id\"}] and [TOOL_CALLS]NAME[CALL_ID]ID[ARGS]{...}; "
           "[THINK]";
  }
  std::span<const std::string_view> markers() const override {
    static constexpr std::string_view kMarkers[] = {kCalls, "THINK]"};
    return kMarkers;
  }

  FormatResult parse(std::string_view reply, std::span<const ToolSpec>) const override {
    FormatResult out;
    std::string visible;
    const std::string_view text = split_think(reply, out.reasoning, visible);
    size_t cursor = 0;  // start of the text not yet taken as content or calls
    size_t pos = 0;
    while (!out.error && (pos = find_literal(text, kCalls, pos)) != npos) {
      if (pos > 0 && text[pos - 1] == '`' && (pos == 1 || text[pos - 2] != '`')) {  // quoted in prose
        pos += kCalls.size();
        continue;
      }
      size_t end = read_call(text, pos + kCalls.size(), out);
      if (end == npos) {  // prose: the marker stays in the content
        pos += kCalls.size();
        continue;
      }
      append_content(out.content, text.substr(cursor, pos - cursor));
      if (const size_t after = skip_blanks(text, end); text.substr(after, kCallsEnd.size()) == kCallsEnd) {
        end = after + kCallsEnd.size();  // a closing tag some chat templates add
      }
      cursor = pos = end;
    }
    if (!out.error && cursor < text.size()) append_content(out.content, text.substr(cursor));
    return out;
  }
};

}  // namespace

std::unique_ptr<ToolCallFormat> make_mistral_format() {
  return std::make_unique<MistralFormat>();
}

}  // namespace keel::detail
