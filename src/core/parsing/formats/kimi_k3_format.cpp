// Kimi-K3: the reply is written in tags built from <|open|>, <|close|> and <|sep|>,
//   <|open|>think<|sep|>REASONING<|close|>think<|sep|>
//   <|open|>response<|sep|>ANSWER<|close|>response<|sep|>
//   <|open|>tools<|sep|>
//   <|open|>call tool="get_weather" index="1"<|sep|>
//   <|open|>argument key="city" type="string"<|sep|>Paris<|close|>argument<|sep|>
//   <|close|>call<|sep|>...<|close|>tools<|sep|><|close|>message<|sep|><|end_of_msg|>
// The prompt opens the think (or, thinking off, the response) section, so a reply may start
// inside it: text before a first <|close|>think<|sep|> is reasoning. An argument's type attribute
// (string, number, boolean, null, object, array) types its value where the tool's JSON Schema
// does not; a call may instead carry its arguments as one <|open|>json type="object"<|sep|>{...}
// <|close|>json<|sep|>. Attribute values escape & and " as &amp; and &quot;. The message tags
// and <|end_of_msg|> are dropped; text outside the sections is content, and a tag right after a
// backtick is a mention in prose. A call cut off is an error.
#include "core/parsing/formats/format_util.hpp"
#include "core/parsing/formats/formats.hpp"
#include "core/parsing/formats/special_tokens.hpp"
#include "core/parsing/formats/text_scan.hpp"
#include "core/parsing/json/json_repair.hpp"
#include "core/text/text_util.hpp"

namespace keel::detail {
namespace {
namespace kimi_k3 {

constexpr std::string_view kOpen = "<|open|>";
constexpr std::string_view kClose = "<|close|>";
constexpr std::string_view kSep = "<|sep|>";
constexpr std::string_view kEndOfMsg = "<|end_of_msg|>";
constexpr std::string_view kThinkClose = "<|close|>think<|sep|>";
constexpr std::string_view kResponseClose = "<|close|>response<|sep|>";
constexpr std::string_view kToolsOpen = "<|open|>tools<|sep|>";
constexpr std::string_view kToolsClose = "<|close|>tools<|sep|>";
constexpr std::string_view kCallOpen = "<|open|>call";
constexpr std::string_view kCallClose = "<|close|>call<|sep|>";
constexpr std::string_view kArgOpen = "<|open|>argument";
constexpr std::string_view kArgClose = "<|close|>argument<|sep|>";
constexpr std::string_view kJsonOpen = "<|open|>json";
constexpr std::string_view kJsonClose = "<|close|>json<|sep|>";

// One tag: <|open|>NAME ATTRS<|sep|> or <|close|>NAME<|sep|>.
struct Tag {
  bool open = false;
  std::string_view name;
  std::string_view attrs;
  size_t end = kNpos;  // just past <|sep|>; kNpos when the text ends inside the tag
  bool ok = false;     // a tag (no other special token before its <|sep|>)
};

// The tag at `pos`, which holds <|open|> or <|close|>.
Tag tag_at(std::string_view text, size_t pos) {
  Tag t;
  t.open = starts_at(text, pos, kOpen);
  const size_t b = pos + (t.open ? kOpen.size() : kClose.size());
  const size_t next = text.find("<|", b);
  if (next == kNpos) return t;  // cut off inside the tag
  if (!starts_at(text, next, kSep)) {
    t.end = next;
    return t;
  }
  const std::string_view header = text.substr(b, next - b);
  const size_t space = header.find(' ');
  t.name = header.substr(0, space);
  t.attrs = space == kNpos ? std::string_view() : header.substr(space + 1);
  t.end = next + kSep.size();
  t.ok = true;
  return t;
}

// The value of attribute `key` in `attrs` (key="value"), its &amp; and &quot; unescaped.
std::string attribute(std::string_view attrs, std::string_view key) {
  for (size_t at = attrs.find(key); at != kNpos; at = attrs.find(key, at + 1)) {
    if ((at > 0 && attrs[at - 1] != ' ') || !starts_at(attrs, at + key.size(), "=\"")) continue;
    const size_t b = at + key.size() + 2;
    const size_t e = attrs.find('"', b);
    const std::string_view raw = attrs.substr(b, (e == kNpos ? attrs.size() : e) - b);
    std::string out;
    out.reserve(raw.size());
    for (size_t i = 0; i < raw.size(); ++i) {
      if (raw[i] == '&') {
        if (starts_at(raw, i, "&quot;")) {
          out += '"';
          i += 5;
          continue;
        }
        if (starts_at(raw, i, "&amp;")) {
          out += '&';
          i += 4;
          continue;
        }
      }
      out += raw[i];
    }
    return out;
  }
  return {};
}

// Reads the call whose tag opens at `pos`; returns where reading goes on.
size_t read_call(std::string_view text, size_t pos, std::span<const ToolSpec> tools, FormatResult& out) {
  const Tag head = tag_at(text, pos);
  const Label call({"the Kimi-K3 call"}, pos);  // the messages' subjects, written only for a message
  if (!head.ok) {
    fail(out, call + (head.end == kNpos ? " was cut off in its tag" : " has a malformed tag"));
    return head.end == kNpos ? text.size() : head.end;
  }
  CallDraft draft;
  draft.name = attribute(head.attrs, "tool");
  if (draft.name.empty()) {
    fail(out, call + " names no tool (tool=\"...\")");
    return head.end;
  }
  const Label where({"the call to '", draft.name, "'"}, pos);
  ParameterTypes types(tools, draft.name);
  JsonObjectWriter args;
  std::optional<std::string> json_args;
  size_t p = head.end;
  while (true) {
    const size_t q = skip_space(text, p);
    if (q == text.size()) {
      fail(out, where + " was cut off before " + std::string(kCallClose));
      return q;
    }
    if (starts_at(text, q, kCallClose)) {
      p = q + kCallClose.size();
      break;
    }
    const bool argument = starts_at(text, q, kArgOpen);
    if (!argument && !starts_at(text, q, kJsonOpen)) {
      fail(out, where + ": expected <|open|>argument or " + std::string(kCallClose) + " at offset " +
                    std::to_string(q) + ", found " + shown_char(text, q));
      return q;
    }
    const Tag t = tag_at(text, q);
    const std::string_view close = argument ? kArgClose : kJsonClose;
    const size_t value_e = t.ok ? find_literal(text, close, t.end) : kNpos;
    if (value_e == kNpos) {
      fail(out, where + " was cut off inside the " + std::string(argument ? "argument" : "JSON arguments") +
                    " at offset " + std::to_string(q));
      return text.size();
    }
    const std::string_view value = text.substr(t.end, value_e - t.end);
    p = value_e + close.size();
    if (!argument) {
      LenientText parsed = parse_json_lenient_text(trim(value));
      if (!parsed.ok() || !parsed.view().is_object()) {
        fail(out, where + ": the JSON arguments at offset " + std::to_string(t.end) + " are not an object" +
                      (parsed.ok() ? std::string() : " (" + parsed.error + ")"));
        return p;
      }
      for (auto& r : parsed.repairs) draft.repairs.push_back(prefixed(where, std::move(r)));
      std::string compact;
      parsed.view().append_compact(compact);
      json_args = std::move(compact);
      continue;
    }
    const std::string key = attribute(t.attrs, "key");
    if (key.empty()) {
      fail(out, where + ": the argument at offset " + std::to_string(q) + " has no key");
      return p;
    }
    args.key(key);
    const std::string_view declared = types.of(key);
    if (declared.empty() && !types.nullable()) {  // the model's own type attribute
      if (!append_typed_value(args.text(), value, attribute(t.attrs, "type"), false)) args.mark_invalid();
    } else {
      write_typed_parameter(args, value, types, key);
    }
  }
  draft.valid_utf8 = args.valid();
  draft.arguments = json_args ? std::move(*json_args) : std::move(args).finish();
  commit(out, std::move(draft), where);
  return p;
}

// Reads the tools section whose contents start at `pos` (after its tag at `open`); returns its end.
size_t read_tools(std::string_view text, size_t open, size_t pos, std::span<const ToolSpec> tools, FormatResult& out) {
  bool any = false;
  while (!out.error) {
    const size_t q = skip_space(text, pos);
    if (starts_at(text, q, kToolsClose)) return q + kToolsClose.size();
    if (q == text.size()) {
      if (!any) fail(out, "the Kimi-K3 tools section at offset " + std::to_string(open) + " was cut off before a call");
      return q;
    }
    if (!starts_at(text, q, kCallOpen)) {
      if (any) return q;  // its closing tag was lost: what follows is read as the reply goes on
      fail(out, "the Kimi-K3 tools section at offset " + std::to_string(open) + ": expected <|open|>call at offset " +
                    std::to_string(q) + ", found " + shown_char(text, q));
      return q;
    }
    pos = read_call(text, q, tools, out);
    any = true;
  }
  return pos;
}

// The next <|open|>, <|close|> or <|end_of_msg|> at or after `from`; one right after a backtick is
// a mention in prose.
size_t next_tag(std::string_view text, size_t from) {
  for (size_t at = text.find("<|", from); at != kNpos; at = text.find("<|", at + 2)) {
    if (at > 0 && text[at - 1] == '`') continue;
    if (starts_at(text, at, kOpen) || starts_at(text, at, kClose) || starts_at(text, at, kEndOfMsg)) return at;
  }
  return kNpos;
}

class KimiK3Format final : public ToolCallFormat {
 public:
  std::string_view name() const override { return "kimi_k3"; }
  std::string_view description() const override {
    return "Kimi-K3: <|open|>tools<|sep|><|open|>call tool=\"N\" index=\"1\"<|sep|><|open|>argument key=\"K\" "
           "type=\"T\"<|sep|>v<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|>";
  }
  // Every tag ends in <|sep|> (keyed in the shared scan beside harmony's <|start|>, where <|open|>
  // and <|close|> would add comparisons at each <|channel|> and <|call|>).
  std::span<const std::string_view> markers() const override {
    static constexpr std::string_view kMarkers[] = {kSep};
    return kMarkers;
  }

  FormatResult parse(std::string_view text, std::span<const ToolSpec> tools) const override {
    FormatResult out;
    Finder think_close(text, kThinkClose);
    Finder response_close(text, kResponseClose);
    Finder tools_open(text, kToolsOpen);
    size_t pos = 0;
    bool first = true;
    while (!out.error && pos < text.size()) {
      const size_t at = next_tag(text, pos);
      const size_t stop = at == kNpos ? text.size() : at;
      // Text before the first tag is in the section the prompt opened: reasoning when the
      // reply goes on to close the think section.
      const bool reasoning = first && at != kNpos && starts_at(text, at, kThinkClose);
      append_line(reasoning ? out.reasoning : out.content, text.substr(pos, stop - pos));
      first = false;
      if (at == kNpos) break;
      out.framed = true;
      if (starts_at(text, at, kEndOfMsg)) {
        pos = at + kEndOfMsg.size();
        continue;
      }
      const Tag t = tag_at(text, at);
      if (!t.ok) {  // a token that opens no tag: text, or a reply cut off inside a tag
        if (t.end == kNpos) break;
        append_line(out.content, text.substr(at, t.end - at));
        pos = t.end;
        continue;
      }
      pos = t.end;
      if (!t.open) continue;  // closing tags of sections read already, and of the message
      if (t.name == "think") {
        const size_t e = std::min(think_close.next(pos), text.size());
        append_line(out.reasoning, text.substr(pos, e - pos));
        pos = e == text.size() ? e : e + kThinkClose.size();
      } else if (t.name == "response") {
        const size_t close = response_close.next(pos);
        const size_t e = std::min({close, tools_open.next(pos), text.size()});
        append_line(out.content, text.substr(pos, e - pos));
        pos = e == close ? e + kResponseClose.size() : e;  // a lost closing tag: the tools follow
      } else if (t.name == "tools") {
        pos = read_tools(text, at, pos, tools, out);
      } else if (t.name == "call") {  // a call outside a tools section
        pos = read_call(text, at, tools, out);
      }
    }
    return out;
  }
};

}  // namespace kimi_k3
}  // namespace

std::unique_ptr<ToolCallFormat> make_kimi_k3_format() {
  return std::make_unique<kimi_k3::KimiK3Format>();
}

}  // namespace keel::detail
