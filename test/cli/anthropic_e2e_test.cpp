// End-to-end test of `keel run --model anthropic/...`: the real executable against the mock server
// speaking the Messages API (streamed), one tool round and then the answer.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "llm/anthropic_test_support.hpp"
#include "support/cli_runner.hpp"
#include "support/mock_llm_server.hpp"
#include "support/temp_dir.hpp"

namespace keel {
namespace {

using nlohmann::json;

TEST(AnthropicE2eTest, OneToolRoundThenTheAnswer) {
  testing::MockLlmServer server;
  ASSERT_TRUE(server.running());
  testing::TempDir ws;
  ws.write("a.txt", "alpha\nbeta\n");
  ws.write("keel.yaml", "retry:\n  initial_delay_ms: 10\n  max_delay_ms: 50\n");
  server.push(testing::anthropic_tool_stream("toolu_1", "fs_read", {"{\"path\":", " \"a.txt\"}"}));
  server.push(testing::anthropic_text_stream({"The file ", "says alpha."}));

  const std::string base = "http://127.0.0.1:" + std::to_string(server.port());
  testing::CliOptions opts;
  opts.cwd = ws.path().string();
  opts.env["ANTHROPIC_API_KEY"] = "sk-ant-e2e";
  testing::CliRun r = testing::run_cli(KEEL_BINARY,
                                       {"run", "--model", "anthropic/claude-test", "--base-url", base, "--workspace",
                                        ws.path().string(), "--json", "read a.txt"},
                                       opts);
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  std::string answer;
  for (const std::string& line : testing::lines_of(r.out)) {
    json event = json::parse(line, nullptr, false);
    if (event.is_object() && event.contains("answer")) answer = event["answer"].get<std::string>();
  }
  EXPECT_EQ(answer, "The file says alpha.") << r.out;

  const std::vector<testing::MockRequest> requests = server.requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[0].path, "/v1/messages");
  EXPECT_EQ(requests[0].headers.at("x-api-key"), "sk-ant-e2e");
  const json first = json::parse(requests[0].body);
  EXPECT_EQ(first["model"], "claude-test");
  EXPECT_TRUE(first["system"].is_string());
  const json second = json::parse(requests[1].body);
  const json& messages = second["messages"];
  ASSERT_GE(messages.size(), 3u);
  const json& assistant = messages[messages.size() - 2];
  EXPECT_EQ(assistant["role"], "assistant");
  EXPECT_EQ(assistant["content"].back(),
            json::parse(R"({"type":"tool_use","id":"toolu_1","name":"fs_read","input":{"path":"a.txt"}})"));
  const json& results = messages.back();
  EXPECT_EQ(results["role"], "user");
  const json& result = results["content"][0];
  EXPECT_EQ(result["type"], "tool_result");
  EXPECT_EQ(result["tool_use_id"], "toolu_1");
  EXPECT_FALSE(result.contains("is_error"));
  EXPECT_NE(result["content"].get<std::string>().find("alpha"), std::string::npos) << result;
}

}  // namespace
}  // namespace keel
