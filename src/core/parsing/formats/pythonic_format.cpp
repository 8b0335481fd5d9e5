// Pythonic calls (Llama 3.2 lightweight models, Llama 4, and other models prompted this way):
//   [get_weather(city="Paris", days=3), now()]
// a list of calls with keyword arguments whose values are Python literals (python_call.hpp).
// Without markers the whole reply must be that list and every name a registered tool, so prose,
// [1, 2] or a list naming unknown functions is not a call; a broken list that starts by calling a
// registered tool is an error. Llama 4 may wrap the list in <|python_start|> ... <|python_end|>:
// there the intent is explicit (unknown names are calls, broken syntax is an error).
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
  // Without <|python_start|>, the whole reply is the list.
  bool unmarked_detection() const override { return true; }
  bool detect_unmarked(std::string_view text) const override { return trim(text).starts_with('['); }

  FormatResult parse(std::string_view text, std::span<const ToolSpec> tools) const override {
    FormatResult out;
    MarkdownCode code(text);
    if (size_t start = find_outside_code(text, kStart, 0, code); start != kNpos) {
      marked(text, start, out);
      return out;
    }
    std::string_view whole = strip_end_tokens(text);
    size_t open = skip_space(whole, 0);
    if (open >= whole.size() || whole[open] != '[') return out;
    // Intended when the list starts by calling a registered tool: "[get_weather(" ... Any other
    // list is prose: read or not, its first call (if it has one) names no registered tool.
    size_t name_b = skip_space(whole, open + 1);
    size_t name_e = name_end(whole, name_b);
    const bool intended = find_tool(tools, whole.substr(name_b, name_e - name_b)) != nullptr &&
                          starts_at(whole, skip_space(whole, name_e), "(");
    if (!intended) return out;
    PyCallsText r = read_python_call_list_text(whole, open);
    if (!r.error.empty()) {
      fail(out, "pythonic call list at offset " + std::to_string(open) + ": " + r.error);
      return out;
    }
    if (skip_space(whole, r.end) != whole.size()) return out;  // the list is part of prose
    for (const auto& c : r.calls) {
      if (find_tool(tools, c.name) == nullptr) return out;
    }
    emit(r, Label("pythonic call list"), out);
    out.content = "";
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
