// Label (formats/text_scan.hpp): a call's place for messages, written in place or — for long
// names — on the heap, with the same text either way.
#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "core/parsing/formats/text_scan.hpp"

namespace keel::detail {
namespace {

TEST(CallLabel, WritesPartsThenTheOffset) {
  const Label hermes({"<tool_call>"}, 0);
  EXPECT_EQ(std::string_view(hermes), "<tool_call> at offset 0");
  const Label named({"<function=", "get_weather", ">"}, 1234567);
  EXPECT_EQ(std::string_view(named), "<function=get_weather> at offset 1234567");
  EXPECT_EQ(named + ": invalid JSON", "<function=get_weather> at offset 1234567: invalid JSON");
}

TEST(CallLabel, LongNamesGoToTheHeap) {
  const std::string name(200, 'n');
  const Label label({">>>", name}, 42);
  EXPECT_EQ(std::string_view(label), ">>>" + name + " at offset 42");
  EXPECT_EQ(label + "!", ">>>" + name + " at offset 42!");
}

}  // namespace
}  // namespace keel::detail
