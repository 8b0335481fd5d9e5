// DeepSeek tool-call sections, with the tokens exactly as the chat templates print them
// (fullwidth bar U+FF5C, lower one-eighth block U+2581):
//   R1 / V3-0324:  <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME
//                  ```json\n{...}\n```<｜tool▁call▁end｜>...<｜tool▁calls▁end｜>
//   V3.1:          <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{...}<｜tool▁call▁end｜>...
//   V3.2 (DSML):   <｜DSML｜function_calls>
//                  <｜DSML｜invoke name="NAME">
//                  <｜DSML｜parameter name="KEY" string="true|false">VALUE</｜DSML｜parameter>
//                  </｜DSML｜invoke>
//                  </｜DSML｜function_calls>
//   V4 (DSML):     the same, wrapped in <｜DSML｜tool_calls>...</｜DSML｜tool_calls>
// R1 distills may open the first call with <｜tool▁calls｜> alone. Text outside the section is
// content; <｜end▁of▁sentence｜> is dropped. A call without
// <｜tool▁call▁end｜> counts when its JSON is complete (the reply stopped after it) and is an
// error when it is not; a section whose calls lack <｜tool▁call▁begin｜> is an error too. Tokens
// right after a backtick are a mention in prose. A DSML value marked
// string="true" is text unless the tool's schema types it; string="false" values are JSON.
#include <array>
#include <utility>

#include "core/parsing/formats/format_util.hpp"
#include "core/parsing/formats/formats.hpp"
#include "core/parsing/formats/special_tokens.hpp"
#include "core/parsing/formats/text_scan.hpp"
#include "core/parsing/json/json_repair.hpp"
#include "core/text/text_util.hpp"

namespace keel::detail {
namespace {

constexpr size_t npos = std::string_view::npos;

enum class Tok { kText, kCallsBegin, kCallBegin, kSep, kCallEnd, kCallsEnd, kEos };

constexpr std::string_view kCallEndToken = "<｜tool▁call▁end｜>";
constexpr std::array<std::pair<std::string_view, Tok>, 7> kTokens = {{
    {"<｜tool▁calls▁begin｜>", Tok::kCallsBegin},
    {"<｜tool▁calls｜>", Tok::kCallBegin},  // R1 distills also open the first call with it
    {"<｜tool▁call▁begin｜>", Tok::kCallBegin},
    {"<｜tool▁sep｜>", Tok::kSep},
    {kCallEndToken, Tok::kCallEnd},
    {"<｜tool▁calls▁end｜>", Tok::kCallsEnd},
    {"<｜end▁of▁sentence｜>", Tok::kEos},
}};
constexpr std::string_view kPrefix = "<｜";
constexpr auto kTable = special_tokens(kPrefix, kTokens);

using Piece = TokenPiece<Tok>;

// Splits the reply into text and special tokens in one pass.
TokenPieces<Tok> tokenize(std::string_view s) {
  return split_special_tokens(s, kTable);
}

std::optional<std::string> call_arguments(std::string_view body, bool terminated, std::string_view name,
                                          FormatResult& out) {
  return special_call_arguments(body, terminated, name, kCallEndToken, out);
}

// R1's arguments: an optional ```json fence around the JSON.
std::string_view unfence(std::string_view s) {
  s = trim(s);
  if (s.substr(0, 3) != "```") return s;
  size_t nl = s.find('\n');
  if (nl == npos) return {};  // cut off inside the fence line
  s = trim(s.substr(nl + 1));
  if (s.size() >= 3 && s.substr(s.size() - 3) == "```") s = trim(s.substr(0, s.size() - 3));
  return s;
}

constexpr std::string_view kDsml = "<｜DSML｜";

// A DSML block's wrapper: V3.2 writes function_calls, V4 tool_calls.
struct DsmlWrapper {
  std::string_view open;
  std::string_view close;
};
constexpr DsmlWrapper kDsmlWrappers[] = {{"<｜DSML｜function_calls>", "</｜DSML｜function_calls>"},
                                         {"<｜DSML｜tool_calls>", "</｜DSML｜tool_calls>"}};

// The first DSML block opening at or after `from` (npos when none), and its wrapper. A wrapper
// right after a backtick is a mention in prose.
size_t find_dsml_block(std::string_view text, size_t from, const DsmlWrapper*& wrapper) {
  for (size_t at = find_literal(text, kDsml, from); at != npos; at = find_literal(text, kDsml, at + kDsml.size())) {
    if (at > 0 && text[at - 1] == '`') continue;
    for (const DsmlWrapper& w : kDsmlWrappers) {
      if (starts_at(text, at, w.open)) {
        wrapper = &w;
        return at;
      }
    }
  }
  return npos;
}

constexpr std::string_view kDsmlInvoke = "<｜DSML｜invoke name=\"";
constexpr std::string_view kDsmlInvokeEnd = "</｜DSML｜invoke>";
constexpr std::string_view kDsmlParam = "<｜DSML｜parameter name=\"";
constexpr std::string_view kDsmlParamEnd = "</｜DSML｜parameter>";

// One DSML parameter as written.
struct DsmlParam {
  std::string_view key;
  std::string_view value;
  bool text = false;  // string="true"
};

// Reads the <｜DSML｜invoke name="..."> at `pos`; adds the call or sets out.error. Returns where
// reading goes on, or npos when the reply ended inside the call.
size_t dsml_invoke(std::string_view text, size_t pos, std::span<const ToolSpec> tools, FormatResult& out) {
  const Label where({"<｜DSML｜invoke>"}, pos);
  const size_t name_b = pos + kDsmlInvoke.size();
  const size_t name_e = text.find('"', name_b);
  if (name_e == npos) {
    fail(out, where + ": cut off inside the tool name");
    return npos;
  }
  if (!starts_at(text, name_e, "\">") || name_e == name_b) {
    fail(out, where + ": expected NAME\"> at offset " + std::to_string(name_b));
    return name_e;
  }
  std::string name(text.substr(name_b, name_e - name_b));
  std::vector<DsmlParam> params;
  size_t p = name_e + 2;
  while (true) {
    const size_t q = skip_space(text, p);
    if (q == text.size()) {
      fail(out, where + ": the call to '" + name + "' was cut off before </｜DSML｜invoke>");
      return npos;
    }
    if (starts_at(text, q, kDsmlInvokeEnd)) {
      p = q + kDsmlInvokeEnd.size();
      break;
    }
    if (!starts_at(text, q, kDsmlParam)) {
      fail(out, where + ": expected <｜DSML｜parameter name=...> or </｜DSML｜invoke> at offset " + std::to_string(q));
      return q;
    }
    const size_t key_b = q + kDsmlParam.size();
    const size_t key_e = text.find('"', key_b);
    const size_t tag_e = key_e == npos ? npos : text.find('>', key_e);
    const size_t value_e = tag_e == npos ? npos : find_literal(text, kDsmlParamEnd, tag_e + 1);
    if (value_e == npos) {
      fail(out, where + ": the call to '" + name + "' was cut off inside a parameter");
      return npos;
    }
    const std::string_view attrs = text.substr(key_e + 1, tag_e - key_e - 1);
    params.push_back({text.substr(key_b, key_e - key_b), text.substr(tag_e + 1, value_e - tag_e - 1),
                      attrs.find("string=\"true\"") != npos});
    p = value_e + kDsmlParamEnd.size();
  }
  ParameterTypes types(tools, name);
  // A lone "arguments" / "input" parameter the schema does not declare, holding the arguments
  // object, wraps the arguments themselves.
  if (params.size() == 1 && (params[0].key == "arguments" || params[0].key == "input") && types.known() &&
      !types.declared(params[0].key)) {
    LenientText inner = parse_json_lenient_text(trim(params[0].value));
    if (inner.ok() && inner.view().is_object()) {
      std::string args;
      inner.view().append_compact(args);
      out.repairs.push_back(where + ": took the arguments out of the '" + std::string(params[0].key) + "' wrapper");
      add_call(out, std::move(name), std::move(args));
      return p;
    }
  }
  JsonObjectWriter args;
  for (const DsmlParam& d : params) {
    args.key(d.key);
    if (d.text && types.of(d.key).empty() && !types.nullable()) {
      args.string_value(d.value);
    } else {
      write_typed_parameter(args, d.value, types, d.key);
    }
  }
  if (!args.valid()) {
    fail(out, where + ": the arguments are not valid UTF-8");
    return p;
  }
  add_call(out, std::move(name), std::move(args).finish());
  return p;
}

// The DSML (V3.2, V4) blocks of the reply.
FormatResult parse_dsml(std::string_view text, std::span<const ToolSpec> tools) {
  FormatResult out;
  Cuts cuts;
  size_t pos = 0;
  size_t open;
  const DsmlWrapper* w = nullptr;
  while (!out.error && (open = find_dsml_block(text, pos, w)) != npos) {
    size_t p = open + w->open.size();
    size_t end = text.size();
    while (true) {
      const size_t q = skip_space(text, p);
      if (q == text.size()) {
        if (out.calls.empty() && !out.error)
          fail(out, std::string(w->open) + " at offset " + std::to_string(open) + ": cut off before a call");
        break;
      }
      if (starts_at(text, q, w->close)) {
        end = q + w->close.size();
        break;
      }
      if (!starts_at(text, q, kDsmlInvoke)) {
        fail(out, std::string(w->open) + " at offset " + std::to_string(open) +
                      ": expected <｜DSML｜invoke name=...> at offset " + std::to_string(q));
        break;
      }
      p = dsml_invoke(text, q, tools, out);
      if (p == npos || out.error) break;
    }
    cuts.emplace_back(open, end);
    pos = end;
  }
  out.content = text_outside(text, cuts, {"<｜end▁of▁sentence｜>"});
  return out;
}

class DeepSeekFormat final : public ToolCallFormat {
 public:
  std::string_view name() const override { return "deepseek"; }
  std::string_view description() const override {
    return "DeepSeek R1/V3/V3.1: "
           "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>[function<｜tool▁sep｜>]NAME...<｜tool▁call▁end｜>; "
           "V3.2: <｜DSML｜function_calls><｜DSML｜invoke name=...>; V4: <｜DSML｜tool_calls><｜DSML｜invoke name=...>";
  }
  // "<｜DSML｜" covers both DSML wrappers (one comparison in the shared scan, not two).
  std::span<const std::string_view> markers() const override {
    static constexpr std::string_view kMarkers[] = {"<｜tool▁call", kDsml};
    return kMarkers;
  }

  FormatResult parse(std::string_view text, std::span<const ToolSpec> tools) const override {
    const DsmlWrapper* w = nullptr;
    if (find_dsml_block(text, 0, w) != npos) return parse_dsml(text, tools);
    FormatResult out;
    TokenPieces<Tok> pieces = tokenize(text);
    size_t i = 0;
    bool written_out = false;  // a call to no registered tool whose arguments are not JSON at all
    while (i < pieces.size() && !out.error) {
      Tok t = pieces[i].tok;
      if (t == Tok::kCallBegin) {  // also accepted without <｜tool▁calls▁begin｜>
        i = call(pieces, i + 1, tools, out, written_out);
        continue;
      }
      if (t == Tok::kCallsBegin) {  // a section must start with a call (or be empty)
        size_t j = i + 1;
        while (j < pieces.size() && pieces[j].tok == Tok::kText && trim(pieces[j].text).empty()) ++j;
        if (j == pieces.size()) {
          out.error = "the reply was cut off right after <｜tool▁calls▁begin｜>";
          break;
        }
        if (pieces[j].tok != Tok::kCallBegin && pieces[j].tok != Tok::kCallsEnd) {
          out.error = "a DeepSeek tool-call section holds no <｜tool▁call▁begin｜> before its call";
          break;
        }
      }
      // Prose (inside the section too: it is no call); section tokens and <｜end▁of▁sentence｜> drop.
      if (t == Tok::kText) append_line(out.content, pieces[i].text);
      ++i;
    }
    // Prose that writes the call form out (placeholders for the name and the arguments) is
    // documentation: the whole reply is text.
    if (out.error && out.calls.empty() && written_out && !out.content.empty()) {
      FormatResult mention;
      mention.content = std::string(trim(text));
      return mention;
    }
    return out;
  }

 private:
  // Reads the call after <｜tool▁call▁begin｜> at pieces[i]; returns the index after it.
  static size_t call(const TokenPieces<Tok>& pieces, size_t i, std::span<const ToolSpec> tools, FormatResult& out,
                     bool& written_out) {
    Gathered head;
    Gathered body;
    bool sep = false;
    for (; i < pieces.size(); ++i) {
      Tok t = pieces[i].tok;
      if (t == Tok::kText) {
        (sep ? body : head).add(pieces[i].text);
      } else if (t == Tok::kSep && !sep) {
        sep = true;
      } else {
        break;
      }
    }
    bool cut_off = i >= pieces.size();  // the reply ended inside the call
    bool terminated = !cut_off && pieces[i].tok == Tok::kCallEnd;
    if (terminated) ++i;
    if (!sep) {
      out.error = cut_off ? "a DeepSeek tool call was cut off before <｜tool▁sep｜>"
                          : "a DeepSeek tool call has no <｜tool▁sep｜>";
      return i;
    }
    std::string_view h = trim(head.view());
    std::string_view b = trim(body.view());
    std::string name;
    std::string_view json_text;
    if (h != "function" || (!b.empty() && b[0] == '{')) {  // V3.1: NAME<｜tool▁sep｜>{...}
      name = std::string(h);
      json_text = b;
    } else {  // R1 / V3: function<｜tool▁sep｜>NAME\n```json\n{...}\n```
      size_t nl = b.find('\n');
      name = std::string(trim(b.substr(0, nl)));
      json_text = nl == npos ? std::string_view() : unfence(b.substr(nl + 1));
    }
    if (name.empty()) {
      out.error = "a DeepSeek tool call names no function";
      return i;
    }
    const std::string_view args_text = trim(json_text);
    if (!tools.empty() && find_tool(tools, name) == nullptr && (args_text.empty() || args_text[0] != '{')) {
      written_out = true;
    }
    if (auto args = call_arguments(json_text, terminated, name, out)) add_call(out, std::move(name), std::move(*args));
    return i;
  }
};

}  // namespace

std::unique_ptr<ToolCallFormat> make_deepseek_format() {
  return std::make_unique<DeepSeekFormat>();
}

}  // namespace keel::detail
