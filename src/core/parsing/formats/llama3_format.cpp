// Llama 3.1 / 3.2 / 3.3 tool calls:
//   {"name": "get_weather", "parameters": {"city": "Paris"}}            JSON tool calling (bare)
//   {"type": "function", "name": ..., "parameters": {...}}              (3.2 / 3.3 variant)
//   <|python_tag|>{"name": ..., "parameters": ...}; {"name": ...}        after the python tag, ';'-separated
//   <|python_tag|>brave_search.call(query="...")<|eom_id|>              built-in tools (also wolfram_alpha)
//   <|python_tag|>import math\nprint(math.pi)                           code interpreter
// After <|python_tag|> the intent is explicit (unknown names are calls, broken JSON is an error);
// bare JSON needs a "parameters" key and a registered tool, so {"name", "arguments"} stays with
// the generic json format and prose is not a call; it may stand inside a sentence when it starts
// with "name" ("Here is the result: {"name": ..., "parameters": {...}} ..."). Code after the tag becomes a call
// to "code_interpreter" with {"code": ...}, the name Llama's documentation gives that tool (or to
// "python", Functionary's name for it, when only that one is registered).
// <|eom_id|> / <|eot_id|> are end-of-turn tokens and never content, nor are Llama 4's
// <|python_start|> / <|python_end|> once the JSON call they wrap is read.
#include <algorithm>

#include "core/parsing/formats/format_util.hpp"
#include "core/parsing/formats/formats.hpp"
#include "core/parsing/formats/python_call.hpp"
#include "core/parsing/formats/text_scan.hpp"
#include "core/text/text_util.hpp"

namespace keel::detail {
namespace {

constexpr std::string_view kTag = "<|python_tag|>";

// Where python-tag segments end: at an end-of-turn token or the next tag.
struct SegmentEnds {
  explicit SegmentEnds(std::string_view t) : text(t), eom(t, "<|eom_id|>"), eot(t, "<|eot_id|>"), tag(t, kTag) {}
  size_t after(size_t pos) {
    size_t end = text.size();
    for (Finder* f : {&eom, &eot, &tag}) end = std::min(end, f->next(pos));
    return end;
  }
  std::string_view text;
  Finder eom;
  Finder eot;
  Finder tag;
};

// Whether a bare JSON candidate has a Llama call's shape: "parameters" and a string "name".
bool call_shape(JsonView v) {
  if (!v.is_object() || !v.contains("parameters")) return false;
  auto name = v.find("name");
  return name && name->is_string();
}

// Whether a bare JSON candidate is a Llama call: its shape and a registered "name".
bool bare_call_shape(JsonView v, std::span<const ToolSpec> tools) {
  return call_shape(v) && find_tool(tools, v.find("name")->str()) != nullptr;
}

// Whether unfinished JSON looks like a bare Llama call to a registered tool. (Balanced JSON that
// does not parse stays prose, as with the generic json format: without a marker there is no
// clear intent.)
bool looks_like_call(std::string_view rest, std::span<const ToolSpec> tools) {
  if (rest.find("\"parameters\"") == kNpos && rest.find("'parameters'") == kNpos) return false;
  for (const auto& t : tools) {
    if (rest.find("\"" + t.name + "\"") != kNpos || rest.find("'" + t.name + "'") != kNpos) return true;
  }
  return false;
}

class Llama3Format final : public ToolCallFormat {
 public:
  std::string_view name() const override { return "llama3"; }
  std::string_view description() const override {
    return "Llama 3.x: <|python_tag|>, {\"name\": ..., \"parameters\": {...}}, brave_search.call(query=...)";
  }
  std::span<const std::string_view> markers() const override {
    static constexpr std::string_view kMarkers[] = {kTag, "\"parameters\"", "'parameters'"};
    return kMarkers;
  }

  FormatResult parse(std::string_view text, std::span<const ToolSpec> tools) const override {
    FormatResult out;
    Cuts cuts;
    MarkdownCode code(text);
    SegmentEnds ends(text);
    size_t pos = 0;
    size_t tag;
    while ((tag = find_outside_code(text, kTag, pos, code)) != kNpos) {
      size_t body = skip_space(text, tag + kTag.size());
      size_t end = std::max(body, ends.after(body));
      size_t used = tagged(text, tag, body, end, tools, out);
      if (used == kNpos) {
        pos = body;
        continue;
      }
      cuts.emplace_back(tag, used);
      code.consumed(end);
      pos = end;
    }
    if (out.calls.empty() && !out.error) bare(text, tools, out, cuts);
    // Llama 4 may wrap a JSON call in its python tokens: with the call cut out they are empty.
    out.content = text_outside(text, cuts, {"<|eom_id|>", "<|eot_id|>", "<|python_start|>", "<|python_end|>"});
    return out;
  }

 private:
  // The body of one python-tag segment, text[body, end); returns the end of the call text (prose
  // may follow it), or kNpos when the tag is prose mentioning it: code (or nothing) after a tag
  // that does not start a line, as Llama prints it.
  static size_t tagged(std::string_view text, size_t tag, size_t body, size_t end, std::span<const ToolSpec> tools,
                       FormatResult& out) {
    const Label where({"<|python_tag|>"}, tag);
    bool line_start = at_line_start(text, tag);
    std::string_view seg = text.substr(0, end);
    if (body >= end) {
      if (line_start) fail(out, where + ": nothing follows <|python_tag|>");
      return line_start ? end : kNpos;
    }
    if (text[body] == '{') return json_calls(seg, body, where, out);
    size_t name = name_end(seg, body);
    std::string_view word = seg.substr(body, name - body);
    if (word.ends_with(".call")) word.remove_suffix(5);
    bool builtin = word == "brave_search" || word == "wolfram_alpha" || find_tool(tools, word) != nullptr;
    bool call_syntax = starts_at(seg, body + word.size(), ".call(") || starts_at(seg, body + word.size(), "(");
    if ((builtin && call_syntax) || seg[body] == '[') {
      PyCallsText r = seg[body] == '[' ? read_python_call_list_text(seg, body) : read_python_call_text(seg, body);
      if (r.error.empty()) {
        for (auto& c : r.calls) {
          CallDraft d;
          d.name = c.name.ends_with(".call") ? c.name.substr(0, c.name.size() - 5) : c.name;
          d.arguments = std::move(c.arguments);
          d.valid_utf8 = c.valid_utf8;
          for (auto& fix : r.repairs) d.repairs.push_back(prefixed(where, std::move(fix)));
          r.repairs.clear();
          commit(out, std::move(d), where);
        }
        return r.end;
      }
      if (builtin && seg[body] != '[') {
        fail(out, where + ": " + r.error);
        return end;
      }
    }
    if (!line_start) return kNpos;
    CallDraft code;  // anything else is Python for the code interpreter
    bool python_only = find_tool(tools, "python") != nullptr && find_tool(tools, "code_interpreter") == nullptr;
    code.name = python_only ? "python" : "code_interpreter";
    JsonObjectWriter args;
    args.key("code");
    args.string_value(trim(seg.substr(body)));
    code.valid_utf8 = args.valid();
    code.arguments = std::move(args).finish();
    commit(out, std::move(code), where);
    return end;
  }

  // {"name": ..., "parameters"|"arguments": ...} objects separated by ';' from seg[pos]; returns
  // where they end (text after them is content).
  static size_t json_calls(std::string_view seg, size_t pos, const Label& where, FormatResult& out) {
    std::vector<CallDraft> drafts;
    size_t end = pos;
    while (pos < seg.size() && seg[pos] == '{') {
      std::string why;
      CallDraft d;
      LenientText v;
      bool cut_off = false;
      end = lenient_json_at(seg, pos, v, cut_off);
      for (auto& r : v.repairs) d.repairs.push_back(prefixed(where, std::move(r)));
      if (!v.ok()) {
        fail(out, where + (cut_off ? ": the call was cut off (" : ": invalid JSON (") + v.error + ")");
        return seg.size();
      }
      if (!call_from_object(v.view(), d, where, why)) {
        fail(out, where + ": " + why);
        return end;
      }
      drafts.push_back(std::move(d));
      size_t next = skip_space(seg, end);
      if (next >= seg.size() || seg[next] != ';') break;
      end = next + 1;
      pos = skip_space(seg, end);
    }
    for (auto& d : drafts) commit(out, std::move(d), where);
    return end;
  }

  // Where a {"name" object starts in text[from, line_end) outside markdown code (a bare call
  // inside a sentence, as Llama 3.2 writes after a lead-in); kNpos when none.
  static size_t inline_candidate(std::string_view text, size_t from, size_t line_end, MarkdownCode& code) {
    for (size_t at = text.find('{', from); at != kNpos && at < line_end; at = text.find('{', at + 1)) {
      size_t before = at;  // prose precedes it, not JSON (an element of a list, a value)
      while (before > from && (text[before - 1] == ' ' || text[before - 1] == '\t')) --before;
      const char prev = before > 0 ? text[before - 1] : ' ';
      if (prev == '[' || prev == ',' || prev == '{' || prev == '}' || prev == '"') continue;
      if (prev == ':' && before >= 2 && text[before - 2] == '"') continue;  // a JSON key's value
      if (starts_at(text, skip_space(text, at + 1), "\"name\"") && code.skip(at) == at) return at;
    }
    return kNpos;
  }

  // Bare JSON calls, each starting a line, following the previous call's ';', or inside a line
  // when the object starts with "name" (the shape, "parameters" and a registered name are
  // required either way).
  static void bare(std::string_view text, std::span<const ToolSpec> tools, FormatResult& out, Cuts& cuts) {
    MarkdownCode code(text);
    size_t pos = 0;
    while (pos < text.size()) {
      size_t start = skip_space(text, pos);
      if (start == text.size()) return;
      if (text[start] != '{' || code.skip(start) != start) {
        size_t nl = text.find('\n', start);
        const size_t brace = inline_candidate(text, start, nl == kNpos ? text.size() : nl, code);
        if (brace == kNpos) {
          if (nl == kNpos) return;
          pos = nl + 1;
          continue;
        }
        start = brace;
      }
      const Label where({"call"}, start);
      LenientText v;
      bool cut_off = false;  // unbalanced to the end: only what the repair pass can close
      size_t end = lenient_json_at(text, start, v, cut_off);
      std::string_view candidate = text.substr(start, end - start);
      std::string why;
      CallDraft d;
      for (auto& r : v.repairs) d.repairs.push_back(prefixed(where, std::move(r)));
      bool taken = true;
      if (v.ok() && call_shape(v.view()) && !bare_call_shape(v.view(), tools)) {
        // The call shape naming no registered tool: bare syntax counts only when every name is a
        // tool (the rule of what is not a call), so none of the reply's objects are calls.
        out.calls.clear();
        out.repairs.clear();
        while (cuts.size() > 0) cuts.pop_back();
        return;
      }
      if (v.ok() && bare_call_shape(v.view(), tools)) {
        if (call_from_object(v.view(), d, where, why)) {
          commit(out, std::move(d), where);
        } else {
          fail(out, where + ": " + why);
        }
      } else if (!v.ok() && cut_off && looks_like_call(candidate, tools)) {  // cut off by the end of the text
        fail(out, where + ": the call was cut off (" + v.error + ")");
      } else {
        taken = false;
      }
      if (taken) {
        size_t after = skip_space(text, end);
        if (after < text.size() && text[after] == ';') end = after + 1;
        while (end < text.size() && (text[end] == ' ' || text[end] == '\t')) ++end;  // one gap left in the prose
        cuts.emplace_back(start, end);
      }
      code.consumed(end);
      pos = end;
    }
  }
};

}  // namespace

std::unique_ptr<ToolCallFormat> make_llama3_format() {
  return std::make_unique<Llama3Format>();
}

}  // namespace keel::detail
