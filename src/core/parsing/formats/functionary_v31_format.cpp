// Functionary v3.1 (Llama 3.1 based): each call is the tool name in a tag and its JSON arguments,
//   <function=get_weather>{"city": "Paris"}</function>
// several in a row, text before them is content, <|eom_id|> / <|eot_id|> end the turn. The tag
// is explicit, so an unknown name is still a call and broken JSON is an error. Only a tag followed
// by '{' is this format: <function=N><parameter=...> is Qwen3-Coder's, and Functionary's python
// form <|python_tag|>code is read by the llama3 format.
#include "core/parsing/formats/format_util.hpp"
#include "core/parsing/formats/formats.hpp"
#include "core/parsing/formats/text_scan.hpp"
#include "core/text/text_util.hpp"

namespace keel::detail {
namespace {

constexpr std::string_view kOpen = "<function=";
constexpr std::string_view kClose = "</function>";

class FunctionaryV31Format final : public ToolCallFormat {
 public:
  std::string_view name() const override { return "functionary_v31"; }
  std::string_view description() const override {
    return "Functionary v3.1: <function=NAME>{\"arg\": ...}</function>, several in a row";
  }
  std::span<const std::string_view> markers() const override {
    static constexpr std::string_view kMarkers[] = {kOpen};
    return kMarkers;
  }
  // A <function=NAME> tag followed by '{': the only shape parse() reads (Qwen3-Coder's
  // <function=NAME><parameter=...> is not).
  bool detect_marked(std::string_view text) const override {
    for (size_t open = find_literal(text, kOpen); open != kNpos;
         open = find_literal(text, kOpen, open + kOpen.size())) {
      const size_t name_b = open + kOpen.size();
      const size_t name_e = name_end(text, name_b);
      if (name_e == name_b || name_e == text.size() || text[name_e] != '>') continue;
      const size_t body = skip_space(text, name_e + 1);
      if (body < text.size() && text[body] == '{') return true;
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
      size_t name_b = open + kOpen.size();
      size_t name_e = name_end(text, name_b);
      size_t body = name_e < text.size() && text[name_e] == '>' ? skip_space(text, name_e + 1) : text.size();
      if (name_e == name_b || body == text.size() || text[body] != '{') {  // not this format (or cut off
        pos = name_b;                                                      // before the JSON: Qwen3-Coder says so)
        continue;
      }
      const Label where({"<function=", text.substr(name_b, name_e - name_b), ">"}, open);
      JsonIndex index;
      TaggedPayload seg = tagged_payload(text, body, kClose, kOpen, closes, &index);
      cuts.emplace_back(open, seg.segment_end);
      code.consumed(seg.segment_end);
      pos = seg.segment_end;
      CallDraft d;
      d.name = std::string(text.substr(name_b, name_e - name_b));
      std::string why;
      const std::string_view payload = text.substr(body, seg.payload_end - body);
      const LenientText args = lenient_payload(payload, where, d.repairs, seg.scanned(), &index);
      if (!args.ok()) {
        fail(out, where + (seg.cut_off ? ": the arguments were cut off before </function> (" : ": invalid JSON (") +
                      args.error + ")");
      } else if (!take_arguments(args.view(), d, where, why)) {
        fail(out, where + ": " + why);
      } else {
        commit(out, std::move(d), where);
      }
      if (seg.cut_off) break;
    }
    out.content = text_outside(text, cuts, {"<|eom_id|>", "<|eot_id|>"});
    return out;
  }
};

}  // namespace

std::unique_ptr<ToolCallFormat> make_functionary_v31_format() {
  return std::make_unique<FunctionaryV31Format>();
}

}  // namespace keel::detail
