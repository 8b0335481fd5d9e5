#include <gtest/gtest.h>

#include "data_tool_harness.hpp"
#include "tools/data/csv_reader.hpp"

namespace keel {
namespace {

using nlohmann::json;
using testing::DataToolHarness;
using testing::has;

class ParseCsvTest : public ::testing::Test {
 protected:
  json parse(const std::string& text, json extra = json::object()) {
    extra["text"] = text;
    return h_.ok("parse_csv", extra);
  }
  DataToolHarness h_;
};

TEST_F(ParseCsvTest, HeaderRowsBecomeObjectsWithTypedValues) {
  const json out = parse("name,qty,price,active,note\napple,3,1.25,true,\"fresh, red\"\npear,-2,1e2,FALSE,\n");
  EXPECT_EQ(out["columns"], json({"name", "qty", "price", "active", "note"}));
  EXPECT_EQ(out["row_count"], 2);
  EXPECT_EQ(out["delimiter"], ",");
  EXPECT_FALSE(out.contains("truncated"));
  EXPECT_FALSE(out.contains("ragged_rows"));
  ASSERT_EQ(out["rows"].size(), 2u);
  EXPECT_EQ(out["rows"][0], json::parse(R"({"name":"apple","qty":3,"price":1.25,"active":true,"note":"fresh, red"})"));
  EXPECT_EQ(out["rows"][1], json::parse(R"({"name":"pear","qty":-2,"price":100.0,"active":false,"note":null})"));
  EXPECT_TRUE(out["rows"][0]["qty"].is_number_integer());
  EXPECT_TRUE(out["rows"][1]["price"].is_number_float());
}

TEST_F(ParseCsvTest, NumberDetectionRule) {
  const json out = parse(
      "v\n007\n1,5\n+5\n.5\n5.\n0\n-0.25\n 42 \n1 000\n12345678901234567890\n2E-3\n0x1F\n\"17\"\n\"\"\nnan\n",
      {{"delimiter", ";"}});
  std::vector<json> values;
  for (const json& row : out["rows"]) values.push_back(row["v"]);
  const std::vector<json> expected = {"007",  "1,5",  "+5", ".5", "5.", 0,    -0.25, 42,   "1 000",
                                      "12345678901234567890", 0.002, "0x1F", "17", "", "nan"};
  ASSERT_EQ(values.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) EXPECT_EQ(values[i], expected[i]) << "row " << i + 1;
  EXPECT_TRUE(values[5].is_number_integer());
}

TEST_F(ParseCsvTest, QuotesFollowRfc4180) {
  const std::string text = "id,text\r\n1,\"say \"\"hi\"\"\"\r\n2,\"two\r\nlines, and a comma\"\r\n3,plain \"quote\r\n";
  const json out = parse(text);
  EXPECT_EQ(out["row_count"], 3);
  EXPECT_EQ(out["rows"][0]["text"], "say \"hi\"");
  EXPECT_EQ(out["rows"][1]["text"], "two\r\nlines, and a comma");
  EXPECT_EQ(out["rows"][2]["text"], "plain \"quote");
  Result<std::string> open = h_.run("parse_csv", {{"text", "a,b\n1,2\n3,\"never closed\n4,5\n"}});
  ASSERT_FALSE(open.ok());
  EXPECT_TRUE(has(open.status().message(), "opens a field on line 3 is never closed")) << open.status().message();
}

TEST_F(ParseCsvTest, DelimitersAreDetected) {
  EXPECT_EQ(parse("a;b;c\n1,5;2;3\n4;5,5;6\n")["delimiter"], ";");
  EXPECT_EQ(parse("a;b;c\n1,5;2;3\n")["rows"][0]["a"], "1,5");
  EXPECT_EQ(parse("a\tb\n1\t2\n")["delimiter"], "tab");
  EXPECT_EQ(parse("a|b|c\n1|2|3\n")["delimiter"], "|");
  // A delimiter inside quotes does not count.
  EXPECT_EQ(parse("name,desc\nx,\"a;b;c;d\"\ny,\"e;f;g;h\"\n")["delimiter"], ",");
  // One column: nothing splits, comma is assumed.
  const json single = parse("word\nalpha\nbeta\n");
  EXPECT_EQ(single["columns"], json({"word"}));
  EXPECT_EQ(single["row_count"], 2);
  // Explicit delimiters, also by name.
  EXPECT_EQ(parse("a,b;c\n1,2;3\n", {{"delimiter", ","}})["columns"], json({"a", "b;c"}));
  EXPECT_EQ(parse("a\tb\n1\t2\n", {{"delimiter", "tab"}})["rows"][0]["b"], 2);
  EXPECT_EQ(h_.run("parse_csv", {{"text", "a"}, {"delimiter", "ab"}}).status().code(), ErrorCode::kInvalidArgument);
}

TEST_F(ParseCsvTest, BomCrlfBlankLinesAndHeaderNames) {
  const json out = parse("\xEF\xBB\xBFid,,id\r\n\r\n1,2,3\r\n   \r\n4,5,6");
  EXPECT_EQ(out["columns"], json({"id", "column_2", "id_2"}));
  EXPECT_EQ(out["row_count"], 2);
  EXPECT_EQ(out["rows"][1], json::parse(R"({"id": 4, "column_2": 5, "id_2": 6})"));
}

TEST_F(ParseCsvTest, RaggedRowsAreReportedAndKept) {
  const json out = parse("a,b,c\n1,2,3\n4,5\n6,7,8,9\n");
  EXPECT_EQ(out["ragged_row_count"], 2);
  EXPECT_EQ(out["ragged_rows"][0], json::parse(R"({"row": 2, "line": 3, "fields": 2, "expected": 3})"));
  EXPECT_EQ(out["ragged_rows"][1], json::parse(R"({"row": 3, "line": 4, "fields": 4, "expected": 3})"));
  EXPECT_EQ(out["rows"][1], json::parse(R"({"a": 4, "b": 5, "c": null})"));
  EXPECT_EQ(out["rows"][2], json::parse(R"({"a": 6, "b": 7, "c": 8, "column_4": 9})"));
}

TEST_F(ParseCsvTest, WithoutHeaderRowsAreArrays) {
  const json out = parse("1,x\n2,y,extra\n", {{"header", false}});
  EXPECT_EQ(out["columns"], json({"column_1", "column_2", "column_3"}));
  EXPECT_EQ(out["rows"], json::parse(R"([[1, "x"], [2, "y", "extra"]])"));
  EXPECT_EQ(out["ragged_row_count"], 1);
}

TEST_F(ParseCsvTest, MaxRowsTruncatesWithANote) {
  std::string text = "n\n";
  for (int i = 1; i <= 50; ++i) text += std::to_string(i) + "\n";
  const json out = parse(text, {{"max_rows", 10}});
  EXPECT_EQ(out["row_count"], 10);
  EXPECT_EQ(out["rows"].size(), 10u);
  EXPECT_EQ(out["truncated"], true);
  EXPECT_EQ(out["total_rows"], 50);
  EXPECT_EQ(out["rows"][9]["n"], 10);

  DataToolOptions o;
  o.csv_max_rows = 5;
  o.csv_max_rows_limit = 20;
  DataToolHarness small(o);
  EXPECT_EQ(small.ok("parse_csv", {{"text", text}})["row_count"], 5);
  EXPECT_EQ(small.run("parse_csv", {{"text", text}, {"max_rows", 21}}).status().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(small.run("parse_csv", {{"text", text}, {"max_rows", 0}}).status().code(), ErrorCode::kInvalidArgument);
}

TEST_F(ParseCsvTest, EmptyInputAndHeaderOnly) {
  EXPECT_EQ(h_.run("parse_csv", {{"text", ""}}).status().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(h_.run("parse_csv", {{"text", "\n\n"}}).status().code(), ErrorCode::kInvalidArgument);
  const json header_only = parse("a,b\n");
  EXPECT_EQ(header_only["columns"], json({"a", "b"}));
  EXPECT_EQ(header_only["row_count"], 0);
  EXPECT_EQ(header_only["rows"], json::array());
}

TEST(CsvReaderTest, RecordsKeepTheirStartLine) {
  auto records = detail::read_csv_records("a,b\n\"x\ny\",1\nlast,2", ',');
  ASSERT_TRUE(records.ok());
  ASSERT_EQ(records->size(), 3u);
  EXPECT_EQ((*records)[1].line, 2u);
  EXPECT_EQ((*records)[2].line, 4u);
  EXPECT_TRUE((*records)[1].fields[0].quoted);
  EXPECT_EQ((*records)[1].fields[0].text, "x\ny");
}

}  // namespace
}  // namespace keel
