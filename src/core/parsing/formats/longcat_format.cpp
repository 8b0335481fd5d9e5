// Meituan LongCat: each call is one JSON object between its own tokens,
//   <longcat_tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</longcat_tool_call>
// several in a row (read by tagged_json_calls.hpp). The tokens are special, so a body that is not
// JSON is a broken call. Text around the calls is content.
#include "core/parsing/formats/formats.hpp"
#include "core/parsing/formats/tagged_json_calls.hpp"

namespace keel::detail {
namespace {
namespace longcat {

constexpr TaggedJsonFraming kFraming{"<longcat_tool_call>", "", "</longcat_tool_call>", true};

class LongcatFormat final : public ToolCallFormat {
 public:
  std::string_view name() const override { return "longcat"; }
  std::string_view description() const override {
    return "LongCat: <longcat_tool_call>{\"name\", \"arguments\"}</longcat_tool_call>";
  }
  std::span<const std::string_view> markers() const override {
    static constexpr std::string_view kMarkers[] = {"<longcat_tool_call>"};
    return kMarkers;
  }
  FormatResult parse(std::string_view text, std::span<const ToolSpec>) const override {
    FormatResult out;
    parse_tagged_json_calls(text, kFraming, out);
    return out;
  }
};

}  // namespace longcat
}  // namespace

std::unique_ptr<ToolCallFormat> make_longcat_format() {
  return std::make_unique<longcat::LongcatFormat>();
}

}  // namespace keel::detail
