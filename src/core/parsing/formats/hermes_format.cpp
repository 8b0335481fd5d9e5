// Hermes 2 Pro / Qwen2.5 (and most ChatML models): each call is a JSON object in tags,
//   <tool_call>
//   {"name": "get_weather", "arguments": {"city": "Paris"}}
//   </tool_call>
// several in a row; "arguments" may be an escaped JSON string, "parameters" is accepted, and a
// JSON array of such objects inside one tag is several calls. Text around the tags is content.
// The tags are explicit, so an unknown tool name is still a call and broken JSON is an error.
// Bodies of the other <tool_call> families (<function=...> of Qwen3-Coder, NAME<arg_key> of
// GLM-4.5) are left to their formats; tags inside markdown code are examples, not calls, and a
// tag followed by something other than JSON is a broken call only where it starts a line.
//
// Hermes-style models also wrap the same JSON in other tags (<function_call>, <tool>, <tools>,
// <response>, <json>, <JSON>, <xml>) and write <function name="N">{arguments}</function>. Those
// wrappers are common words of XML, so they hold a call only when their body starts as a call
// object ({"name": ...}). A reply that is nothing but one fenced block (```json / ```xml) whose
// body starts with such a tag is the call itself, not an example of one.
#include <array>
#include <iterator>
#include <utility>
#include <vector>

#include "core/parsing/formats/format_util.hpp"
#include "core/parsing/formats/formats.hpp"
#include "core/parsing/formats/text_scan.hpp"
#include "core/parsing/json/json_scan.hpp"
#include "core/text/text_util.hpp"

namespace keel::detail {
namespace {

constexpr std::string_view kOpen = "<tool_call>";
constexpr std::string_view kClose = "</tool_call>";
constexpr std::string_view kNamedOpen = "<function name=";
constexpr std::string_view kNamedClose = "</function>";

// A tag that wraps a call's JSON. `strict`: the tag itself says "call" (<tool_call>), so a body
// that is not JSON is an error; the others hold a call only when the body starts as one.
struct Wrapper {
  std::string_view open;
  std::string_view close;
  bool strict;
};
constexpr Wrapper kWrappers[] = {
    {kOpen, kClose, true},
    {"<function_call>", "</function_call>", false},
    {"<tools>", "</tools>", false},
    {"<tool>", "</tool>", false},
    {"<response>", "</response>", false},
    {"<json>", "</json>", false},
    {"<JSON>", "</JSON>", false},
    {"<xml>", "</xml>", false},
};
// The wrappers whose names hold rare letters (<json>, <JSON>, <xml>) are not markers: they would
// add key bytes to every reply's marker scan. Replies open with them, so detect_unmarked() looks
// at the start of the text.
constexpr std::string_view kMarkers[] = {kOpen, "<function_call>", "<tools>", "<tool>", "<response>", kNamedOpen};
constexpr std::string_view kLeadingWrappers[] = {"<json>", "<JSON>", "<xml>"};

// A <response> wrapper around the calls is left empty once they are cut out: it goes too.
void drop_empty_response(std::string& content) {
  std::string_view t = trim(content);
  if (!t.starts_with("<response>") || !t.ends_with("</response>")) return;
  t.remove_prefix(std::string_view("<response>").size());
  t.remove_suffix(std::string_view("</response>").size());
  if (trim(t).empty()) content.clear();
}

// Whether the body at `pos` belongs to Qwen3-Coder or GLM-4.5.
bool other_family(std::string_view text, size_t pos) {
  if (starts_at(text, pos, "<function=")) return true;
  size_t name = name_end(text, pos);
  if (name == pos) return false;
  size_t after = skip_space(text, name);
  return starts_at(text, after, "<arg_key>") || starts_at(text, after, kClose);
}

// Whether the JSON at `pos` starts as a call object: {"name" (or a list of them).
bool starts_as_call(std::string_view text, size_t pos) {
  if (pos < text.size() && text[pos] == '[') pos = skip_space(text, pos + 1);
  if (pos >= text.size() || text[pos] != '{') return false;
  return starts_at(text, skip_space(text, pos + 1), "\"name\"");
}

// Whether a '<' followed by `c` may open a wrapper or <function name=.
inline bool may_open_tag(char c) {
  return c == 't' || c == 'f' || c == 'r' || c == 'j' || c == 'J' || c == 'x';
}

// The wrapper whose open tag is at text[pos] ('<'), or nullptr.
const Wrapper* wrapper_at(std::string_view text, size_t pos) {
  if (pos + 1 >= text.size()) return nullptr;
  size_t first = 0;
  size_t last = 0;
  switch (text[pos + 1]) {  // the wrappers that start with this letter
    case 't': first = 0, last = 1; break;  // <tool_call>
    case 'f': first = 1, last = 2; break;
    case 'r': first = 4, last = 5; break;
    case 'j': first = 5, last = 6; break;
    case 'J': first = 6, last = 7; break;
    case 'x': first = 7, last = 8; break;
    default: return nullptr;
  }
  if (first == 0) {
    if (starts_at(text, pos, kWrappers[0].open)) return &kWrappers[0];
    if (starts_at(text, pos, kWrappers[2].open)) return &kWrappers[2];
    if (starts_at(text, pos, kWrappers[3].open)) return &kWrappers[3];
    return nullptr;
  }
  for (size_t i = first; i < last; ++i) {
    if (starts_at(text, pos, kWrappers[i].open)) return &kWrappers[i];
  }
  return nullptr;
}

// A reply that is one fenced block whose body starts with a wrapper tag: [body, close) is scanned
// and the fence lines are cut with the calls. Empty (body == 0) for any other reply.
struct WholeFence {
  size_t body = 0;
  size_t close = 0;
};
WholeFence whole_fence(std::string_view text) {
  const size_t start = skip_space(text, 0);
  if (!starts_at(text, start, "```")) return {};
  size_t line_end = text.find('\n', start);
  if (line_end == kNpos) return {};
  const size_t body = line_end + 1;
  const size_t first = skip_space(text, body);
  if (first == text.size() || text[first] != '<' || (wrapper_at(text, first) == nullptr && !starts_at(text, first, kNamedOpen)))
    return {};
  size_t close = find_literal(text, "```", body);
  if (close == kNpos) return {body, text.size()};  // cut off inside the block
  if (skip_space(text, close + 3) != text.size()) return {};
  return {body, close};
}

class HermesFormat final : public ToolCallFormat {
 public:
  std::string_view name() const override { return "hermes"; }
  std::string_view description() const override {
    return "Hermes / Qwen2.5: <tool_call>{\"name\": ..., \"arguments\": {...}}</tool_call>, several in a row";
  }

  std::span<const std::string_view> markers() const override { return kMarkers; }
  std::span<const std::string_view> leading_markers() const override { return kLeadingWrappers; }
  bool unmarked_detection() const override { return true; }
  // A reply that opens (after an optional fence line) with <json>, <JSON> or <xml>.
  bool detect_unmarked(std::string_view text) const override {
    size_t start = skip_space(text, 0);
    if (starts_at(text, start, "```")) {
      const size_t nl = text.find('\n', start);
      if (nl == kNpos) return false;
      start = skip_space(text, nl + 1);
    }
    if (start >= text.size() || text[start] != '<') return false;
    for (std::string_view w : kLeadingWrappers) {
      if (starts_at(text, start, w)) return true;
    }
    return false;
  }
  // A <tool_call> whose body is not another family's, or one of the other wrappers. (Literal
  // searches: replies of the other <tool_call> families are dense with tags.)
  // A reply whose <tool_call> tags all hold another family's bodies is that family's.
  bool detect_marked(std::string_view text) const override {
    size_t pos = find_literal(text, kOpen);
    if (pos != kNpos) {
      for (; pos != kNpos; pos = find_literal(text, kOpen, pos + kOpen.size())) {
        if (!other_family(text, skip_space(text, pos + kOpen.size()))) return true;
      }
      return false;
    }
    for (pos = find_literal(text, "<tool"); pos != kNpos; pos = find_literal(text, "<tool", pos + 5)) {
      if (starts_at(text, pos, "<tool>") || starts_at(text, pos, "<tools>")) return true;
    }
    for (pos = find_literal(text, "<function"); pos != kNpos; pos = find_literal(text, "<function", pos + 9)) {
      if (starts_at(text, pos, "<function_call>") || starts_at(text, pos, kNamedOpen)) return true;
    }
    return find_literal(text, "<response>") != kNpos;
  }

  FormatResult parse(std::string_view text, std::span<const ToolSpec> tools) const override {
    FormatResult out;
    Cuts cuts;
    const WholeFence fence = whole_fence(text);
    // Inside a whole-reply fence the scan starts past its opening line and stops at its close.
    const std::string_view scan = fence.body == 0 ? text : text.substr(0, fence.close);
    MarkdownCode code(scan);
    code.consumed(fence.body);
    // One close-tag search per wrapper for the whole reply: positions only move forward.
    std::array<Finder, std::size(kWrappers) + 1> closes = {
        Finder(scan, kWrappers[0].close), Finder(scan, kWrappers[1].close), Finder(scan, kWrappers[2].close),
        Finder(scan, kWrappers[3].close), Finder(scan, kWrappers[4].close), Finder(scan, kWrappers[5].close),
        Finder(scan, kWrappers[6].close), Finder(scan, kWrappers[7].close), Finder(scan, kNamedClose)};
    static_assert(std::size(kWrappers) == 8);
    size_t pos = fence.body;
    if (fence.body == 0) pos = leading_call(text, tools, out, cuts);
    code.consumed(pos);
    while (pos < scan.size()) {
      size_t open = scan.find('<', pos);
      if (open == kNpos) break;
      // The tag first (byte compares), then whether it stands in markdown code.
      if (open + 1 == scan.size() || !may_open_tag(scan[open + 1])) {
        pos = open + 1;
        continue;
      }
      const Wrapper* w = wrapper_at(scan, open);
      const bool named = w == nullptr && starts_at(scan, open, kNamedOpen);
      if (w == nullptr && !named) {
        pos = open + 1;
        continue;
      }
      if (size_t s = code.skip(open); s != open) {
        pos = s;
        continue;
      }
      if (named) {
        pos = named_call(scan, open, closes.back(), out, cuts);
        code.consumed(pos);
        if (out.error && pos == scan.size()) break;
        continue;
      }
      size_t body = skip_space(scan, open + w->open.size());
      if (w->strict ? other_family(scan, body) : !starts_as_call(scan, body)) {
        pos = body;
        continue;
      }
      const Label where({w->open}, open);
      if (body == scan.size() || (scan[body] != '{' && scan[body] != '[')) {
        // Not JSON: a broken call when the tag starts a line as templates print it or ends the
        // reply, else prose that mentions the tag ("the model emits <tool_call> tags").
        if (body != scan.size() && !at_line_start(scan, open)) {
          pos = body;
          continue;
        }
        size_t close = body == scan.size() ? kNpos : closes[static_cast<size_t>(w - kWrappers)].next(body);
        size_t end = close == kNpos ? scan.size() : close + w->close.size();
        fail(out, body == scan.size()
                      ? where + ": cut off right after the tag, before the JSON call"
                      : where + ": expected a JSON object {\"name\": ..., \"arguments\": {...}} at offset " +
                            std::to_string(body) + ", found " + shown_char(scan, body));
        cuts.emplace_back(open, end);
        code.consumed(end);
        pos = end;
        continue;
      }
      JsonIndex index;
      Finder& close_finder = closes[static_cast<size_t>(w - kWrappers)];
      TaggedPayload seg = tagged_payload(scan, body, w->close, w->open, close_finder, &index);
      cuts.emplace_back(open, seg.segment_end);
      code.consumed(seg.segment_end);
      pos = seg.segment_end;
      take(scan.substr(body, seg.payload_end - body), seg.cut_off, seg.scanned(), index, where, w->close, out);
      if (seg.cut_off) break;
    }
    if (fence.body != 0 && !cuts.empty()) {  // the fence lines go with the calls
      Cuts all;
      all.emplace_back(size_t{0}, fence.body);
      for (const Cut& c : cuts) all.emplace_back(c.begin, c.end);
      all.emplace_back(fence.close, text.size());
      cuts = all;
    }
    out.content = text_outside(text, cuts, {"<|im_end|>"});
    if (!cuts.empty()) drop_empty_response(out.content);
    return out;
  }

 private:
  // A reply whose tags hold calls may open with one more call object that lost its <tool_call>
  // tag (Qwen2.5 does): strictly valid JSON shaped as a call to a registered tool. Adds it (a
  // repair) and returns where the tags' scan starts.
  static size_t leading_call(std::string_view text, std::span<const ToolSpec> tools, FormatResult& out, Cuts& cuts) {
    const size_t start = skip_space(text, 0);
    if (start == text.size() || text[start] != '{' || !starts_as_call(text, start)) return 0;
    JsonIndex index;
    const size_t end = scan_json_value(text, start, &index);
    if (end == kNpos) return 0;
    const std::string_view object = text.substr(start, end - start);
    const JsonView value(object, &index);
    auto [name, arguments, parameters] = value.find_each({"name", "arguments", "parameters"});
    if (!name || !name->is_string() || (!arguments && !parameters) || find_tool(tools, name->str()) == nullptr) return 0;
    const Label where({"the call object"}, start);
    CallDraft d;
    std::string why;
    if (!call_from_object(value, d, where, why)) return 0;
    d.repairs.insert(d.repairs.begin(), where + ": took the call that opens the reply without its <tool_call> tag");
    commit(out, std::move(d), where);
    cuts.emplace_back(start, end);
    return end;
  }

  // <function name="N">{arguments}</function> at `open`: adds the call (or the error) and its
  // segment; returns where scanning goes on.
  static size_t named_call(std::string_view text, size_t open, Finder& closes, FormatResult& out, Cuts& cuts) {
    size_t q = open + kNamedOpen.size();
    const char quote = q < text.size() ? text[q] : '\0';
    if (quote != '"' && quote != '\'') return q;
    const size_t name_begin = q + 1;
    const size_t name_stop = text.find(quote, name_begin);
    if (name_stop == kNpos || name_stop == name_begin || name_end(text, name_begin) != name_stop) return name_begin;
    const size_t gt = skip_space(text, name_stop + 1);
    if (gt >= text.size() || text[gt] != '>') return name_begin;
    const Label where({"<function name=\"", text.substr(name_begin, name_stop - name_begin), "\">"}, open);
    const size_t body = skip_space(text, gt + 1);
    if (body == text.size() || text[body] != '{') {
      const size_t close = closes.next(gt);
      const size_t end = close == kNpos ? text.size() : close + kNamedClose.size();
      fail(out, body == text.size() ? where + ": cut off before the arguments"
                                    : where + ": expected the arguments as a JSON object at offset " +
                                          std::to_string(body) + ", found " + shown_char(text, body));
      cuts.emplace_back(open, end);
      return end;
    }
    JsonIndex index;
    TaggedPayload seg = tagged_payload(text, body, kNamedClose, kNamedOpen, closes, &index);
    cuts.emplace_back(open, seg.segment_end);
    std::vector<std::string> repairs;
    const LenientText parsed =
        lenient_payload(text.substr(body, seg.payload_end - body), where, repairs, seg.scanned(), &index);
    if (!parsed.ok()) {
      fail(out, where + (seg.cut_off ? ": the call was cut off before </function> (" : ": invalid JSON (") +
                    parsed.error + ")");
      return seg.cut_off ? text.size() : seg.segment_end;
    }
    CallDraft d;
    d.name = std::string(text.substr(name_begin, name_stop - name_begin));
    std::string why;
    if (!take_arguments(parsed.view(), d, where, why)) {
      fail(out, where + ": " + why);
      return seg.segment_end;
    }
    d.repairs.insert(d.repairs.begin(), std::make_move_iterator(repairs.begin()), std::make_move_iterator(repairs.end()));
    commit(out, std::move(d), where);
    return seg.cut_off ? text.size() : seg.segment_end;
  }

  // Several call objects separated by commas, without the brackets of a list ({...}, {...}), or
  // in brackets without the commas ([{...} {...}]): adds them as calls (a repair) and returns
  // true; false when the payload is not that.
  static bool take_object_list(std::string_view payload, const Label& where, FormatResult& out) {
    std::vector<std::pair<size_t, size_t>> objects;
    size_t pos = skip_space(payload, 0);
    const bool bracketed = pos < payload.size() && payload[pos] == '[';
    if (bracketed) {  // a list whose commas are missing: [{...} {...}]
      size_t last = payload.find_last_not_of(" \t\r\n");
      if (last == kNpos || payload[last] != ']') return false;
      payload = payload.substr(0, last);
      pos = skip_space(payload, pos + 1);
    }
    while (pos < payload.size()) {
      if (payload[pos] != '{') return false;
      const size_t end = scan_json_value(payload, pos, nullptr);
      if (end == kNpos) return false;
      objects.emplace_back(pos, end);
      pos = skip_space(payload, end);
      if (pos < payload.size() && payload[pos] == ',') pos = skip_space(payload, pos + 1);
    }
    if (objects.size() < 2) return false;
    std::vector<CallDraft> drafts;
    std::string why;
    for (const auto& [b, e] : objects) {
      JsonIndex index;
      std::vector<std::string> ignored;
      const std::string_view one = payload.substr(b, e - b);
      scan_json_value(one, 0, &index);
      const LenientText parsed = lenient_payload(one, where, ignored, Scanned::kValid, &index);
      drafts.emplace_back();
      if (!call_from_object(parsed.view(), drafts.back(), where, why)) return false;
    }
    drafts.front().repairs.insert(drafts.front().repairs.begin(),
                                  where + ": read the call objects as a list");
    for (auto& d : drafts) commit(out, std::move(d), where);
    return true;
  }

  // Adds the call(s) of one payload, or the error that explains why it is unusable.
  static void take(std::string_view payload, bool cut_off, Scanned scanned, const JsonIndex& index, const Label& where,
                   std::string_view close, FormatResult& out) {
    std::vector<std::string> repairs;
    std::string why;
    // A valid object followed by more than the close tag may be the first of a comma-separated list.
    if (scanned == Scanned::kNo && !cut_off && take_object_list(payload, where, out)) return;
    const LenientText parsed = lenient_payload(payload, where, repairs, scanned, &index);
    if (!parsed.ok()) {
      if (!cut_off && take_object_list(payload, where, out)) return;
      fail(out, where + (cut_off ? ": the call was cut off before " + std::string(close) + " (" : std::string(": invalid JSON (")) +
                    parsed.error + ")");
      return;
    }
    const JsonView value = parsed.view();
    if (!value.is_array() || value.empty()) {  // the usual single call
      CallDraft d;
      if (!call_from_object(value, d, where, why)) return fail(out, where + ": " + why);
      d.repairs.insert(d.repairs.begin(), std::make_move_iterator(repairs.begin()),
                       std::make_move_iterator(repairs.end()));
      return commit(out, std::move(d), where);
    }
    std::vector<CallDraft> drafts;
    JsonView::Items it = value.items();
    JsonView key, element;
    while (it.next(key, element)) {
      drafts.emplace_back();
      if (!call_from_object(element, drafts.back(), where, why)) return fail(out, where + ": " + why);
    }
    drafts.front().repairs.insert(drafts.front().repairs.begin(), std::make_move_iterator(repairs.begin()),
                                  std::make_move_iterator(repairs.end()));
    for (auto& d : drafts) commit(out, std::move(d), where);
  }
};

}  // namespace

std::unique_ptr<ToolCallFormat> make_hermes_format() {
  return std::make_unique<HermesFormat>();
}

}  // namespace keel::detail
