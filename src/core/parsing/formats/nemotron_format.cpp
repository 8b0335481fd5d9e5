// NVIDIA Nemotron (Llama-Nemotron, Nemotron Nano v2): the calls as a JSON list in tags,
//   <TOOLCALL>[{"name": "get_weather", "arguments": {"city": "Paris"}}, ...]</TOOLCALL>
// (a single object instead of the list is accepted; "arguments" may be a JSON string). Text
// around the block is content; Nano v2's end token <SPECIAL_12> is dropped from it. Read by
// tagged_json_calls.hpp.
#include "core/parsing/formats/formats.hpp"
#include "core/parsing/formats/tagged_json_calls.hpp"

namespace keel::detail {
namespace {
namespace nemotron {

constexpr TaggedJsonFraming kFraming{"<TOOLCALL>", "", "</TOOLCALL>", false};

class NemotronFormat final : public ToolCallFormat {
 public:
  std::string_view name() const override { return "nemotron"; }
  std::string_view description() const override {
    return "Nemotron: <TOOLCALL>[{\"name\", \"arguments\"}, ...]</TOOLCALL>";
  }
  std::span<const std::string_view> markers() const override {
    static constexpr std::string_view kMarkers[] = {"<TOOLCALL>"};
    return kMarkers;
  }
  FormatResult parse(std::string_view text, std::span<const ToolSpec>) const override {
    FormatResult out;
    parse_tagged_json_calls(text, kFraming, out, {"<SPECIAL_12>"});
    return out;
  }
};

}  // namespace nemotron
}  // namespace

std::unique_ptr<ToolCallFormat> make_nemotron_format() {
  return std::make_unique<nemotron::NemotronFormat>();
}

}  // namespace keel::detail
