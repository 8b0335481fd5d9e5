// Pythonic calls (Llama 3.2 lightweight models, Llama 4, and other models prompted this way):
//   [get_weather(city="Paris", days=3), now()]
// a list of calls with keyword arguments whose values are Python literals (python_call.hpp).
// Without markers the calls must end the reply — the whole of it, or after a lead-in (on its own
// line or in the same sentence) — as one or more lists, or as bare calls one a line (Granite:
// get_weather(city="Paris")), and every name must be a registered tool, so prose, [1, 2] or a
// list naming unknown functions is not a call; a broken list or call that starts a line by
// calling a registered tool is an error. Llama 4 may wrap the list in <|python_start|> ... <|python_end|>:
// there the intent is explicit (unknown names are calls, broken syntax is an error).
#include <algorithm>

#include "core/parsing/formats/format_util.hpp"
#include "core/parsing/formats/formats.hpp"
#include "core/parsing/formats/python_call.hpp"
#include "core/parsing/formats/text_scan.hpp"
#include "core/text/text_util.hpp"

namespace keel::detail {
namespace {

constexpr std::string_view kStart = "<|python_start|>";
constexpr std::string_view kEnd = "<|python_end|>";
constexpr std::string_view kEndOfTurn[] = {"<|eot_id|>", "<|eom_id|>", "<|eot|>", "<|eom|>"};

// `text` without trailing whitespace and end-of-turn tokens.
std::string_view strip_end_tokens(std::string_view text) {
  for (bool again = true; again;) {
    again = false;
    while (!text.empty() && is_blank(text.back())) text.remove_suffix(1);
    for (std::string_view t : kEndOfTurn) {
      if (text.ends_with(t)) {
        text.remove_suffix(t.size());
        again = true;
      }
    }
  }
  return text;
}

// Copies the calls of `r` into `out`, the repairs going with the first.
void emit(PyCallsText& r, const Label& where, FormatResult& out) {
  for (size_t i = 0; i < r.calls.size(); ++i) {
    CallDraft d{std::move(r.calls[i].name), std::move(r.calls[i].arguments), {}, r.calls[i].valid_utf8};
    if (i == 0) {
      for (auto& fix : r.repairs) d.repairs.push_back(prefixed(where, std::move(fix)));
    }
    commit(out, std::move(d), where);
  }
}

// Whether `name(` at text[pos] (or `[ name(` when `bracket`) calls a registered tool.
bool calls_tool(std::string_view text, size_t pos, bool bracket, std::span<const ToolSpec> tools) {
  const size_t b = bracket ? skip_space(text, pos + 1) : pos;
  const size_t e = name_end(text, b);
  if (e == b) return false;
  const size_t paren = bracket ? skip_space(text, e) : e;
  return starts_at(text, paren, "(") && find_tool(tools, text.substr(b, e - b)) != nullptr;
}

// The first place at or after `pos` where calls may start: a '[' calling a registered tool, or
// a registered tool's name and '(' at the start of a line; kNpos when none. `newlines` finds the
// line starts (positions passed to it do not decrease: linear over all calls).
size_t next_candidate(std::string_view text, size_t pos, std::span<const ToolSpec> tools, Finder& newlines) {
  size_t bracket = text.find('[', pos);
  size_t line = pos;  // the start of a line at or after pos
  if (line > 0 && text[line - 1] != '\n') {
    line = newlines.next(pos);
    line = line == kNpos ? kNpos : line + 1;
  }
  while (bracket != kNpos || line != kNpos) {
    if (line != kNpos && (bracket == kNpos || line <= bracket)) {
      const size_t first = skip_blanks(text, line);
      if (first < text.size() && text[first] != '[' && calls_tool(text, first, false, tools)) return first;
      line = newlines.next(line);
      line = line == kNpos ? kNpos : line + 1;
    } else {
      if (calls_tool(text, bracket, true, tools)) return bracket;
      bracket = text.find('[', bracket + 1);
    }
  }
  return kNpos;
}

// The calls from text[pos] on: bracketed lists and bare calls, separated by whitespace (Llama 3.2
// may write two lists; Granite writes one call a line). Stops before anything else.
PyCallsText read_block(std::string_view text, size_t pos) {
  PyCallsText first = text[pos] == '[' ? read_python_call_list_text(text, pos) : read_python_call_text(text, pos);
  if (!first.error.empty() || skip_space(text, first.end) == text.size()) return first;  // the usual single list
  PyCallsText all;
  all.end = pos;
  all.calls = std::move(first.calls);
  all.repairs = std::move(first.repairs);
  all.end = first.end;
  for (size_t at = skip_space(text, all.end); at < text.size(); at = skip_space(text, all.end)) {
    if (text[at] != '[' && name_end(text, at) == at) break;
    PyCallsText r = text[at] == '[' ? read_python_call_list_text(text, at) : read_python_call_text(text, at);
    if (!r.error.empty()) {
      if (all.calls.empty()) return r;
      break;  // what follows the calls read so far is not a call: prose
    }
    for (auto& c : r.calls) all.calls.push_back(std::move(c));
    for (auto& fix : r.repairs) all.repairs.push_back(std::move(fix));
    all.end = r.end;
  }
  return all;
}

class PythonicFormat final : public ToolCallFormat {
 public:
  std::string_view name() const override { return "pythonic"; }
  std::string_view description() const override {
    return "Pythonic: [get_weather(city=\"Paris\"), now()] as the whole reply, or in <|python_start|>";
  }
  std::span<const std::string_view> markers() const override {
    static constexpr std::string_view kMarkers[] = {kStart};
    return kMarkers;
  }
  // Without <|python_start|>, the calls end the reply: it starts with '[' or ends with ')' or ']'.
  bool unmarked_detection() const override { return true; }
  bool detect_unmarked(std::string_view text) const override {
    size_t last = text.size();
    while (last > 0 && is_blank(text[last - 1])) --last;
    if (last == 0) return false;
    if (text[last - 1] == '>') {  // an end-of-turn token may follow the calls
      const std::string_view t = strip_end_tokens(text);
      last = t.size();
      if (last == 0) return false;
    }
    const char end = text[last - 1];
    const size_t first = skip_space(text, 0);  // (a vertical tab is space here but not blank above)
    return end == ')' || end == ']' || (first < text.size() && text[first] == '[');
  }

  FormatResult parse(std::string_view text, std::span<const ToolSpec> tools) const override {
    FormatResult out;
    MarkdownCode code(text);
    if (size_t start = find_outside_code(text, kStart, 0, code); start != kNpos) {
      marked(text, start, out);
      return out;
    }
    const std::string_view whole = strip_end_tokens(text);
    const size_t first = skip_space(whole, 0);
    if (first == whole.size()) return out;
    // Calls end the reply, or a list (perhaps cut off) starts it.
    if (whole[first] != '[' && whole.back() != ')' && whole.back() != ']') return out;
    // The calls start where a registered tool is called: "[get_weather(" anywhere, or
    // "get_weather(" at the start of a line. Each candidate is read once, in text order.
    bool mentioned = false;  // a list of calls was quoted in prose: later lists are not taken either
    Finder newlines(whole, "\n");
    // The usual reply is the list itself: its first byte is the first candidate.
    const bool list_first = whole[first] == '[' && calls_tool(whole, first, true, tools);
    for (size_t pos = 0; pos < whole.size();) {
      const size_t at = pos == 0 && list_first ? first : next_candidate(whole, pos, tools, newlines);
      if (at == kNpos) break;
      const bool line_start = at_line_start(whole, at);
      PyCallsText r = read_block(whole, at);
      if (!r.error.empty()) {
        // A list or call that starts a line (or the reply) was meant; one inside a sentence may be prose.
        if (line_start) {
          fail(out, "pythonic call at offset " + std::to_string(at) + ": " + r.error);
          out.content = trim(text.substr(0, at));  // the lead-in stays text
          return out;
        }
        pos = at + 1;
        continue;
      }
      if (skip_space(whole, r.end) != whole.size()) {  // prose follows: a mention, not the calls
        mentioned = true;
        pos = std::max(r.end, at + 1);
        continue;
      }
      if (mentioned) return out;  // "[f(a=1)] and [g(b=2)]": not a part of them either
      for (const auto& c : r.calls) {
        if (find_tool(tools, c.name) == nullptr) return out;
      }
      emit(r, Label("pythonic calls"), out);
      out.content = trim(text.substr(0, at));  // the lead-in; the calls end the reply
      return out;
    }
    return out;
  }

 private:
  // <|python_start|> [calls] <|python_end|>, text around it being content.
  static void marked(std::string_view text, size_t start, FormatResult& out) {
    const Label where({"<|python_start|>"}, start);
    size_t body = skip_space(text, start + kStart.size());
    size_t close = text.find(kEnd, body);
    size_t body_end = close == kNpos ? text.size() : close;
    std::string_view seg = strip_end_tokens(text.substr(0, body_end));
    size_t end = close == kNpos ? text.size() : close + kEnd.size();
    const Cut call[] = {{start, end}};
    out.content = text_outside(text, call, {kEndOfTurn[0], kEndOfTurn[1], kEndOfTurn[2], kEndOfTurn[3]});
    if (body >= seg.size()) return fail(out, where + ": no call follows <|python_start|>");
    PyCallsText r = seg[body] == '[' ? read_python_call_list_text(seg, body) : read_python_call_text(seg, body);
    if (r.error.empty() && skip_space(seg, r.end) != seg.size()) {
      r.error = "unexpected text at offset " + std::to_string(skip_space(seg, r.end)) + " after the calls";
    }
    if (!r.error.empty()) {
      std::string prefix = close == kNpos && r.cut_off ? ": cut off before <|python_end|> (" : ": invalid call (";
      return fail(out, where + prefix + r.error + ")");
    }
    emit(r, where, out);
  }
};

}  // namespace

std::unique_ptr<ToolCallFormat> make_pythonic_format() {
  return std::make_unique<PythonicFormat>();
}

}  // namespace keel::detail
