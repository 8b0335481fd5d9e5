// The one-line form of a call's arguments the CLI prints per tool call and in approval prompts.
#include <gtest/gtest.h>

#include <string>

#include "cli/text_output.hpp"

namespace keel::cli {
namespace {

TEST(ShortArgumentsTest, KeysInOrderWithValuesAsADocumentPrintsThem) {
  EXPECT_EQ(short_arguments(R"({"path":"f1.txt"})"), "path=f1.txt");
  EXPECT_EQ(short_arguments(R"({ "b": 2, "a": "x" })"), "a=x b=2");
  EXPECT_EQ(short_arguments(R"({"a":"first","a":"last"})"), "a=last");
  EXPECT_EQ(short_arguments(R"({"n":1.50,"e":1e2,"t":true,"z":null})"), "e=100.0 n=1.5 t=true z=null");
  EXPECT_EQ(short_arguments(R"({"o":{"y":1,"x":[2]}})"), R"(o={"x":[2],"y":1})");
  EXPECT_EQ(short_arguments(R"({"caf\u00e9":"line one\nline two\ttab"})"), "café=line one line two tab");
  EXPECT_EQ(short_arguments(""), "");
  EXPECT_EQ(short_arguments("{}"), "");
}

TEST(ShortArgumentsTest, LongValuesAreCutAndNonObjectsShownAsWritten) {
  EXPECT_EQ(short_arguments(R"({"q":")" + std::string(50, 'x') + R"("})", 10), "q=" + std::string(10, 'x') + "…");
  EXPECT_EQ(short_arguments("[1,2,3]"), "[1,2,3]");
  EXPECT_EQ(short_arguments("{not json", 4), "{not");
}

}  // namespace
}  // namespace keel::cli
