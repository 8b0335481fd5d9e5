// The <tool_calls> family (Jamba, Hunyuan A13B, MiniMax-M1): one block of JSON calls,
//   <tool_calls>[{"name": "get_weather", "arguments": {"city": "Paris"}}, ...]</tool_calls>
// as a list (Jamba, Hunyuan) or one object per line (MiniMax-M1); both are read the same way
// (tagged_json_calls.hpp). Hermes' singular <tool_call> is a different tag and not read here; a
// <tool_calls> block of <tool_call> tags is Hunyuan HY v3's.
// Text around the block is content; Hunyuan's <answer> tags are dropped from it.
#include "core/parsing/formats/formats.hpp"
#include "core/parsing/formats/tagged_json_calls.hpp"
#include "core/text/text_util.hpp"

namespace keel::detail {
namespace {
namespace tool_calls_list {

// A body of <tool_call> tags is Hunyuan HY v3's (hy_v3_format.cpp).
constexpr TaggedJsonFraming kFraming{"<tool_calls>", "", "</tool_calls>", false, "<tool_call"};

class ToolCallsFormat final : public ToolCallFormat {
 public:
  std::string_view name() const override { return "tool_calls"; }
  std::string_view description() const override {
    return "Jamba / Hunyuan A13B / MiniMax-M1: <tool_calls>[{\"name\", \"arguments\"}, ...]</tool_calls>";
  }
  std::span<const std::string_view> markers() const override {
    static constexpr std::string_view kMarkers[] = {"<tool_calls"};  // one scan entry with HY v3's
    return kMarkers;
  }
  bool detect_marked(std::string_view text) const override {
    return find_literal(text, kFraming.open) != std::string_view::npos;
  }
  FormatResult parse(std::string_view text, std::span<const ToolSpec>) const override {
    FormatResult out;
    parse_tagged_json_calls(text, kFraming, out, {"<answer>", "</answer>"});
    return out;
  }
};

}  // namespace tool_calls_list
}  // namespace

std::unique_ptr<ToolCallFormat> make_tool_calls_format() {
  return std::make_unique<tool_calls_list::ToolCallsFormat>();
}

}  // namespace keel::detail
