// Tencent Hunyuan HY v3 (and the ":opensource"-suffixed tags of HY v4): key/value calls in a
// <tool_calls> block, values untyped,
//   <tool_calls>
//   <tool_call>get_weather<tool_sep>
//   <arg_key>city</arg_key>
//   <arg_value>Paris</arg_value>
//   </tool_call>
//   </tool_calls>
// <tool_sep> after the name may be left out. Values are typed by the tool's JSON Schema. The
// older Hunyuan A13B JSON list in the same <tool_calls> tag is the tool_calls format's. Text
// outside the block is content; a call cut off inside is an error.
#include "core/parsing/formats/format_util.hpp"
#include "core/parsing/formats/formats.hpp"
#include "core/parsing/formats/text_scan.hpp"
#include "core/text/text_util.hpp"

namespace keel::detail {
namespace {
namespace hy_v3 {

constexpr std::string_view kOpen = "<tool_calls";

// The tag suffix (":opensource" or "") of a <tool_calls...> tag at `pos`; `end` is past its '>'.
// False when the tag is something else.
bool block_tag(std::string_view text, size_t pos, std::string_view& suffix, size_t& end) {
  size_t p = pos + kOpen.size();
  size_t s = p;
  if (p < text.size() && text[p] == ':') {
    ++p;
    while (p < text.size() && (is_alpha(text[p]) || is_digit(text[p]) || text[p] == '_')) ++p;
  }
  if (p >= text.size() || text[p] != '>') return false;
  suffix = text.substr(s, p - s);
  end = p + 1;
  return true;
}

// The block's tags, each with the block's suffix.
struct Tags {
  explicit Tags(std::string_view s)
      : close_all("</tool_calls" + std::string(s) + ">"),
        call("<tool_call" + std::string(s) + ">"),
        call_close("</tool_call" + std::string(s) + ">"),
        sep("<tool_sep" + std::string(s) + ">"),
        key("<arg_key" + std::string(s) + ">"),
        key_close("</arg_key" + std::string(s) + ">"),
        value("<arg_value" + std::string(s) + ">"),
        value_close("</arg_value" + std::string(s) + ">") {}
  std::string close_all, call, call_close, sep, key, key_close, value, value_close;
};

// Whether the <tool_calls...> block at `pos` holds HY calls (its body starts with <tool_call).
bool hy_block(std::string_view text, size_t pos, std::string_view& suffix, size_t& body) {
  size_t end;
  if (!block_tag(text, pos, suffix, end)) return false;
  body = skip_space(text, end);
  return starts_at(text, body, "<tool_call") && !starts_at(text, body, "<tool_calls");
}

class HyV3Format final : public ToolCallFormat {
 public:
  std::string_view name() const override { return "hy_v3"; }
  std::string_view description() const override {
    return "Hunyuan HY v3: <tool_calls><tool_call>NAME<tool_sep><arg_key>k</arg_key><arg_value>v</arg_value>"
           "</tool_call></tool_calls>";
  }
  std::span<const std::string_view> markers() const override {
    static constexpr std::string_view kMarkers[] = {kOpen};
    return kMarkers;
  }
  bool detect_marked(std::string_view text) const override {
    std::string_view suffix;
    size_t body;
    for (size_t pos = find_literal(text, kOpen); pos != kNpos; pos = find_literal(text, kOpen, pos + kOpen.size())) {
      if (hy_block(text, pos, suffix, body)) return true;
    }
    return false;
  }

  FormatResult parse(std::string_view text, std::span<const ToolSpec> tools) const override {
    FormatResult out;
    Cuts cuts;
    MarkdownCode code(text);
    size_t pos = 0;
    size_t open;
    while (!out.error && (open = find_outside_code(text, kOpen, pos, code)) != kNpos) {
      std::string_view suffix;
      size_t body;
      if (!hy_block(text, open, suffix, body)) {
        pos = open + kOpen.size();
        continue;
      }
      out.framed = true;
      size_t end = block(text, open, body, Tags(suffix), tools, out);
      cuts.emplace_back(open, end);
      code.consumed(end);
      pos = end;
    }
    out.content = text_outside(text, cuts);
    return out;
  }

 private:
  // Reads the calls of the block at `open` (body at `p`); returns the block's end.
  static size_t block(std::string_view text, size_t open, size_t p, const Tags& t, std::span<const ToolSpec> tools,
                      FormatResult& out) {
    const Label where({"<tool_calls>"}, open);
    auto skip_past = [&](std::string_view tag, size_t from) {
      size_t c = find_literal(text, tag, from);
      return c == kNpos ? text.size() : c + tag.size();
    };
    bool any = false;
    while (true) {
      size_t q = skip_space(text, p);
      if (starts_at(text, q, t.close_all)) return q + t.close_all.size();
      if (q == text.size()) {
        if (!any) fail(out, where + ": cut off before <tool_call>");
        return q;  // complete calls and the reply ended: the close tag was left out
      }
      if (!starts_at(text, q, t.call)) {
        fail(out, where + ": expected <tool_call> or </tool_calls> at offset " + std::to_string(q) + ", found " +
                      shown_char(text, q));
        return skip_past(t.close_all, q);
      }
      size_t name_b = skip_space(text, q + t.call.size());
      size_t name_e = name_end(text, name_b);
      if (name_e == text.size()) {
        fail(out, where + ": cut off inside the tool name at offset " + std::to_string(name_b));
        return text.size();
      }
      if (name_e == name_b) {
        fail(out, where + ": expected a tool name at offset " + std::to_string(name_b) + ", found " +
                      shown_char(text, name_b));
        return skip_past(t.close_all, name_b);
      }
      CallDraft draft;
      draft.name = std::string(text.substr(name_b, name_e - name_b));
      ParameterTypes types(tools, draft.name);
      JsonObjectWriter args;
      size_t r = skip_space(text, name_e);
      if (starts_at(text, r, t.sep)) r += t.sep.size();
      while (true) {
        r = skip_space(text, r);
        if (starts_at(text, r, t.call_close)) {
          p = r + t.call_close.size();
          break;
        }
        const size_t key_close = starts_at(text, r, t.key) ? find_literal(text, t.key_close, r + t.key.size()) : kNpos;
        const size_t v = key_close == kNpos ? kNpos : skip_space(text, key_close + t.key_close.size());
        const size_t value_close =
            v != kNpos && starts_at(text, v, t.value) ? find_literal(text, t.value_close, v + t.value.size()) : kNpos;
        if (r == text.size() || (starts_at(text, r, t.key) && (key_close == kNpos || v == text.size() ||
                                                               (value_close == kNpos && starts_at(text, v, t.value))))) {
          fail(out, where + ": the call to '" + draft.name + "' was cut off at offset " + std::to_string(r));
          return text.size();
        }
        if (value_close == kNpos) {
          fail(out, where + ": expected <arg_key>, <arg_value> or </tool_call> at offset " +
                        std::to_string(v == kNpos ? r : v) + " in the call to '" + draft.name + "'");
          return skip_past(t.close_all, r);
        }
        std::string_view key = trim(text.substr(r + t.key.size(), key_close - r - t.key.size()));
        args.key(key);
        write_typed_parameter(args, text.substr(v + t.value.size(), value_close - v - t.value.size()), types, key);
        r = value_close + t.value_close.size();
      }
      draft.valid_utf8 = args.valid();
      draft.arguments = std::move(args).finish();
      commit(out, std::move(draft), where);
      any = true;
    }
  }
};

}  // namespace hy_v3
}  // namespace

std::unique_ptr<ToolCallFormat> make_hy_v3_format() {
  return std::make_unique<hy_v3::HyV3Format>();
}

}  // namespace keel::detail
