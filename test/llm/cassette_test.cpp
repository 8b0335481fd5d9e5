// Record/replay cassettes (keel/cassette.hpp): a run recorded against the mock server replays
// with the server gone, with the same outcome and the same hook events; divergence, exhaustion and
// broken files fail with exact messages.
#include "keel/cassette.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <sstream>

#include "llm/client_test_support.hpp"
#include "keel/agent.hpp"
#include "keel/openai_client.hpp"
#include "keel/tool_registry.hpp"
#include "support/mock_llm_server.hpp"
#include "support/temp_dir.hpp"

namespace keel {
namespace {

using testing::MockLlmServer;

std::unique_ptr<Tool> cassette_echo_tool() {
  ToolSpec s;
  s.name = "echo";
  s.description = "echoes text";
  s.parameters_schema = R"({"type":"object","properties":{"text":{"type":"string"}},"required":["text"]})";
  s.read_only = true;
  return make_tool(s, [](const nlohmann::json& args, const ToolContext&) -> Result<std::string> {
    std::string out = "echo: ";
    out.append(args["text"].get<std::string>());
    return out;
  });
}

// Every hook a backend influences, as text, in order.
struct EventLog : Hooks {
  std::vector<std::string> events;
  void on_model_delta(RunContext&, std::string_view t) override { add("text", std::string(t)); }
  void on_reasoning_delta(RunContext&, std::string_view t) override { add("reasoning", std::string(t)); }
  void on_model_retry(RunContext&, int attempt, const Status& why, int64_t delay_ms) override {
    add("retry", join({std::to_string(attempt), why.to_string(), std::to_string(delay_ms)}, " "));
  }
  void on_model_reply(RunContext&, const ModelReply& r) override {
    add("reply", join({r.text, r.reasoning, r.finish_reason, std::to_string(r.tool_calls.size()),
                       std::to_string(r.usage.prompt_tokens)},
                      "|"));
  }
  void on_tool_call(RunContext&, const ToolCall& c) override { add("call", join({c.id, c.name, c.arguments}, " ")); }
  void on_tool_result(RunContext&, const ToolCall&, const ToolResult& r) override { add("result", r.content); }
  void on_run_finished(RunContext&, const RunOutcome& o) override { add("finished", o.answer); }
  void on_run_failed(RunContext&, const RunOutcome& o) override { add("failed", o.error); }
  void add(const std::string& kind, const std::string& what) { events.push_back(join({kind, what}, ":")); }
  static std::string join(std::initializer_list<std::string> parts, const char* sep) {
    std::string out;
    for (const std::string& p : parts) {
      if (!out.empty() || &p != parts.begin()) out.append(sep);
      out.append(p);
    }
    return out;
  }
};

struct RunResult {
  RunOutcome outcome;
  std::vector<std::string> events;
};

class CassetteTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(server_->running());
    ASSERT_TRUE(tools_.add(cassette_echo_tool()).ok());
    path_ = (dir_.path() / "c.jsonl").string();
  }

  RunResult run_on(LlmClient& llm, const std::string& task, bool stream) {
    AgentOptions o;
    o.workspace = dir_.path().string();
    o.stream = stream;
    Agent agent(llm, tools_, o);
    auto log = std::make_shared<EventLog>();
    agent.add_hooks(log);
    Result<RunOutcome> out = agent.run(task);
    EXPECT_TRUE(out.ok()) << out.status().to_string();
    return {out.ok() ? *out : RunOutcome{}, log->events};
  }

  // Records `task` against the mock server, then stops the server.
  RunResult record(const std::string& task, bool stream) {
    auto rec = make_recording_client(make_openai_client(testing::fast_options(*server_)), path_);
    EXPECT_TRUE(rec.ok()) << rec.status().to_string();
    RunResult r = run_on(**rec, task, stream);
    server_.reset();
    return r;
  }

  RunResult replay(const std::string& task, bool stream) {
    auto client = make_replay_client(path_);
    EXPECT_TRUE(client.ok()) << client.status().to_string();
    return run_on(**client, task, stream);
  }

  static void expect_same(const RunResult& a, const RunResult& b) {
    EXPECT_EQ(a.outcome.ok, b.outcome.ok);
    EXPECT_EQ(a.outcome.answer, b.outcome.answer);
    EXPECT_EQ(a.outcome.error, b.outcome.error);
    EXPECT_EQ(a.outcome.rounds, b.outcome.rounds);
    EXPECT_EQ(a.outcome.model_calls, b.outcome.model_calls);
    EXPECT_EQ(a.outcome.tool_calls, b.outcome.tool_calls);
    EXPECT_EQ(a.outcome.usage.prompt_tokens, b.outcome.usage.prompt_tokens);
    EXPECT_EQ(a.outcome.usage.completion_tokens, b.outcome.usage.completion_tokens);
    EXPECT_EQ(a.events, b.events);
  }

  static ModelReply reply_with(std::string text, std::string reasoning = {}) {
    ModelReply r;
    r.text = std::move(text);
    r.reasoning = std::move(reasoning);
    return r;
  }

  std::unique_ptr<MockLlmServer> server_ = std::make_unique<MockLlmServer>();
  testing::TempDir dir_;
  ToolRegistry tools_;
  std::string path_;
};

TEST_F(CassetteTest, StreamedToolRoundReplaysIdenticallyWithTheServerGone) {
  ModelReply first = reply_with("", "I should echo.");
  first.tool_calls.push_back({"call_a", "echo", R"({"text":"hi"})"});
  server_->push(testing::mock_stream(first));
  server_->push(testing::mock_stream(reply_with("The tool said: echo: hi", "done thinking")));
  RunResult recorded = record("echo hi", true);
  ASSERT_TRUE(recorded.outcome.ok) << recorded.outcome.error;
  EXPECT_EQ(recorded.outcome.answer, "The tool said: echo: hi");
  EXPECT_NE(std::find(recorded.events.begin(), recorded.events.end(), "result:echo: hi"), recorded.events.end());
  EXPECT_GT(std::count_if(recorded.events.begin(), recorded.events.end(),
                          [](const std::string& e) { return e.rfind("text:", 0) == 0; }),
            2);

  RunResult replayed = replay("echo hi", true);
  expect_same(recorded, replayed);

  // Header, then one line per exchange.
  std::vector<std::string> lines;
  std::istringstream in(testing::read_file(path_));
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  ASSERT_EQ(lines.size(), 3u);
  nlohmann::json header = nlohmann::json::parse(lines[0]);
  EXPECT_EQ(header["cassette"], 1);
  EXPECT_EQ(header["backend"].get<std::string>().find("openai-compatible"), 0u);
  nlohmann::json second = nlohmann::json::parse(lines[2]);
  EXPECT_EQ(second["request"]["messages"][2]["tool_calls"][0]["id"], "call_a");
  EXPECT_EQ(second["request"]["messages"][3]["role"], "tool");
  EXPECT_EQ(second["request"]["messages"][3]["tool_call_id"], "call_a");
  EXPECT_EQ(second["request"]["tools"][0]["name"], "echo");
  EXPECT_EQ(second["request"]["stream"], true);
  EXPECT_EQ(second["reply"]["text"], "The tool said: echo: hi");
}

TEST_F(CassetteTest, WholeRepliesAndARetryReplayIdentically) {
  server_->push(testing::mock_error(500, "overloaded"));
  server_->push(testing::mock_tool_calls({{"call_b", "echo", R"({"text":"x"})"}}));
  server_->push(testing::mock_text("echoed x"));
  RunResult recorded = record("echo x", false);
  ASSERT_TRUE(recorded.outcome.ok) << recorded.outcome.error;
  ASSERT_FALSE(recorded.events.empty());
  EXPECT_EQ(recorded.events[0].rfind("retry:1 unavailable: ", 0), 0u) << recorded.events[0];
  RunResult replayed = replay("echo x", false);
  expect_same(recorded, replayed);
}

TEST_F(CassetteTest, AnErrorReplaysAsTheSameError) {
  server_->push(testing::mock_error(400, "context too long"));
  RunResult recorded = record("echo y", true);
  EXPECT_FALSE(recorded.outcome.ok);
  EXPECT_NE(recorded.outcome.error.find("context too long"), std::string::npos) << recorded.outcome.error;
  RunResult replayed = replay("echo y", true);
  expect_same(recorded, replayed);
}

TEST_F(CassetteTest, AChangedTaskNamesTheFirstDifference) {
  server_->push(testing::mock_text("here they are"));
  RunResult recorded = record("list files", true);
  ASSERT_TRUE(recorded.outcome.ok);
  RunResult replayed = replay("list the files", true);
  EXPECT_FALSE(replayed.outcome.ok);
  EXPECT_NE(replayed.outcome.error.find(
                R"(replay: request 1 differs at messages[1].content: recorded "list files", got "list the files")"),
            std::string::npos)
      << replayed.outcome.error;
}

TEST_F(CassetteTest, DirectCallsDivergeAndRunOutExactly) {
  server_->push(testing::mock_text("hello"));
  {
    auto rec = make_recording_client(make_openai_client(testing::fast_options(*server_)), path_);
    ASSERT_TRUE(rec.ok());
    testing::Conversation conv;
    CallOptions opts;
    opts.stream = false;
    ASSERT_TRUE((*rec)->complete(conv.request(), opts).ok());
  }
  server_.reset();
  auto replay_client = make_replay_client(path_);
  ASSERT_TRUE(replay_client.ok());
  testing::Conversation conv;
  CallOptions opts;
  opts.stream = true;
  Result<ModelReply> r = (*replay_client)->complete(conv.request(), opts);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kFailedPrecondition);
  EXPECT_EQ(r.status().message(), "replay: request 1 differs at stream: recorded false, got true");
  opts.stream = false;
  r = (*replay_client)->complete(conv.request(), opts);
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ(r->text, "hello");
  r = (*replay_client)->complete(conv.request(), opts);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kFailedPrecondition);
  std::string exhausted = "replay: the run made request 2 but ";
  exhausted.append(path_).append(" holds only 1");
  EXPECT_EQ(r.status().message(), exhausted);
  EXPECT_NE((*replay_client)->describe().find("openai-compatible"), std::string::npos);
}

TEST_F(CassetteTest, BrokenFilesNameFileAndLine) {
  auto load_error = [&](const std::string& text) {
    dir_.write("c.jsonl", text);
    auto r = make_replay_client(path_);
    return r.ok() ? std::string("loaded") : r.status().message();
  };
  const std::string header = R"({"cassette":1,"backend":"x"})";
  EXPECT_EQ(load_error(header + "\n{\"request\":{},\"reply\":{}}\n{not json\n"), path_ + ":3: not a JSON object");
  EXPECT_EQ(load_error(header + "\n{\"reply\":{}}\n"), path_ + ":2: missing the \"request\" object");
  EXPECT_EQ(load_error(header + "\n{\"request\":{}}\n"), path_ + ":2: has neither \"reply\" nor \"error\"");
  EXPECT_EQ(load_error(header + "\n{\"request\":{},\"error\":{\"code\":\"nope\",\"message\":\"m\"}}\n"),
            path_ + ":2: unknown error code \"nope\"");
  EXPECT_EQ(load_error("{\"request\":{}}\n"), path_ + ":1: not a keel cassette: the first line must be {\"cassette\":1,...}");
  EXPECT_EQ(load_error(""), path_ + ": empty file, not a keel cassette");
  EXPECT_EQ(load_error(header + "\n{\"request\":{},\"reply\":{}}\n"), "loaded");
  auto missing = make_replay_client((dir_.path() / "nope.jsonl").string());
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), ErrorCode::kInvalidArgument);
}

TEST_F(CassetteTest, RecordingIntoAMissingFolderFailsClearly) {
  auto rec = make_recording_client(make_openai_client(testing::fast_options(*server_)),
                                   (dir_.path() / "no/such/dir/c.jsonl").string());
  ASSERT_FALSE(rec.ok());
  EXPECT_EQ(rec.status().code(), ErrorCode::kUnavailable);
  EXPECT_NE(rec.status().message().find("cannot write the cassette"), std::string::npos);
}

}  // namespace
}  // namespace keel
