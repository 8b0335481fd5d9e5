// Swiss AI Apertus: the calls as a JSON list keyed by tool name between special tokens,
//   <|tools_prefix|>[{"get_weather": {"city": "Paris"}}, {"get_time": {}}]<|tools_suffix|>
// (read by tagged_json_calls.hpp). A list the reply ends in after its closing bracket counts;
// one cut off inside is an error. Text around the list is content.
#include "core/parsing/formats/formats.hpp"
#include "core/parsing/formats/tagged_json_calls.hpp"
#include "core/text/text_util.hpp"

namespace keel::detail {
namespace {
namespace apertus {

constexpr TaggedJsonFraming kFraming{"<|tools_prefix|>", "", "<|tools_suffix|>", true, {}, true};

class ApertusFormat final : public ToolCallFormat {
 public:
  std::string_view name() const override { return "apertus"; }
  std::string_view description() const override {
    return "Apertus: <|tools_prefix|>[{\"NAME\": {arguments}}]<|tools_suffix|>";
  }
  // A prefix shared with Gemma 4's and LFM2's tokens (one entry of the shared scan); the token is
  // checked when it occurs.
  std::span<const std::string_view> markers() const override {
    static constexpr std::string_view kMarkers[] = {"<|tool"};
    return kMarkers;
  }
  bool detect_marked(std::string_view text) const override { return find_literal(text, kFraming.open) != std::string_view::npos; }
  FormatResult parse(std::string_view text, std::span<const ToolSpec>) const override {
    FormatResult out;
    parse_tagged_json_calls(text, kFraming, out);
    return out;
  }
};

}  // namespace apertus
}  // namespace

std::unique_ptr<ToolCallFormat> make_apertus_format() {
  return std::make_unique<apertus::ApertusFormat>();
}

}  // namespace keel::detail
