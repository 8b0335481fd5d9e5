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
#include <iterator>

#include "core/parsing/formats/format_util.hpp"
#include "core/parsing/formats/formats.hpp"
#include "core/parsing/formats/text_scan.hpp"
#include "core/text/text_util.hpp"

namespace keel::detail {
namespace {

constexpr std::string_view kOpen = "<tool_call>";
constexpr std::string_view kClose = "</tool_call>";

// Whether the body at `pos` belongs to Qwen3-Coder or GLM-4.5.
bool other_family(std::string_view text, size_t pos) {
  if (starts_at(text, pos, "<function=")) return true;
  size_t name = name_end(text, pos);
  if (name == pos) return false;
  size_t after = skip_space(text, name);
  return starts_at(text, after, "<arg_key>") || starts_at(text, after, kClose);
}

class HermesFormat final : public ToolCallFormat {
 public:
  std::string_view name() const override { return "hermes"; }
  std::string_view description() const override {
    return "Hermes / Qwen2.5: <tool_call>{\"name\": ..., \"arguments\": {...}}</tool_call>, several in a row";
  }

  std::span<const std::string_view> markers() const override {
    static constexpr std::string_view kMarkers[] = {kOpen};
    return kMarkers;
  }
  // A <tool_call> whose body is not another family's.
  bool detect_marked(std::string_view text) const override {
    for (size_t pos = find_literal(text, kOpen); pos != kNpos; pos = find_literal(text, kOpen, pos + kOpen.size())) {
      if (!other_family(text, skip_space(text, pos + kOpen.size()))) return true;
    }
    return false;
  }

  FormatResult parse(std::string_view text, std::span<const ToolSpec> /*tools*/) const override {
    FormatResult out;
    Cuts cuts;
    MarkdownCode code(text);
    Finder closes(text, kClose);
    size_t pos = 0;
    size_t open;
    while ((open = find_outside_code(text, kOpen, pos, code)) != kNpos) {
      size_t body = skip_space(text, open + kOpen.size());
      if (other_family(text, body)) {
        pos = body;
        continue;
      }
      const Label where({"<tool_call>"}, open);
      if (body == text.size() || (text[body] != '{' && text[body] != '[')) {
        // Not JSON: a broken call when the tag starts a line as templates print it, else prose
        // that mentions the tag ("the model emits <tool_call> tags").
        if (!at_line_start(text, open)) {
          pos = body;
          continue;
        }
        size_t close = body == text.size() ? kNpos : closes.next(body);
        size_t end = close == kNpos ? text.size() : close + kClose.size();
        fail(out, body == text.size()
                      ? where + ": cut off right after the tag, before the JSON call"
                      : where + ": expected a JSON object {\"name\": ..., \"arguments\": {...}} at offset " +
                            std::to_string(body) + ", found " + shown_char(text, body));
        cuts.emplace_back(open, end);
        code.consumed(end);
        pos = end;
        continue;
      }
      JsonIndex index;
      TaggedPayload seg = tagged_payload(text, body, kClose, kOpen, closes, &index);
      cuts.emplace_back(open, seg.segment_end);
      code.consumed(seg.segment_end);
      pos = seg.segment_end;
      take(text.substr(body, seg.payload_end - body), seg.cut_off, seg.scanned(), index, where, out);
      if (seg.cut_off) break;
    }
    out.content = text_outside(text, cuts, {"<|im_end|>"});
    return out;
  }

 private:
  // Adds the call(s) of one payload, or the error that explains why it is unusable.
  static void take(std::string_view payload, bool cut_off, Scanned scanned, const JsonIndex& index, const Label& where,
                   FormatResult& out) {
    std::vector<std::string> repairs;
    std::string why;
    const LenientText parsed = lenient_payload(payload, where, repairs, scanned, &index);
    if (!parsed.ok()) {
      fail(out, where + (cut_off ? ": the call was cut off before </tool_call> (" : ": invalid JSON (") + parsed.error +
                    ")");
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
