// An MCP server's sampling request served by keel's backend under the approval policy: the
// policy's modes and patterns, a person's allow and deny, nobody to ask, the request's checks
// (text only, no tools, maxTokens) and the reply's shape (MCP 2025-11-25 CreateMessageResult).
// The requests are shaped like the reference server-everything's trigger-sampling-request tool
// and the conformance suite's input-required sampling fixture ("What is the capital of France?").
#include "assembly/mcp_sampling.hpp"

#include <gtest/gtest.h>

#include <deque>
#include <mutex>
#include <thread>

namespace keel::assembly {
namespace {

using nlohmann::json;

// A model that answers with a fixed reply and keeps what it was asked.
class SamplingModel final : public LlmClient {
 public:
  explicit SamplingModel(Result<ModelReply> reply) : reply_(std::move(reply)) {}
  Result<ModelReply> complete(const ModelRequest& request, const CallOptions& options) override {
    std::lock_guard lock(mu_);
    asked.emplace_back();
    request.for_each_message([this](const Message& m) { asked.back().messages.push_back(m); });
    asked.back().sampling = request.sampling;
    asked.back().tools_enabled = request.tools_enabled;
    asked.back().stream = options.stream;
    return reply_;
  }
  std::string describe() const override { return "sampling-model"; }

  struct Asked {
    std::vector<Message> messages;
    SamplingParams sampling;
    bool tools_enabled = true;
    bool stream = true;
  };
  std::vector<Asked> asked;

 private:
  std::mutex mu_;
  Result<ModelReply> reply_;
};

class SamplingAsker final : public UserAsker {
 public:
  explicit SamplingAsker(std::deque<Result<UserAnswer>> replies) : replies_(std::move(replies)) {}
  Result<UserAnswer> ask(const UserQuestion& q, std::stop_token) override {
    asked.push_back(q);
    if (replies_.empty()) return Status::FailedPrecondition("no answer");
    Result<UserAnswer> r = replies_.front();
    replies_.pop_front();
    return r;
  }
  std::vector<UserQuestion> asked;

 private:
  std::deque<Result<UserAnswer>> replies_;
};

ModelReply reply_text(std::string text, std::string finish = "stop") {
  ModelReply r;
  r.text = std::move(text);
  r.finish_reason = std::move(finish);
  r.model = "mock-model-1";
  return r;
}

// As server-everything's trigger-sampling-request sends it.
json everything_request(const std::string& prompt, int max_tokens = 100) {
  return {{"messages",
           {{{"role", "user"},
             {"content", {{"type", "text"}, {"text", "Resource trigger-sampling-request context: " + prompt}}}}}},
          {"systemPrompt", "You are a helpful test server."},
          {"maxTokens", max_tokens},
          {"temperature", 0.7}};
}

// A hook whose backend is `model` (shared, so the test can look at it afterwards); `made` counts
// how often the backend was made.
struct Fixture {
  std::shared_ptr<SamplingModel> model = std::make_shared<SamplingModel>(reply_text("Paris."));
  int made = 0;
  SamplingSetup setup;

  SamplingHook hook() {
    setup.make_model = [this]() -> Result<std::unique_ptr<LlmClient>> {
      ++made;
      struct Borrowed final : LlmClient {
        explicit Borrowed(std::shared_ptr<SamplingModel> m) : m(std::move(m)) {}
        Result<ModelReply> complete(const ModelRequest& r, const CallOptions& o) override { return m->complete(r, o); }
        std::string describe() const override { return m->describe(); }
        std::shared_ptr<SamplingModel> m;
      };
      return std::unique_ptr<LlmClient>(new Borrowed(model));
    };
    return sampling_through_backend(setup);
  }
};

void allow_sampling(ApprovalPolicy& policy, std::vector<std::string> allow_patterns = {}) {
  ToolApprovalPolicy tool;
  if (allow_patterns.empty()) tool.mode = ApprovalMode::kAuto;
  tool.allow_patterns = std::move(allow_patterns);
  tool.source = "test keel.yaml";
  policy.tools["mcp_sampling"] = tool;
}

TEST(McpSampling, AnAllowedRequestIsAnsweredByKeelsModelInTheResultShape) {
  Fixture f;
  allow_sampling(f.setup.approvals);
  SamplingHook hook = f.hook();
  auto result = hook("everything", everything_request("capital of France?"));
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_EQ((*result)["role"], "assistant");
  EXPECT_EQ((*result)["content"], (json{{"type", "text"}, {"text", "Paris."}}));
  EXPECT_EQ((*result)["model"], "mock-model-1");
  EXPECT_EQ((*result)["stopReason"], "endTurn");
  ASSERT_EQ(f.model->asked.size(), 1u);
  const auto& asked = f.model->asked[0];
  ASSERT_EQ(asked.messages.size(), 2u);
  EXPECT_EQ(asked.messages[0].role, Role::kSystem);
  EXPECT_EQ(asked.messages[0].content, "You are a helpful test server.");
  EXPECT_EQ(asked.messages[1].role, Role::kUser);
  EXPECT_EQ(asked.messages[1].content, "Resource trigger-sampling-request context: capital of France?");
  EXPECT_EQ(asked.sampling.max_tokens, 100);
  EXPECT_DOUBLE_EQ(asked.sampling.temperature.value_or(0), 0.7);
  EXPECT_FALSE(asked.tools_enabled);
  EXPECT_FALSE(asked.stream);
  EXPECT_EQ(f.made, 1);

  // The backend is kept for the next request of the same hook.
  ASSERT_TRUE(hook("everything", everything_request("again")).ok());
  EXPECT_EQ(f.made, 1);
  EXPECT_EQ(f.model->asked.size(), 2u);

  // A reply cut at the length limit says so; maxTokens is capped.
  Fixture cut;
  allow_sampling(cut.setup.approvals);
  cut.model = std::make_shared<SamplingModel>(reply_text("The capital", "length"));
  auto capped = cut.hook()("everything", everything_request("again", 1000000));
  ASSERT_TRUE(capped.ok()) << capped.status().message();
  EXPECT_EQ((*capped)["stopReason"], "maxTokens");
  EXPECT_EQ(cut.model->asked[0].sampling.max_tokens, kMaxSamplingTokens);
}

TEST(McpSampling, ByDefaultThePersonIsAskedAndOnlyAnExplicitAllowRuns) {
  Fixture f;
  auto asker = std::make_shared<SamplingAsker>(std::deque<Result<UserAnswer>>{UserAnswer{"allow", 0}});
  f.setup.asker = asker;
  SamplingHook hook = f.hook();
  auto allowed = hook("docs", everything_request("What is the capital of France?"));
  ASSERT_TRUE(allowed.ok()) << allowed.status().message();
  ASSERT_EQ(asker->asked.size(), 1u);
  const UserQuestion& q = asker->asked[0];
  EXPECT_NE(q.question.find("MCP server 'docs'"), std::string::npos) << q.question;
  EXPECT_NE(q.question.find("up to 100 tokens"), std::string::npos) << q.question;
  EXPECT_NE(q.question.find("You are a helpful test server."), std::string::npos) << q.question;
  EXPECT_NE(q.question.find("What is the capital of France?"), std::string::npos) << q.question;
  EXPECT_EQ(q.options, (std::vector<std::string>{"allow", "deny"}));
  EXPECT_FALSE(q.allow_free_text);

  // "deny", or no answer at all (keel serve's asker has no run to put it to): refused, saying
  // which, and the model is not asked.
  const std::vector<std::pair<Result<UserAnswer>, std::string>> outcomes = {
      {UserAnswer{"deny", 1}, "the person asked did not allow it"},
      {Status::FailedPrecondition("end of input"), "nobody could be asked (end of input)"}};
  for (const auto& [answer, says] : outcomes) {
    Fixture g;
    g.setup.asker = std::make_shared<SamplingAsker>(std::deque<Result<UserAnswer>>{answer});
    auto refused = g.hook()("docs", everything_request("x"));
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.status().code(), ErrorCode::kPermissionDenied);
    EXPECT_NE(refused.status().message().find(says), std::string::npos) << refused.status().message();
    EXPECT_TRUE(g.model->asked.empty());
    EXPECT_EQ(g.made, 0);
  }
}

// An asker that never answers: it returns only once its question is stopped.
class SilentAsker final : public UserAsker {
 public:
  Result<UserAnswer> ask(const UserQuestion&, std::stop_token stop) override {
    while (!stop.stop_requested()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return Status::Cancelled("stopped");
  }
};

TEST(McpSampling, AQuestionNobodyAnswersIsRefusedAtTheTimeout) {
  Fixture f;
  f.setup.asker = std::make_shared<SilentAsker>();
  f.setup.question_timeout = std::chrono::milliseconds(50);
  auto refused = f.hook()("docs", everything_request("x"));
  ASSERT_EQ(refused.status().code(), ErrorCode::kPermissionDenied);
  EXPECT_NE(refused.status().message().find("nobody answered within"), std::string::npos) << refused.status().message();
  EXPECT_TRUE(f.model->asked.empty());
}

TEST(McpSampling, WithNobodyToAskARequestThatNeedsConfirmationIsRefused) {
  Fixture f;
  auto refused = f.hook()("docs", everything_request("x"));
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), ErrorCode::kPermissionDenied);
  const std::string m = refused.status().message();
  EXPECT_NE(m.find("MCP server 'docs' may not use keel's model"), std::string::npos) << m;
  EXPECT_NE(m.find("nobody can be asked"), std::string::npos) << m;
  EXPECT_NE(m.find("mcp_sampling: {mode: auto}"), std::string::npos) << m;
  EXPECT_TRUE(f.model->asked.empty());
}

TEST(McpSampling, ThePolicysPatternsAndModesDecideAsForAnyTool) {
  {  // an allow pattern for one server: that one runs unasked, another is still asked
    Fixture f;
    allow_sampling(f.setup.approvals, {"\"server\":\"docs\""});
    auto asker = std::make_shared<SamplingAsker>(std::deque<Result<UserAnswer>>{UserAnswer{"deny", 1}});
    f.setup.asker = asker;
    SamplingHook hook = f.hook();
    EXPECT_TRUE(hook("docs", everything_request("x")).ok());
    EXPECT_TRUE(asker->asked.empty());
    auto other = hook("other", everything_request("x"));
    EXPECT_EQ(other.status().code(), ErrorCode::kPermissionDenied);
    EXPECT_EQ(asker->asked.size(), 1u);
  }
  {  // a deny pattern refuses without asking, naming the rule
    Fixture f;
    ToolApprovalPolicy tool;
    tool.deny_patterns = {"\"server\":\"shady\""};
    tool.source = "test keel.yaml";
    f.setup.approvals.tools["mcp_sampling"] = tool;
    auto asker = std::make_shared<SamplingAsker>(std::deque<Result<UserAnswer>>{UserAnswer{"allow", 0}});
    f.setup.asker = asker;
    auto refused = f.hook()("shady", everything_request("x"));
    ASSERT_EQ(refused.status().code(), ErrorCode::kPermissionDenied);
    EXPECT_NE(refused.status().message().find("shady"), std::string::npos) << refused.status().message();
    EXPECT_TRUE(asker->asked.empty());
    EXPECT_TRUE(f.model->asked.empty());
  }
  {  // --approve-mode deny refuses everything, even what the tool's mode allows
    Fixture f;
    allow_sampling(f.setup.approvals);
    f.setup.approvals.override_mode = ApprovalMode::kDeny;
    f.setup.approvals.override_source = "--approve-mode";
    EXPECT_EQ(f.hook()("docs", everything_request("x")).status().code(), ErrorCode::kPermissionDenied);
  }
  {  // a client's floor (keel serve's approval_mode: confirm) makes an allowed request ask
    Fixture f;
    allow_sampling(f.setup.approvals);
    f.setup.approvals.floor_mode = ApprovalMode::kConfirm;
    f.setup.approvals.floor_source = "the request";
    EXPECT_EQ(f.hook()("docs", everything_request("x")).status().code(), ErrorCode::kPermissionDenied);
  }
}

TEST(McpSampling, RequestsKeelCannotServeAreInvalidArguments) {
  Fixture f;
  allow_sampling(f.setup.approvals);
  SamplingHook hook = f.hook();
  json image = everything_request("x");
  image["messages"][0]["content"] = {{"type", "image"}, {"data", "iVBORw0KGgo="}, {"mimeType", "image/png"}};
  json tools = everything_request("x");
  tools["tools"] = json::array({{{"name", "get_weather"}, {"inputSchema", {{"type", "object"}}}}});
  json no_max = everything_request("x");
  no_max.erase("maxTokens");
  json no_messages = everything_request("x");
  no_messages["messages"] = json::array();
  json system_role = everything_request("x");
  system_role["messages"][0]["role"] = "system";
  for (const auto& [bad, says] : std::vector<std::pair<json, std::string>>{{image, "text only"},
                                                                           {tools, "sampling.tools"},
                                                                           {no_max, "maxTokens"},
                                                                           {no_messages, "messages"},
                                                                           {system_role, "role \"system\""}}) {
    auto r = hook("docs", bad);
    ASSERT_FALSE(r.ok()) << bad.dump();
    EXPECT_EQ(r.status().code(), ErrorCode::kInvalidArgument) << r.status().message();
    EXPECT_NE(r.status().message().find(says), std::string::npos) << r.status().message();
  }
  EXPECT_TRUE(f.model->asked.empty());

  // Content as an array of text blocks (2025-11-25) is joined.
  json blocks = everything_request("x");
  blocks["messages"][0]["content"] =
      json::array({{{"type", "text"}, {"text", "one"}}, {{"type", "text"}, {"text", "two"}}});
  ASSERT_TRUE(hook("docs", blocks).ok());
  EXPECT_EQ(f.model->asked.back().messages.back().content, "one\ntwo");
}

TEST(McpSampling, AModelFailureIsNotAPersonsRefusal) {
  Fixture f;
  allow_sampling(f.setup.approvals);
  f.model = std::make_shared<SamplingModel>(Status::PermissionDenied("HTTP 403: key revoked"));
  auto failed = f.hook()("docs", everything_request("x"));
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.status().code(), ErrorCode::kUnavailable);
  EXPECT_NE(failed.status().message().find("key revoked"), std::string::npos) << failed.status().message();

  Fixture empty;
  allow_sampling(empty.setup.approvals);
  empty.model = std::make_shared<SamplingModel>(reply_text(""));
  EXPECT_EQ(empty.hook()("docs", everything_request("x")).status().code(), ErrorCode::kInternal);
}

}  // namespace
}  // namespace keel::assembly
