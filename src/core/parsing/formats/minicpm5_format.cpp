// MiniCPM5: each call is an XML element with named parameters in the reply's text,
//   <function name="get_weather"><param name="city">Paris</param></function>
// one element per call (parallel calls follow one another). A value that holds markup or line
// breaks comes as <![CDATA[...]]>; values are typed by the tool's JSON Schema (xml_invoke.hpp).
// The element is told from Hermes' <function name="N">{json}</function> by its body: parameters,
// or none at all. Text outside the calls is content; call syntax in markdown code is an example.
#include "core/parsing/formats/formats.hpp"
#include "core/parsing/formats/text_scan.hpp"
#include "core/parsing/formats/xml_invoke.hpp"
#include "core/text/text_util.hpp"

namespace keel::detail {
namespace {
namespace minicpm5 {

constexpr std::string_view kOpen = "<function name=";
constexpr XmlInvokeTags kTags{"<function", "</function>", "<param", "</param>", true};

// Whether the <function name=...> at `pos` has MiniCPM5's body: a <param element or the closing
// tag right after the opening tag.
bool xml_bodied(std::string_view text, size_t pos) {
  const size_t q = pos + kOpen.size();
  if (q >= text.size() || (text[q] != '"' && text[q] != '\'')) return false;
  const size_t close = text.find(text[q], q + 1);
  if (close == kNpos) return false;
  const size_t gt = skip_space(text, close + 1);
  if (gt == text.size() || text[gt] != '>') return false;
  const size_t body = skip_space(text, gt + 1);
  return starts_at(text, body, "<param ") || starts_at(text, body, kTags.invoke_close);
}

class MiniCpm5Format final : public ToolCallFormat {
 public:
  std::string_view name() const override { return "minicpm5"; }
  std::string_view description() const override {
    return "MiniCPM5: <function name=\"N\"><param name=\"K\">v</param></function>";
  }
  // Hermes' marker too (one entry in the shared scan); the body tells the two apart.
  std::span<const std::string_view> markers() const override {
    static constexpr std::string_view kMarkers[] = {kOpen};
    return kMarkers;
  }

  FormatResult parse(std::string_view text, std::span<const ToolSpec> tools) const override {
    FormatResult out;
    Cuts cuts;
    MarkdownCode code(text);
    size_t pos = 0;
    size_t open;
    while (!out.error && (open = find_outside_code(text, kOpen, pos, code)) != kNpos) {
      if (!xml_bodied(text, open)) {  // Hermes' JSON body, or prose
        pos = open + kOpen.size();
        continue;
      }
      out.framed = true;
      const XmlInvokeRead r = read_xml_invoke(text, open, kTags, tools, out);
      cuts.emplace_back(open, r.end);
      code.consumed(r.end);
      pos = r.end;
    }
    out.content = text_outside(text, cuts, {"<|im_end|>"});
    return out;
  }
};

}  // namespace minicpm5
}  // namespace

std::unique_ptr<ToolCallFormat> make_minicpm5_format() {
  return std::make_unique<minicpm5::MiniCpm5Format>();
}

}  // namespace keel::detail
