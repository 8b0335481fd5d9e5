// The result cache end to end: a cacheable tool (parse_json) called with the same arguments in a
// second `keel run` of the same workspace is answered from the cache, and the events say so.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/cli_runner.hpp"
#include "support/mock_llm_server.hpp"
#include "support/temp_dir.hpp"

namespace keel {
namespace {

using nlohmann::json;

class ResultCacheE2e : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(server_.running()); }
  testing::CliRun run(std::vector<std::string> extra) {
    server_.push(testing::mock_tool_calls(
        {ToolCall{"c1", "parse_json", json{{"text", R"({"items":[10,20,30]})"}, {"path", "$.items[1]"}}.dump()}}));
    server_.push(testing::mock_text("the second item is 20"));
    std::vector<std::string> args = {"run", "--base-url", server_.base_url(), "--model", "mock", "--no-stream"};
    args.insert(args.end(), extra.begin(), extra.end());
    args.push_back("what is the second item?");
    testing::CliOptions opts;
    opts.env = {{"KEEL_HOME", home_.path().string()}};
    opts.cwd = ws_.path().string();
    return testing::run_cli(KEEL_BINARY, args, opts);
  }
  static json tool_result_event(const std::string& out) {
    for (const auto& line : testing::lines_of(out)) {
      json j = json::parse(line, nullptr, false);
      if (j.is_object() && j.value("type", "") == "tool_result") return j;
    }
    return json();
  }
  testing::MockLlmServer server_;
  testing::TempDir ws_;
  testing::TempDir home_;
};

TEST_F(ResultCacheE2e, TheSecondRunIsAnsweredFromTheCacheAndMarked) {
  testing::CliRun first = run({"--json"});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  json miss = tool_result_event(first.out);
  ASSERT_TRUE(miss.is_object()) << first.out;
  EXPECT_EQ(miss["status"], "ok");
  EXPECT_EQ(miss["cached"], false);
  EXPECT_EQ(miss["content"], "20");

  testing::CliRun second = run({"--json"});
  ASSERT_EQ(second.exit_code, 0) << second.err;
  json hit = tool_result_event(second.out);
  ASSERT_TRUE(hit.is_object()) << second.out;
  EXPECT_EQ(hit["cached"], true);
  EXPECT_EQ(hit["content"], "20");
  EXPECT_EQ(hit["duration_ms"], 0);
  // The model gets the same result either way.
  json body = json::parse(server_.requests().at(3).body);
  std::vector<json> tool_messages;
  for (const auto& m : body["messages"]) {
    if (m["role"] == "tool") tool_messages.push_back(m);
  }
  ASSERT_EQ(tool_messages.size(), 1u) << body;
  EXPECT_EQ(tool_messages[0]["content"], "20");

  testing::CliRun text = run({});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.err.find("parse_json"), std::string::npos) << text.err;
  EXPECT_NE(text.err.find("(cached)"), std::string::npos) << text.err;
}

TEST_F(ResultCacheE2e, AnotherWorkspaceDoesNotShareTheCache) {
  ASSERT_EQ(run({"--json"}).exit_code, 0);
  testing::TempDir other;
  server_.push(testing::mock_tool_calls(
      {ToolCall{"c1", "parse_json", json{{"text", R"({"items":[10,20,30]})"}, {"path", "$.items[1]"}}.dump()}}));
  server_.push(testing::mock_text("20"));
  testing::CliOptions opts;
  opts.env = {{"KEEL_HOME", home_.path().string()}};
  opts.cwd = other.path().string();
  testing::CliRun r = testing::run_cli(
      KEEL_BINARY, {"run", "--base-url", server_.base_url(), "--model", "mock", "--json", "second item?"}, opts);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(tool_result_event(r.out)["cached"], false);
}

}  // namespace
}  // namespace keel
