// `keel parse`: the universal tool-call parser from the command line.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/cli_runner.hpp"
#include "support/temp_dir.hpp"

namespace keel {
namespace {

using nlohmann::json;

class ParseCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_.write("tools.json", R"([{"type": "function", "function": {"name": "get_weather", "parameters":
        {"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}}}}}])");
  }
  testing::CliRun parse(std::vector<std::string> args) {
    testing::CliOptions o;
    o.cwd = dir_.path().string();
    std::vector<std::string> all = {"parse"};
    all.insert(all.end(), args.begin(), args.end());
    return testing::run_cli(KEEL_BINARY, all, o);
  }
  testing::TempDir dir_;
};

TEST_F(ParseCliTest, PrintsTheCallsItFound) {
  dir_.write("out.txt", "<think>weather?</think>Checking.\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}");
  auto r = parse({"--tools", "tools.json", "out.txt"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = json::parse(r.out);
  EXPECT_EQ(j["format"], "json");
  EXPECT_EQ(j["content"], "Checking.");
  EXPECT_EQ(j["reasoning"], "weather?");
  EXPECT_EQ(j["tool_calls"], json::parse(R"([{"name": "get_weather", "arguments": {"city": "Paris"}}])"));
  EXPECT_TRUE(j["error"].is_null());
}

TEST_F(ParseCliTest, BrokenOutputIsAnErrorWithExitThree) {
  dir_.write("out.txt", "{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Pa");
  auto r = parse({"--tools", "tools.json", "out.txt"});
  EXPECT_EQ(r.exit_code, 3);
  json j = json::parse(r.out);
  ASSERT_TRUE(j["error"].is_string());
  EXPECT_NE(j["error"].get<std::string>().find("cut off"), std::string::npos);
  EXPECT_TRUE(j["tool_calls"].empty());
}

TEST_F(ParseCliTest, ListsFormatsAndRejectsUnknownOnes) {
  auto list = parse({"--list-formats"});
  EXPECT_EQ(list.exit_code, 0);
  EXPECT_NE(list.out.find("json"), std::string::npos);
  auto bad = parse({"--format", "klingon", "out.txt"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("unknown tool-call format 'klingon'"), std::string::npos) << bad.err;
  auto missing = parse({"--tools", "nope.json", "x"});
  EXPECT_EQ(missing.exit_code, 2);
}

}  // namespace
}  // namespace keel
