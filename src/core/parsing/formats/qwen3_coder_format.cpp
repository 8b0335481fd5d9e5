// Qwen3-Coder: XML-style calls whose parameter values are untyped text,
//   <tool_call>
//   <function=get_weather>
//   <parameter=city>
//   Paris
//   </parameter>
//   </function>
//   </tool_call>
// Exactly one leading and one trailing newline of each value belong to the template and are
// stripped; the value is then typed by the tool's JSON Schema. Several calls may follow each other
// (or share one <tool_call>); a bare <function=N> block without the <tool_call> wrapper is also a
// call. <function=N>{json} is Functionary v3.1's and left alone, and <function={{ x }}> is an
// unrendered template, not a call.
//
// Values are free text and may quote the syntax itself (a file that holds a call, say), so a
// value ends at the </parameter> that is not closing a <parameter=...> quoted inside the value and
// is followed by the next structural tag: </function>, </tool_call>, the end of the text, or a
// <parameter=KEY> whose KEY the tool declares (any KEY when the schema lists none). A </parameter>
// the model forgot is closed at the value's first <parameter= (or </function>) and listed as a
// repair; a call cut off anywhere is an error.
#include <algorithm>

#include "core/parsing/formats/format_util.hpp"
#include "core/parsing/formats/formats.hpp"
#include "core/parsing/formats/text_scan.hpp"

namespace keel::detail {
namespace {

constexpr std::string_view kToolOpen = "<tool_call>";
constexpr std::string_view kToolClose = "</tool_call>";
constexpr std::string_view kFunction = "<function=";
constexpr std::string_view kFunctionClose = "</function>";
constexpr std::string_view kParam = "<parameter=";
constexpr std::string_view kParamClose = "</parameter>";

// Drops the template's line break at each end of a value. When the tags are indented (`indent`:
// the blanks before <parameter= on its line), the close tag's indentation goes too, and a
// one-line value loses the indentation the layout gave it.
std::string_view strip_one_newline(std::string_view v, std::string_view indent) {
  if (!indent.empty() && (v.starts_with('\n') || v.starts_with("\r\n"))) {
    v.remove_prefix(v.starts_with('\n') ? 1 : 2);
    const size_t nl = v.rfind('\n');
    if (nl != std::string_view::npos && v.find_first_not_of(" \t", nl + 1) == std::string_view::npos) {
      v = v.substr(0, nl > 0 && v[nl - 1] == '\r' ? nl - 1 : nl);
    }
    if (v.find('\n') == std::string_view::npos) {
      const size_t b = v.find_first_not_of(" \t");
      if (b == std::string_view::npos) return {};
      v = v.substr(b, v.find_last_not_of(" \t") + 1 - b);
    }
    return v;
  }
  if (v.starts_with("\r\n"))
    v.remove_prefix(2);
  else if (v.starts_with('\n'))
    v.remove_prefix(1);
  if (v.ends_with("\r\n"))
    v.remove_suffix(2);
  else if (v.ends_with('\n'))
    v.remove_suffix(1);
  return v;
}

// The searches shared by every call of one reply (positions only move forward).
struct Scan {
  explicit Scan(std::string_view t) : text(t), function_close(t, kFunctionClose) {}
  std::string_view text;
  Finder function_close;
  // No </parameter> after this position is followed by a tag that could end a value: a value
  // starting there has lost its close tag, whatever tool it belongs to (keeps the scans linear).
  size_t no_close_after = kNpos;
};

// Where the value of parameter `key` starting at `from` ends.
struct ValueEnd {
  size_t end = kNpos;  // the value is [from, end); kNpos: cut off
  size_t next = 0;     // where reading goes on
  bool repaired = false;  // its </parameter> was missing
};

// Whether the </parameter> ending at `after` is followed by a structural tag (see the header).
bool structural_after(std::string_view text, size_t after, std::string_view key, ParameterTypes& types) {
  const size_t q = skip_space(text, after);
  if (q == text.size()) return true;
  if (text[q] != '<' || q + 1 == text.size()) return false;
  if (text[q + 1] == '/') return starts_at(text, q, kFunctionClose) || starts_at(text, q, kToolClose);
  if (!starts_at(text, q, kParam)) return false;
  const size_t name_b = q + kParam.size();
  const size_t name_e = name_end(text, name_b);
  if (name_e == text.size()) return true;  // cut off inside the next tag
  if (text[name_e] != '>' || name_e == name_b) return false;
  const std::string_view next = text.substr(name_b, name_e - name_b);
  return !types.known() || (next != key && types.declared(next));
}

ValueEnd value_end(Scan& s, size_t from, std::string_view key, ParameterTypes& types) {
  const std::string_view text = s.text;
  size_t depth = 0;               // <parameter=...> quoted inside the value and not yet closed
  size_t first_open = kNpos;      // the value's first <parameter=
  size_t first_function = kNpos;  // the value's first </function> starting a line
  bool closable = false;          // a </parameter> followed by a tag that can end a value was seen
  const bool search = s.no_close_after == kNpos || from < s.no_close_after;
  for (size_t i = text.find('<', from); i != kNpos; i = text.find('<', i + 1)) {
    const char c = i + 2 < text.size() ? text[i + 1] : '\0';
    if (c != 'p' && (c != '/' || (text[i + 2] != 'p' && text[i + 2] != 'f'))) continue;  // not a tag of ours
    if (c == 'p' && starts_at(text, i, kParam)) {
      if (first_open == kNpos) first_open = i;
      if (!search) break;
      ++depth;
    } else if (starts_at(text, i, kParamClose)) {
      if (!search) continue;
      const size_t after = skip_space(text, i + kParamClose.size());
      closable = closable || after == text.size() || starts_at(text, after, kParam) ||
                 starts_at(text, after, kFunctionClose) || starts_at(text, after, kToolClose);
      if (depth > 0) {
        --depth;
      } else if (structural_after(text, i + kParamClose.size(), key, types)) {
        return {i, i + kParamClose.size(), false};
      }
    } else if (first_function == kNpos && starts_at(text, i, kFunctionClose) && at_line_start(text, i)) {
      first_function = i;
      if (!search) break;
    }
  }
  if (search && !closable) s.no_close_after = from;
  // No </parameter> closes it: the model forgot it, and the value ends where the next tag starts.
  const size_t end = std::min(first_open, first_function);
  if (end == kNpos) return {};
  return {end, end, true};
}

// Outcome of reading one <function=...> block.
struct Block {
  bool mine = true;  // false: not Qwen3-Coder syntax (left to other formats or prose)
  size_t end = 0;    // just past </function> (or where reading stopped)
  bool cut_off = false;
};

class Qwen3CoderFormat final : public ToolCallFormat {
 public:
  std::string_view name() const override { return "qwen3_coder"; }
  std::string_view description() const override {
    return "Qwen3-Coder: <tool_call><function=NAME><parameter=KEY>value</parameter></function></tool_call>";
  }
  std::span<const std::string_view> markers() const override {
    static constexpr std::string_view kMarkers[] = {kFunction, "<parameter="};
    return kMarkers;
  }

  FormatResult parse(std::string_view text, std::span<const ToolSpec> tools) const override {
    FormatResult out;
    Cuts cuts;
    MarkdownCode code(text);
    Scan scan(text);
    size_t pos = 0;
    size_t fn;
    while ((fn = find_outside_code(text, kFunction, pos, code)) != kNpos) {
      size_t begin = wrapper_start(text, fn, pos);
      Block b = read_function(scan, fn, begin != fn, tools, out);
      if (!b.mine) {
        pos = fn + kFunction.size();
        continue;
      }
      size_t end = b.end;
      size_t after = skip_space(text, end);
      if (!b.cut_off && starts_at(text, after, kToolClose)) end = after + kToolClose.size();
      cuts.emplace_back(begin, end);
      code.consumed(end);
      pos = end;
      if (b.cut_off) break;
    }
    if (cuts.size() == 0 && !out.error) orphan_parameters(text, code, out);
    out.content = text_outside(text, cuts, {"<|im_end|>"});
    return out;
  }

  // Parameters closed by </function> with no <function=...> before them: a call that lost its
  // opening (the name is gone), reported rather than read as text.
  static void orphan_parameters(std::string_view text, MarkdownCode& code, FormatResult& out) {
    const size_t param = find_outside_code(text, "<parameter=", 0, code);
    if (param == kNpos) return;
    if (text.find("</parameter>", param) == kNpos || text.find("</function>", param) == kNpos) return;
    fail(out, "<parameter=...> at offset " + std::to_string(param) +
                  " and </function> with no <function=NAME> before them: the call lost its opening and its name");
  }

 private:
  // Start of the <tool_call> directly before `fn` (whitespace between), else `fn`; not before `floor`.
  static size_t wrapper_start(std::string_view text, size_t fn, size_t floor) {
    size_t i = fn;
    while (i > floor && (text[i - 1] == ' ' || text[i - 1] == '\t' || text[i - 1] == '\n' || text[i - 1] == '\r')) --i;
    if (i >= floor + kToolOpen.size() && text.substr(i - kToolOpen.size(), kToolOpen.size()) == kToolOpen) {
      return i - kToolOpen.size();
    }
    return fn;
  }

  static Block read_function(Scan& s, size_t fn, bool wrapped, std::span<const ToolSpec> tools, FormatResult& out) {
    std::string_view text = s.text;
    Block b;
    const Label where({"<function="}, fn);
    auto cut = [&](const std::string& what) {
      fail(out, where + ": cut off " + what);
      b.cut_off = true;
      b.end = text.size();
      return b;
    };
    auto broken = [&](const std::string& what) {
      fail(out, where + ": " + what);
      size_t close = s.function_close.next(fn);
      b.end = close == kNpos ? text.size() : close + kFunctionClose.size();
      return b;
    };
    size_t name_b = fn + kFunction.size();
    size_t name_e = name_end(text, name_b);
    if (name_e == text.size()) return cut("inside the function name");
    CallDraft draft;
    JsonObjectWriter args;
    draft.name = std::string(text.substr(name_b, name_e - name_b));
    size_t first = skip_space(text, name_e + 1);
    if (draft.name.empty() && starts_at(text, name_e, "{{")) {  // an unrendered template: text
      b.mine = false;
      return b;
    }
    bool shaped = text[name_e] == '>' && !draft.name.empty() &&
                  (first == text.size() || starts_at(text, first, kParam) || starts_at(text, first, kFunctionClose));
    if (!shaped) {
      // <function=N>{json} is Functionary's; other text is prose unless a <tool_call> announced a call.
      if (!wrapped || (text[name_e] == '>' && first < text.size() && text[first] == '{')) {
        b.mine = false;
        return b;
      }
      return broken("expected <function=NAME> followed by <parameter=KEY> or </function>");
    }
    size_t p = name_e + 1;
    ParameterTypes types(tools, draft.name);
    while (true) {
      size_t q = skip_space(text, p);
      if (q == text.size()) return cut("in the call to '" + draft.name + "': expected <parameter=KEY> or </function>");
      if (starts_at(text, q, kFunctionClose)) {
        b.end = q + kFunctionClose.size();
        break;
      }
      if (starts_at(text, q, kToolClose)) {  // </function> forgotten before </tool_call>
        draft.repairs.push_back(where + ": closed <function=" + draft.name + "> that had no </function>");
        b.end = q;
        break;
      }
      if (!starts_at(text, q, kParam)) {
        return broken("expected <parameter=KEY> or </function> at offset " + std::to_string(q) + " in the call to '" +
                      draft.name + "'");
      }
      size_t key_b = q + kParam.size();
      size_t key_e = name_end(text, key_b);
      if (key_e == text.size()) return cut("inside a parameter name of '" + draft.name + "'");
      if (text[key_e] != '>' || key_e == key_b) {
        return broken("malformed <parameter=KEY> tag at offset " + std::to_string(q));
      }
      std::string key(text.substr(key_b, key_e - key_b));
      size_t value_b = key_e + 1;
      const ValueEnd v = value_end(s, value_b, key, types);
      if (v.end == kNpos) return cut("inside parameter '" + key + "' of '" + draft.name + "' (expected </parameter>)");
      if (v.repaired) draft.repairs.push_back(where + ": closed parameter '" + key + "' that had no </parameter>");
      const size_t value_e = v.end;
      p = v.next;
      size_t line = q;
      while (line > 0 && (text[line - 1] == ' ' || text[line - 1] == '\t')) --line;
      const std::string_view indent = line == 0 || text[line - 1] == '\n' ? text.substr(line, q - line) : std::string_view();
      std::string_view raw = strip_one_newline(text.substr(value_b, value_e - value_b), indent);
      args.key(key);
      write_typed_parameter(args, raw, types, key);
    }
    draft.valid_utf8 = args.valid();
    draft.arguments = std::move(args).finish();
    commit(out, std::move(draft), where);
    return b;
  }
};

}  // namespace

std::unique_ptr<ToolCallFormat> make_qwen3_coder_format() {
  return std::make_unique<Qwen3CoderFormat>();
}

}  // namespace keel::detail
