// End-to-end tests of `keel run`: the real executable against a scripted OpenAI-compatible mock
// server on 127.0.0.1.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/cli_runner.hpp"
#include "support/mock_llm_server.hpp"
#include "support/temp_dir.hpp"

namespace keel {
namespace {

using nlohmann::json;
using testing::CliOptions;
using testing::CliRun;
using testing::MockLlmServer;

ToolCall call(std::string name, json args, std::string id = "") {
  static int n = 0;
  if (id.empty()) id = "call_" + std::to_string(++n);
  return {id, std::move(name), args.dump()};
}

class RunE2eTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(server_.running());
    ws_.write("a.txt", "alpha\nbeta\n");
    ws_.write("keel.yaml", "retry:\n  initial_delay_ms: 10\n  max_delay_ms: 50\n");
  }
  CliRun run(std::vector<std::string> extra, const std::string& task, CliOptions opts = {}) {
    std::vector<std::string> args = {"run", "--base-url", server_.base_url(), "--model", "mock", "--workspace",
                                     ws_.path().string()};
    args.insert(args.end(), extra.begin(), extra.end());
    args.push_back(task);
    if (opts.cwd.empty()) opts.cwd = ws_.path().string();
    return testing::run_cli(KEEL_BINARY, args, opts);
  }
  // The tool messages of a recorded request body, in order.
  static std::vector<json> tool_messages(const std::string& body) {
    std::vector<json> out;
    json j = json::parse(body);
    for (const auto& m : j["messages"]) {
      if (m["role"] == "tool") out.push_back(m);
    }
    return out;
  }
  MockLlmServer server_;
  testing::TempDir ws_;
};

TEST_F(RunE2eTest, TwentyToolRoundsThenAnAnswer) {
  for (int i = 1; i <= 20; ++i) {
    ws_.write("f" + std::to_string(i) + ".txt", "file " + std::to_string(i));
    server_.push(testing::mock_tool_calls({call("fs_read", {{"path", "f" + std::to_string(i) + ".txt"}})}));
  }
  server_.push(testing::mock_text("read all twenty files"));
  CliRun r = run({"--max-rounds", "25"}, "read the files");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("read all twenty files"), std::string::npos);
  EXPECT_EQ(server_.request_count(), 21u);
  auto bodies = server_.request_bodies();
  auto last_tools = tool_messages(bodies.back());
  ASSERT_EQ(last_tools.size(), 20u);
  EXPECT_NE(last_tools[19]["content"].get<std::string>().find("file 20"), std::string::npos);
  EXPECT_EQ(r.err.find("round_limit"), std::string::npos);
}

TEST_F(RunE2eTest, RoundLimitForcesAFinalAnswerWithoutTools) {
  ws_.write("b.txt", "b");
  server_.push(testing::mock_tool_calls({call("fs_stat", {{"path", "a.txt"}})}));
  server_.push(testing::mock_tool_calls({call("fs_stat", {{"path", "b.txt"}})}));
  server_.push(testing::mock_text("stopping here"));
  CliRun r = run({"--max-rounds", "2"}, "loop forever");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("round_limit"), std::string::npos) << r.err;
  auto bodies = server_.request_bodies();
  ASSERT_EQ(bodies.size(), 3u);
  EXPECT_FALSE(json::parse(bodies[2]).contains("tools"));
  EXPECT_NE(bodies[2].find("tools are now disabled"), std::string::npos);
  EXPECT_NE(r.out.find("stopping here"), std::string::npos);
}

TEST_F(RunE2eTest, ModelThatKeepsCallingToolsAfterTheLimitFailsWithExitThree) {
  ws_.write("b.txt", "b");
  server_.push(testing::mock_tool_calls({call("fs_stat", {{"path", "a.txt"}})}));
  server_.push(testing::mock_tool_calls({call("fs_stat", {{"path", "b.txt"}})}));
  CliRun r = run({"--max-rounds", "1"}, "loop forever");
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("still asked for tools"), std::string::npos) << r.err;
  EXPECT_EQ(server_.request_count(), 2u);
}

TEST_F(RunE2eTest, BatchOfThreeWithOneTimingOutKeepsAllResultsInOrder) {
  server_.push(testing::mock_tool_calls({call("fs_read", {{"path", "a.txt"}}, "c1"), call("fs_list", {{"path", "."}}, "c2"),
                                          call("shell", {{"command", "sleep 5"}, {"timeout_ms", 300}}, "c3")}));
  server_.push(testing::mock_text("two of three worked"));
  CliRun r = run({"--yes", "--json"}, "do three things");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_LT(r.elapsed_ms, 4500);
  auto bodies = server_.request_bodies();
  ASSERT_EQ(bodies.size(), 2u);
  auto results = tool_messages(bodies[1]);
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[0]["tool_call_id"], "c1");
  EXPECT_NE(results[0]["content"].get<std::string>().find("alpha"), std::string::npos);
  EXPECT_EQ(results[1]["tool_call_id"], "c2");
  EXPECT_EQ(results[2]["tool_call_id"], "c3");
  EXPECT_NE(results[2]["content"].get<std::string>().find("timed out"), std::string::npos) << results[2];
}

TEST_F(RunE2eTest, HighRiskCallIsDeniedWithoutATerminalOrYes) {
  ws_.write("precious.txt", "keep me");
  server_.push(testing::mock_tool_calls({call("shell", {{"command", "rm precious.txt"}})}));
  server_.push(testing::mock_text("I was not allowed to delete it"));
  CliRun r = run({}, "delete precious.txt");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(std::filesystem::exists(ws_.path() / "precious.txt"));
  EXPECT_NE(r.err.find("denied"), std::string::npos) << r.err;
  auto results = tool_messages(server_.request_bodies()[1]);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_NE(results[0]["content"].get<std::string>().find("--yes"), std::string::npos);
}

TEST_F(RunE2eTest, TerminalApprovalAsksAndHonoursTheAnswer) {
  ws_.write("precious.txt", "keep me");
  server_.push(testing::mock_tool_calls({call("shell", {{"command", "rm precious.txt"}})}));
  server_.push(testing::mock_text("left it alone"));
  CliOptions no;
  no.tty_input = "n\n";
  CliRun denied = run({}, "delete precious.txt", no);
  EXPECT_EQ(denied.exit_code, 0) << denied.out;
  EXPECT_NE(denied.out.find("approve shell command=rm precious.txt"), std::string::npos) << denied.out;
  EXPECT_TRUE(std::filesystem::exists(ws_.path() / "precious.txt"));
  EXPECT_NE(server_.request_bodies()[1].find("denied by the user"), std::string::npos);

  server_.push(testing::mock_tool_calls({call("shell", {{"command", "rm precious.txt"}})}));
  server_.push(testing::mock_text("deleted"));
  CliOptions yes;
  yes.tty_input = "y\n";
  CliRun approved = run({}, "delete precious.txt", yes);
  EXPECT_EQ(approved.exit_code, 0) << approved.out;
  EXPECT_FALSE(std::filesystem::exists(ws_.path() / "precious.txt"));
}

TEST_F(RunE2eTest, RetriesThenSuccess) {
  server_.push(testing::mock_error(500, "internal hiccup"));
  server_.push(testing::mock_error(429, "slow down", {{"Retry-After", "0"}}));
  server_.push(testing::mock_drop());
  server_.push(testing::mock_text("finally"));
  CliRun r = run({"--no-stream"}, "hello");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("finally"), std::string::npos);
  EXPECT_NE(r.err.find("retrying"), std::string::npos) << r.err;
  EXPECT_EQ(server_.request_count(), 4u);
}

TEST_F(RunE2eTest, RetriesExhaustedExitFourWithTheServerMessage) {
  for (int i = 0; i < 4; ++i) server_.push(testing::mock_error(503, "model overloaded"));
  CliRun r = run({}, "hello");
  EXPECT_EQ(r.exit_code, 4) << r.err;
  EXPECT_NE(r.err.find("model overloaded"), std::string::npos) << r.err;
  EXPECT_EQ(server_.request_count(), 4u);
}

TEST_F(RunE2eTest, UnauthorizedFailsAtOnce) {
  server_.push(testing::mock_error(401, "Incorrect API key provided"));
  CliRun r = run({"--json"}, "hello");
  EXPECT_EQ(r.exit_code, 4);
  EXPECT_EQ(server_.request_count(), 1u);
  auto lines = testing::lines_of(r.out);
  ASSERT_FALSE(lines.empty());
  json last = json::parse(lines.back());
  EXPECT_EQ(last["type"], "run_failed");
  EXPECT_EQ(last["kind"], "backend");
  EXPECT_EQ(last["exit_code"], 4);
  EXPECT_NE(last["error"].get<std::string>().find("Incorrect API key"), std::string::npos);
}

TEST_F(RunE2eTest, InvalidToolArgumentsAreCorrectedOnTheNextRound) {
  server_.push(testing::mock_tool_calls({call("fs_read", {{"file", "a.txt"}})}));
  server_.push(testing::mock_tool_calls({call("fs_read", {{"path", "a.txt"}})}));
  server_.push(testing::mock_text("it says alpha"));
  CliRun r = run({}, "read a.txt");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  auto bodies = server_.request_bodies();
  ASSERT_EQ(bodies.size(), 3u);
  auto first = tool_messages(bodies[1]);
  ASSERT_EQ(first.size(), 1u);
  std::string error = first[0]["content"];
  EXPECT_NE(error.find("path"), std::string::npos) << error;
  auto second = tool_messages(bodies[2]);
  EXPECT_NE(second[1]["content"].get<std::string>().find("alpha"), std::string::npos);
}

TEST_F(RunE2eTest, PathEscapesAreRefused) {
  server_.push(testing::mock_tool_calls({call("fs_read", {{"path", "../../../../etc/passwd"}}),
                                          call("fs_read", {{"path", "/etc/passwd"}}),
                                          call("fs_write", {{"path", "../escaped.txt"}, {"content", "x"}})}));
  server_.push(testing::mock_text("refused"));
  CliRun r = run({}, "read /etc/passwd");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  auto results = tool_messages(server_.request_bodies()[1]);
  ASSERT_EQ(results.size(), 3u);
  for (const auto& m : results) {
    EXPECT_NE(m["content"].get<std::string>().find("outside the workspace"), std::string::npos) << m;
    EXPECT_EQ(m["content"].get<std::string>().find("root:"), std::string::npos);
  }
  EXPECT_FALSE(std::filesystem::exists(ws_.path().parent_path() / "escaped.txt"));
}

TEST_F(RunE2eTest, JsonEventsAreVersionedLinesEndingWithTheAnswer) {
  ModelReply calls;
  calls.tool_calls.push_back(call("fs_read", {{"path", "a.txt"}}));
  server_.push(testing::mock_stream(calls));
  ModelReply answer;
  answer.text = "The file says alpha and beta.";
  server_.push(testing::mock_stream(answer));
  CliRun r = run({"--json"}, "what does a.txt say");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  auto lines = testing::lines_of(r.out);
  ASSERT_GT(lines.size(), 5u);
  std::vector<std::string> types;
  std::string streamed;
  for (const auto& l : lines) {
    json e = json::parse(l);
    EXPECT_EQ(e["v"], 1);
    types.push_back(e["type"]);
    if (e["type"] == "model_delta") streamed += e["text"].get<std::string>();
  }
  EXPECT_EQ(types.front(), "run_started");
  EXPECT_NE(std::find(types.begin(), types.end(), "tool_call"), types.end());
  EXPECT_NE(std::find(types.begin(), types.end(), "tool_result"), types.end());
  EXPECT_EQ(streamed, "The file says alpha and beta.");
  json last = json::parse(lines.back());
  EXPECT_EQ(last["type"], "run_finished");
  EXPECT_EQ(last["answer"], "The file says alpha and beta.");
  EXPECT_EQ(last["tool_calls"], 1);
}

TEST_F(RunE2eTest, CtrlCAbortsWithExitCode130) {
  server_.push(testing::with_delay(testing::mock_text("too late"), 20000));
  CliOptions opts;
  opts.interrupt_when = [this] { return server_.request_count() > 0; };  // keel is waiting for the reply
  CliRun r = run({}, "wait", opts);
  EXPECT_EQ(r.exit_code, 130) << r.err;
  EXPECT_LT(r.elapsed_ms, 6000);
  EXPECT_NE(r.err.find("aborted"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace keel
