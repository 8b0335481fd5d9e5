// The lane cascade (keel/lanes.hpp): which errors fall through to the next lane, rate limits,
// timeout floors, load failures, how attempts are reported, and an agent run that survives a dead
// first lane.
#include "keel/lanes.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <stop_token>
#include <thread>

#include "keel/agent.hpp"
#include "keel/openai_client.hpp"
#include "keel/rules_model.hpp"
#include "keel/tool_registry.hpp"
#include "llm/client_test_support.hpp"
#include "support/mock_llm_server.hpp"
#include "support/temp_dir.hpp"

namespace keel {
namespace {

using testing::MockLlmServer;

struct Attempt {
  int attempt;
  ErrorCode code;
  std::string message;
  int64_t delay_ms;
};

// A lane over an OpenAI-compatible server at `base_url`, without retries (fast, one request).
LaneSpec http_lane(std::string label, std::string base_url, int64_t request_timeout_ms = 5000) {
  LaneSpec lane;
  lane.label = std::move(label);
  lane.create = [base_url, request_timeout_ms]() -> Result<std::unique_ptr<LlmClient>> {
    OpenAiOptions o;
    o.base_url = base_url;
    o.model = "mock-model";
    o.connect_timeout_ms = 2000;
    o.request_timeout_ms = request_timeout_ms;
    o.stream_idle_timeout_ms = 2000;
    o.retry.max_attempts = 1;
    return make_openai_client(std::move(o));
  };
  return lane;
}

class LanesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(first_.running());
    ASSERT_TRUE(second_.running());
  }
  std::unique_ptr<LlmClient> cascade(std::vector<LaneSpec> lanes) {
    auto c = make_lane_cascade(std::move(lanes));
    EXPECT_TRUE(c.ok()) << c.status().to_string();
    return c.ok() ? std::move(*c) : nullptr;
  }
  Result<ModelReply> call(LlmClient& llm, int64_t timeout_ms = 0, std::stop_token stop = {}) {
    CallOptions o;
    o.stream = false;
    o.timeout_ms = timeout_ms;
    o.stop = stop;
    o.on_retry = [this](int attempt, const Status& why, int64_t delay) {
      attempts_.push_back({attempt, why.code(), why.message(), delay});
    };
    return llm.complete(conv_.request(), o);
  }
  MockLlmServer first_;
  MockLlmServer second_;
  testing::Conversation conv_;
  std::vector<Attempt> attempts_;
};

TEST_F(LanesTest, AServerErrorFallsThroughAndIsReported) {
  first_.push(testing::mock_error(500, "boom"));
  second_.push(testing::mock_text("from lane two"));
  auto llm = cascade({http_lane("a", first_.base_url()), http_lane("b", second_.base_url())});
  Result<ModelReply> r = call(*llm);
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ(r->text, "from lane two");
  EXPECT_EQ(first_.request_count(), 1u);
  ASSERT_EQ(attempts_.size(), 1u);
  EXPECT_EQ(attempts_[0].attempt, 1);
  EXPECT_EQ(attempts_[0].code, ErrorCode::kUnavailable);
  EXPECT_EQ(attempts_[0].delay_ms, 0);
  EXPECT_EQ(attempts_[0].message.rfind("lane 1 (a) failed: ", 0), 0u) << attempts_[0].message;
  EXPECT_NE(attempts_[0].message.find("boom"), std::string::npos) << attempts_[0].message;
  const std::string tail = "; trying lane 2 (b)";
  EXPECT_EQ(attempts_[0].message.substr(attempts_[0].message.size() - tail.size()), tail);
  EXPECT_EQ(llm->describe(), "lanes: lane 1 (a) > lane 2 (b)");
}

TEST_F(LanesTest, ConnectionRefusedFallsThrough) {
  std::string dead_url;
  {
    MockLlmServer gone;
    dead_url = gone.base_url();
  }
  second_.push(testing::mock_text("still here"));
  auto llm = cascade({http_lane("dead", dead_url), http_lane("b", second_.base_url())});
  Result<ModelReply> r = call(*llm);
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ(r->text, "still here");
  ASSERT_EQ(attempts_.size(), 1u);
  EXPECT_EQ(attempts_[0].code, ErrorCode::kUnavailable);
}

TEST_F(LanesTest, ATimeoutFallsThrough) {
  first_.push(testing::with_delay(testing::mock_text("too late"), 3000));
  second_.push(testing::mock_text("in time"));
  auto llm = cascade({http_lane("slow", first_.base_url(), 300), http_lane("b", second_.base_url())});
  Result<ModelReply> r = call(*llm);
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ(r->text, "in time");
  ASSERT_EQ(attempts_.size(), 1u);
  EXPECT_EQ(attempts_[0].code, ErrorCode::kDeadlineExceeded);
}

TEST_F(LanesTest, CancelAndInvalidArgumentDoNotFallThrough) {
  first_.push(testing::with_delay(testing::mock_text("never"), 3000));
  auto llm = cascade({http_lane("a", first_.base_url()), http_lane("b", second_.base_url())});
  std::stop_source stop;
  std::thread canceller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    stop.request_stop();
  });
  Result<ModelReply> r = call(*llm, 0, stop.get_token());
  canceller.join();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kCancelled);
  EXPECT_EQ(second_.request_count(), 0u);

  first_.push(testing::mock_error(400, "bad request"));
  second_.push(testing::mock_text("unused"));
  r = call(*llm);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(second_.request_count(), 0u);
  EXPECT_TRUE(attempts_.empty());
}

TEST_F(LanesTest, ALaneOverItsRateLimitIsSkipped) {
  first_.push(testing::mock_text("one"));
  first_.push(testing::mock_text("unused"));
  second_.push(testing::mock_text("two"));
  LaneSpec limited = http_lane("a", first_.base_url());
  limited.rate_limit_per_minute = 1;
  auto llm = cascade({limited, http_lane("b", second_.base_url())});
  Result<ModelReply> r = call(*llm);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->text, "one");
  r = call(*llm);
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ(r->text, "two");
  EXPECT_EQ(first_.request_count(), 1u);
  ASSERT_EQ(attempts_.size(), 1u);
  EXPECT_EQ(attempts_[0].code, ErrorCode::kResourceExhausted);
  EXPECT_EQ(attempts_[0].message,
            "lane 1 (a) skipped: over its rate limit of 1 calls per minute; trying lane 2 (b)");
}

TEST_F(LanesTest, TheTimeoutFloorRaisesAShortCallTimeout) {
  first_.push(testing::with_delay(testing::mock_text("slow but fine"), 600));
  LaneSpec floored = http_lane("local", first_.base_url());
  floored.timeout_floor_ms = 5000;
  auto llm = cascade({floored, http_lane("b", second_.base_url())});
  Result<ModelReply> r = call(*llm, 200);
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ(r->text, "slow but fine");
  EXPECT_TRUE(attempts_.empty());

  // Without a floor the same call times out on lane 1 and goes to lane 2.
  first_.push(testing::with_delay(testing::mock_text("too slow"), 600));
  second_.push(testing::mock_text("lane two"));
  auto plain = cascade({http_lane("local", first_.base_url()), http_lane("b", second_.base_url())});
  r = call(*plain, 200);
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ(r->text, "lane two");
  ASSERT_EQ(attempts_.size(), 1u);
  EXPECT_EQ(attempts_[0].code, ErrorCode::kDeadlineExceeded);
}

TEST_F(LanesTest, ALoadFailureFallsThroughOnEveryCall) {
  int creations = 0;
  LaneSpec broken;
  broken.label = "llama/missing.gguf";
  broken.create = [&creations]() -> Result<std::unique_ptr<LlmClient>> {
    ++creations;
    return Status::NotFound("no model file missing.gguf");
  };
  second_.push(testing::mock_text("a"));
  second_.push(testing::mock_text("b"));
  auto llm = cascade({broken, http_lane("b", second_.base_url())});
  ASSERT_TRUE(call(*llm).ok());
  ASSERT_TRUE(call(*llm).ok());
  EXPECT_EQ(creations, 1);
  ASSERT_EQ(attempts_.size(), 2u);
  EXPECT_EQ(attempts_[1].message,
            "lane 1 (llama/missing.gguf) load failure: no model file missing.gguf; trying lane 2 (b)");
  EXPECT_EQ(attempts_[1].attempt, 1);
}

TEST_F(LanesTest, WhenEveryLaneFailsTheLastErrorListsThemAll) {
  first_.push(testing::mock_error(500, "first down"));
  second_.push(testing::mock_error(401, "bad key"));
  auto llm = cascade({http_lane("a", first_.base_url()), http_lane("b", second_.base_url())});
  Result<ModelReply> r = call(*llm);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kUnauthenticated);
  const std::string m = r.status().message();
  EXPECT_EQ(m.rfind("every lane failed: lane 1 (a): ", 0), 0u) << m;
  EXPECT_NE(m.find("first down"), std::string::npos) << m;
  EXPECT_NE(m.find("; lane 2 (b): "), std::string::npos) << m;
  EXPECT_NE(m.find("bad key"), std::string::npos) << m;
  ASSERT_EQ(attempts_.size(), 2u);
  EXPECT_EQ(attempts_[1].attempt, 2);
  EXPECT_NE(attempts_[1].message.find("; no lane left"), std::string::npos);
}

TEST_F(LanesTest, BadSpecsAreRejected) {
  EXPECT_EQ(make_lane_cascade({}).status().message(), "a lane cascade needs at least one lane");
  LaneSpec no_create;
  EXPECT_EQ(make_lane_cascade({no_create}).status().message(), "lane 1 has no create function");
}

// Records model_retry events and the answer.
struct RetryLog : Hooks {
  std::vector<std::string> retries;
  void on_model_retry(RunContext&, int, const Status& why, int64_t) override { retries.push_back(why.message()); }
};

TEST_F(LanesTest, AnAgentFallsBackFromADeadLaneToTheRulesModel) {
  std::string dead_url;
  {
    MockLlmServer gone;
    dead_url = gone.base_url();
  }
  LaneSpec rules;
  rules.label = "rules";
  rules.create = []() -> Result<std::unique_ptr<LlmClient>> { return make_rules_model(); };
  auto llm = cascade({http_lane("openai/gpt-4o-mini", dead_url), rules});
  testing::TempDir dir;
  ToolRegistry tools;
  AgentOptions o;
  o.workspace = dir.path().string();
  Agent agent(*llm, tools, o);
  auto log = std::make_shared<RetryLog>();
  agent.add_hooks(log);
  Result<RunOutcome> out = agent.run("hello");
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  EXPECT_TRUE(out->ok) << out->error;
  EXPECT_FALSE(out->answer.empty());
  ASSERT_FALSE(log->retries.empty());
  EXPECT_EQ(log->retries[0].rfind("lane 1 (openai/gpt-4o-mini) failed: ", 0), 0u) << log->retries[0];
  const std::string tail = "; trying lane 2 (rules)";
  EXPECT_EQ(log->retries[0].substr(log->retries[0].size() - tail.size()), tail);
}

}  // namespace
}  // namespace keel
