// End-to-end: `keel run --record` against the mock server, then `keel run --model replay:FILE`
// with the server gone gives the same answer and the same --json events.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/cli_runner.hpp"
#include "support/mock_llm_server.hpp"
#include "support/temp_dir.hpp"

namespace keel {
namespace {

using nlohmann::json;

// The --json events without what differs between two runs of the same conversation: times, ids
// and durations.
std::vector<json> stable_events(const std::string& out) {
  std::vector<json> events;
  for (const std::string& line : testing::lines_of(out)) {
    json j = json::parse(line, nullptr, false);
    if (j.is_discarded()) continue;
    for (const char* key : {"t_ms", "run_id", "session_id", "duration_ms"}) j.erase(key);
    events.push_back(std::move(j));
  }
  return events;
}

TEST(CassetteCliTest, RecordedRunReplaysWithoutTheServer) {
  testing::TempDir ws;
  ws.write("a.txt", "alpha\nbeta\n");
  std::string cassette = (ws.path() / "c.jsonl").string();
  testing::CliOptions opts;
  opts.cwd = ws.path().string();
  testing::CliRun recorded;
  {
    testing::MockLlmServer server;
    ASSERT_TRUE(server.running());
    server.push(testing::mock_tool_calls({{"call_1", "fs_read", R"({"path":"a.txt"})"}}));
    ModelReply answer;
    answer.text = "a.txt says alpha and beta";
    server.push(testing::mock_stream(answer));
    recorded = testing::run_cli(KEEL_BINARY,
                                {"run", "--ephemeral", "--json", "--record", cassette, "--base-url", server.base_url(),
                                 "--model", "mock", "--workspace", ws.path().string(), "read a.txt"},
                                opts);
    ASSERT_EQ(recorded.exit_code, 0) << recorded.err;
    EXPECT_EQ(server.request_count(), 2u);
  }
  testing::CliRun replayed = testing::run_cli(
      KEEL_BINARY,
      {"run", "--ephemeral", "--json", "--model", "replay:" + cassette, "--workspace", ws.path().string(), "read a.txt"},
      opts);
  ASSERT_EQ(replayed.exit_code, 0) << replayed.err;
  std::vector<json> a = stable_events(recorded.out);
  std::vector<json> b = stable_events(replayed.out);
  ASSERT_FALSE(a.empty());
  EXPECT_EQ(a.back()["type"], "run_finished");
  EXPECT_EQ(a.back()["answer"], "a.txt says alpha and beta");
  ASSERT_EQ(a.size(), b.size()) << recorded.out << "\n---\n" << replayed.out;
  for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i], b[i]) << "event " << i;

  // A different task stops at the first request, naming the difference.
  testing::CliRun diverged = testing::run_cli(
      KEEL_BINARY,
      {"run", "--ephemeral", "--model", "replay:" + cassette, "--workspace", ws.path().string(), "read b.txt"}, opts);
  EXPECT_NE(diverged.exit_code, 0);
  EXPECT_NE(diverged.err.find(R"(replay: request 1 differs at messages[1].content: recorded "read a.txt", got "read b.txt")"),
            std::string::npos)
      << diverged.err;
}

}  // namespace
}  // namespace keel
