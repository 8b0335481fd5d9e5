// MiniMax-M2: XML calls in a tool-call block, parameter values untyped,
//   <minimax:tool_call>
//   <invoke name="get_weather">
//   <parameter name="city">Paris</parameter>
//   </invoke>
//   </minimax:tool_call>
// several <invoke> elements per block (parallel calls). Values are typed by the tool's JSON
// Schema (xml_invoke.hpp). Text outside the blocks is content. A block the reply ends in after
// complete calls counts; a call cut off inside is an error.
#include "core/parsing/formats/formats.hpp"
#include "core/parsing/formats/text_scan.hpp"
#include "core/parsing/formats/xml_invoke.hpp"
#include "core/text/text_util.hpp"

namespace keel::detail {
namespace {
namespace minimax_m2 {

constexpr std::string_view kOpen = "<minimax:tool_call>";
constexpr std::string_view kClose = "</minimax:tool_call>";
constexpr XmlInvokeTags kTags{"<invoke", "</invoke>", "<parameter", "</parameter>", false};

class MinimaxM2Format final : public ToolCallFormat {
 public:
  std::string_view name() const override { return "minimax_m2"; }
  std::string_view description() const override {
    return "MiniMax-M2: <minimax:tool_call><invoke name=\"N\"><parameter name=\"K\">v</parameter></invoke>"
           "</minimax:tool_call>";
  }
  // Found by its <invoke name= (keyed in the shared scan by a byte other formats' markers already
  // use); the block tag is checked when that occurs.
  std::span<const std::string_view> markers() const override {
    static constexpr std::string_view kMarkers[] = {"<invoke name="};
    return kMarkers;
  }
  std::span<const std::string_view> stream_markers() const override {
    static constexpr std::string_view kStream[] = {kOpen};
    return kStream;
  }
  bool detect_marked(std::string_view text) const override { return find_literal(text, kOpen) != kNpos; }

  FormatResult parse(std::string_view text, std::span<const ToolSpec> tools) const override {
    FormatResult out;
    Cuts cuts;
    MarkdownCode code(text);
    size_t pos = 0;
    size_t open;
    while (!out.error && (open = find_outside_code(text, kOpen, pos, code)) != kNpos) {
      out.framed = true;
      size_t p = open + kOpen.size();
      size_t end = kNpos;
      bool any = false;
      while (!out.error && end == kNpos) {
        size_t q = skip_space(text, p);
        if (starts_at(text, q, kClose)) {
          end = q + kClose.size();
        } else if (q == text.size()) {
          if (!any) fail(out, "<minimax:tool_call> at offset " + std::to_string(open) + ": cut off before <invoke>");
          end = q;
        } else if (starts_at(text, q, kTags.invoke)) {
          XmlInvokeRead r = read_xml_invoke(text, q, kTags, tools, out);
          any = any || r.ok;
          p = r.end;
          if (r.cut_off) end = r.end;
        } else {
          fail(out, "<minimax:tool_call> at offset " + std::to_string(open) + ": expected <invoke or " +
                        std::string(kClose) + " at offset " + std::to_string(q) + ", found " + shown_char(text, q));
          size_t c = text.find(kClose, q);
          end = c == kNpos ? text.size() : c + kClose.size();
        }
      }
      if (end == kNpos) end = text.size();
      cuts.emplace_back(open, end);
      code.consumed(end);
      pos = end;
    }
    out.content = text_outside(text, cuts);
    return out;
  }
};

}  // namespace minimax_m2
}  // namespace

std::unique_ptr<ToolCallFormat> make_minimax_m2_format() {
  return std::make_unique<minimax_m2::MinimaxM2Format>();
}

}  // namespace keel::detail
