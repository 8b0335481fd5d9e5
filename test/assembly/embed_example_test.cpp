// examples/embed runs a real multi-round loop: the model (a scripted OpenAI-compatible mock) calls
// the example's own word_count tool, gets its result, and answers.
#include <gtest/gtest.h>

#include <string>

#include "support/cli_runner.hpp"
#include "support/mock_llm_server.hpp"
#include "support/temp_dir.hpp"

namespace keel {
namespace {

TEST(EmbedExampleTest, TheModelCallsTheCustomToolAndAnswersWithItsResult) {
  testing::MockLlmServer server;
  server.push(testing::mock_tool_calls({ToolCall{"call_1", "word_count", R"({"text":"the quick brown fox"})"}}));
  server.push(testing::mock_text("The text has 4 words."));
  testing::TempDir cwd;
  testing::CliOptions options;
  options.cwd = cwd.path().string();
  testing::CliRun run = testing::run_cli(
      KEEL_EMBED_EXAMPLE, {"--base-url", server.base_url(), "--model", "mock", "count the words in: the quick brown fox"},
      options);
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_EQ(run.out, "The text has 4 words.\n");
  EXPECT_NE(run.err.find("calling word_count"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("word_count -> ok: 4 words"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("finished in 2 round(s), 1 tool call(s)"), std::string::npos) << run.err;
  // The second model call carried the tool's result.
  std::vector<testing::MockRequest> requests = server.requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_NE(requests[1].body.find("4 words"), std::string::npos) << requests[1].body;
  EXPECT_NE(requests[0].body.find("word_count"), std::string::npos) << "the tool was offered to the model";
}

TEST(EmbedExampleTest, ABadToolArgumentReachesTheModelAsAToolError) {
  testing::MockLlmServer server;
  server.push(testing::mock_tool_calls({ToolCall{"call_1", "word_count", R"({"text":"   "})"}}));
  server.push(testing::mock_text("There are no words."));
  testing::TempDir cwd;
  testing::CliOptions options;
  options.cwd = cwd.path().string();
  testing::CliRun run =
      testing::run_cli(KEEL_EMBED_EXAMPLE, {"--base-url", server.base_url(), "--model", "mock", "count: (blank)"}, options);
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  std::vector<testing::MockRequest> requests = server.requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_NE(requests[1].body.find("the text has no words"), std::string::npos) << requests[1].body;
}

}  // namespace
}  // namespace keel
