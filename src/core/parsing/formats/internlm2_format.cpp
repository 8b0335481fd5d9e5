// InternLM2 / InternLM2.5 / Intern-S1: each call is one JSON object after the plugin tokens,
//   <|action_start|><|plugin|>{"name": "get_weather", "parameters": {"city": "Paris"}}<|action_end|>
// ("arguments" is accepted too); several blocks may follow each other. The tokens are special,
// so an <|action_start|> not followed by <|plugin|> and JSON is a broken call. Text outside the
// blocks is content; <|im_end|> is dropped. Read by tagged_json_calls.hpp.
#include "core/parsing/formats/formats.hpp"
#include "core/parsing/formats/tagged_json_calls.hpp"

namespace keel::detail {
namespace {
namespace internlm2 {

constexpr TaggedJsonFraming kFraming{"<|action_start|>", "<|plugin|>", "<|action_end|>", true};

class Internlm2Format final : public ToolCallFormat {
 public:
  std::string_view name() const override { return "internlm2"; }
  std::string_view description() const override {
    return "InternLM2 / Intern-S1: <|action_start|><|plugin|>{\"name\", \"parameters\"}<|action_end|>";
  }
  std::span<const std::string_view> markers() const override {
    static constexpr std::string_view kMarkers[] = {"<|action_start|>"};
    return kMarkers;
  }
  FormatResult parse(std::string_view text, std::span<const ToolSpec>) const override {
    FormatResult out;
    parse_tagged_json_calls(text, kFraming, out, {"<|im_end|>"});
    return out;
  }
};

}  // namespace internlm2
}  // namespace

std::unique_ptr<ToolCallFormat> make_internlm2_format() {
  return std::make_unique<internlm2::Internlm2Format>();
}

}  // namespace keel::detail
