// libFuzzer target: the universal tool-call parser on arbitrary model output, with a fixed tool
// set. Invariants: no crash, leak or hang; every call's arguments are a JSON object; a result is
// deterministic.
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string_view>

#include "keel/core/universal_parser.hpp"

namespace {

std::vector<keel::ToolSpec> fuzz_tools() {
  std::vector<keel::ToolSpec> tools(4);
  tools[0].name = "get_weather";
  tools[0].parameters_schema = R"({"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer"}}})";
  tools[1].name = "search";
  tools[1].parameters_schema = R"({"type":"object","properties":{"query":{"type":"string"},"limit":{"type":"integer"}}})";
  tools[2].name = "now";
  tools[3].name = "set_flag";
  tools[3].parameters_schema = R"({"type":"object","properties":{"enabled":{"type":"boolean"},"level":{"type":"number"}}})";
  return tools;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const auto parser = std::move(keel::UniversalToolCallParser::create("auto")).value();
  static const std::vector<keel::ToolSpec> tools = fuzz_tools();
  std::string_view text(reinterpret_cast<const char*>(data), size);
  keel::ParseOutcome a = parser->parse_full(text, tools);
  for (const auto& call : a.calls) {
    auto args = nlohmann::json::parse(call.arguments, nullptr, false);
    if (!args.is_object()) std::abort();
  }
  keel::ParseOutcome b = parser->parse_full(text, tools);
  if (a.calls.size() != b.calls.size() || a.format != b.format || a.error != b.error) std::abort();
  return 0;
}
