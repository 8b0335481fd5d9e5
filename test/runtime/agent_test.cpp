#include "keel/agent.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <thread>

#include "support/fake_llm.hpp"
#include "support/temp_dir.hpp"

namespace keel {
namespace {

using testing::FakeLlm;

std::unique_ptr<Tool> echo_tool(std::string name = "echo", Risk risk = Risk::kLow) {
  ToolSpec s;
  s.name = std::move(name);
  s.description = "echoes text";
  s.parameters_schema = R"({"type":"object","properties":{"text":{"type":"string"}},"required":["text"],"additionalProperties":false})";
  s.read_only = risk == Risk::kLow;
  s.concurrency_safe = true;
  s.risk = risk;
  return make_tool(s, [](const nlohmann::json& args, const ToolContext&) -> Result<std::string> {
    return "echo: " + args["text"].get<std::string>();
  });
}

// Records hook names in order.
struct Recorder : Hooks {
  std::vector<std::string> events;
  void on_run_started(RunContext&) override { events.push_back("run_started"); }
  void on_user_message(RunContext&, const Message&) override { events.push_back("user_message"); }
  void on_process_prompts(RunContext&, ModelRequest&) override { events.push_back("process_prompts"); }
  void on_model_reply(RunContext&, const ModelReply&) override { events.push_back("model_reply"); }
  void on_response_complete(RunContext&, const std::string&, ResponseActions&) override { events.push_back("response_complete"); }
  void on_tool_call(RunContext&, const ToolCall& c) override { events.push_back("tool_call:" + c.name); }
  void on_tool_result(RunContext&, const ToolCall&, const ToolResult& r) override {
    events.push_back("tool_result:" + std::string(tool_status_name(r.status)));
  }
  void on_approval_requested(RunContext&, const ApprovalRequest&) override { events.push_back("approval_requested"); }
  void on_approval_decided(RunContext&, const ApprovalRequest&, const ApprovalDecision& d) override {
    events.push_back(d.verdict == ApprovalVerdict::kDeny ? "approval_denied" : "approval_allowed");
  }
  void on_guard_fired(RunContext&, const GuardEvent& g) override { events.push_back("guard:" + std::string(guard_kind_name(g.kind))); }
  void on_run_finished(RunContext&, const RunOutcome&) override { events.push_back("run_finished"); }
  void on_run_failed(RunContext&, const RunOutcome&) override { events.push_back("run_failed"); }
  bool saw(const std::string& e) const { return std::find(events.begin(), events.end(), e) != events.end(); }
};

class AgentTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(tools_.add(echo_tool()).ok()); }
  AgentOptions options() {
    AgentOptions o;
    o.workspace = dir_.path().string();
    return o;
  }
  testing::TempDir dir_;
  FakeLlm llm_;
  ToolRegistry tools_;
};

TEST_F(AgentTest, HooksSeeTheRunInOrder) {
  llm_.push_call("echo", R"({"text":"hi"})");
  llm_.push_text("done");
  Agent agent(llm_, tools_, options());
  auto rec = std::make_shared<Recorder>();
  agent.add_hooks(rec);
  auto out = agent.run("say hi");
  ASSERT_TRUE(out.ok());
  ASSERT_TRUE(out->ok) << out->error;
  EXPECT_EQ(out->answer, "done");
  EXPECT_EQ(out->rounds, 2);
  EXPECT_EQ(out->tool_calls, 1);
  std::vector<std::string> want = {"run_started", "user_message", "process_prompts", "model_reply", "tool_call:echo",
                                   "tool_result:ok", "process_prompts", "model_reply", "response_complete", "run_finished"};
  EXPECT_EQ(rec->events, want);
  auto reqs = llm_.requests();
  ASSERT_EQ(reqs.size(), 2u);
  EXPECT_EQ(reqs[1].messages[3].content, "echo: hi");
}

TEST_F(AgentTest, ProcessPromptsMayEditTheRequest) {
  struct Injector : Hooks {
    void on_process_prompts(RunContext&, ModelRequest& r) override { r.appended.push_back(Message::user("EXTRA CONTEXT")); }
  };
  llm_.push_text("ok");
  Agent agent(llm_, tools_, options());
  agent.add_hooks(std::make_shared<Injector>());
  ASSERT_TRUE(agent.run("task")->ok);
  EXPECT_EQ(llm_.requests()[0].messages.back().content, "EXTRA CONTEXT");
}

TEST_F(AgentTest, ResponseCompleteMayRequestAnotherRound) {
  struct Reviewer : Hooks {
    void on_response_complete(RunContext& ctx, const std::string& answer, ResponseActions& a) override {
      if (ctx.metadata["reviewed"].empty() && answer == "draft") {
        ctx.metadata["reviewed"] = "1";
        a.another_round = true;
        a.message = "Check your draft once more.";
      }
    }
  };
  llm_.push_text("draft");
  llm_.push_text("final");
  Agent agent(llm_, tools_, options());
  agent.add_hooks(std::make_shared<Reviewer>());
  auto out = agent.run("write");
  ASSERT_TRUE(out->ok);
  EXPECT_EQ(out->answer, "final");
  auto second = llm_.requests()[1].messages;
  ASSERT_GE(second.size(), 2u);
  EXPECT_EQ(second[second.size() - 2].content, "Check your draft once more.");
}

TEST_F(AgentTest, HighRiskCallIsDeniedWithoutApprover) {
  ASSERT_TRUE(tools_.add(echo_tool("danger", Risk::kHigh)).ok());
  llm_.push_call("danger", R"({"text":"x"})");
  llm_.push_text("could not");
  Agent agent(llm_, tools_, options());
  auto rec = std::make_shared<Recorder>();
  agent.add_hooks(rec);
  ASSERT_TRUE(agent.run("t")->ok);
  EXPECT_TRUE(rec->saw("approval_requested"));
  EXPECT_TRUE(rec->saw("approval_denied"));
  EXPECT_TRUE(rec->saw("guard:permission_denied"));
  EXPECT_FALSE(rec->saw("tool_call:danger"));
  EXPECT_EQ(llm_.requests()[1].messages[3].metadata.at("status"), "denied");
}

TEST_F(AgentTest, ApproveAllRunsHighRiskCall) {
  ASSERT_TRUE(tools_.add(echo_tool("danger", Risk::kHigh)).ok());
  llm_.push_call("danger", R"({"text":"x"})");
  llm_.push_text("ran");
  Agent agent(llm_, tools_, options());
  agent.set_approver(make_approve_all());
  auto rec = std::make_shared<Recorder>();
  agent.add_hooks(rec);
  ASSERT_TRUE(agent.run("t")->ok);
  EXPECT_TRUE(rec->saw("approval_allowed"));
  EXPECT_TRUE(rec->saw("tool_result:ok"));
}

TEST_F(AgentTest, InvalidArgumentsAreCorrectedOnTheNextRound) {
  llm_.push_call("echo", R"({"txt":"typo"})");
  llm_.push_call("echo", R"({"text":"fixed"})");
  llm_.push_text("fine");
  Agent agent(llm_, tools_, options());
  auto out = agent.run("t");
  ASSERT_TRUE(out->ok);
  auto reqs = llm_.requests();
  const Message& first_result = reqs[1].messages[3];
  EXPECT_EQ(first_result.metadata.at("status"), "error");
  EXPECT_NE(first_result.content.find("text"), std::string::npos) << first_result.content;
  EXPECT_EQ(reqs[2].messages[5].content, "echo: fixed");
}

TEST_F(AgentTest, StopDuringModelCallAborts) {
  std::stop_source stop;
  llm_.set_before_reply([&](const CallOptions&) { stop.request_stop(); });
  llm_.push_text("never seen");
  Agent agent(llm_, tools_, options());
  auto out = agent.run("t", stop.get_token());
  ASSERT_TRUE(out.ok());
  EXPECT_FALSE(out->ok);
  EXPECT_EQ(out->failure, FailureKind::kAborted);
}

TEST_F(AgentTest, BackendErrorFailsWithItsMessage) {
  llm_.push(Status::Unauthenticated("HTTP 401: invalid api key"));
  Agent agent(llm_, tools_, options());
  auto out = agent.run("t");
  EXPECT_FALSE(out->ok);
  EXPECT_EQ(out->failure, FailureKind::kBackend);
  EXPECT_NE(out->error.find("invalid api key"), std::string::npos);
}

TEST_F(AgentTest, AgentsMdAndHintsGoIntoTheSystemPrompt) {
  dir_.write("AGENTS.md", "Always answer in French.");
  llm_.push_text("bien");
  Agent agent(llm_, tools_, options());
  ASSERT_TRUE(agent.run("what time is it")->ok);
  const std::string system = llm_.requests()[0].messages[0].content;
  EXPECT_NE(system.find("# Project instructions (AGENTS.md)\nAlways answer in French."), std::string::npos);
  EXPECT_NE(system.find("- echo: echoes text"), std::string::npos);
}

TEST_F(AgentTest, PlannerHintsAreUsedAndItsFailureIsNotFatal) {
  llm_.push_text("use echo first");
  llm_.push_text("answer");
  AgentOptions o = options();
  o.planner.enabled = true;
  {
    Agent agent(llm_, tools_, o);
    ASSERT_TRUE(agent.run("task")->ok);
  }
  auto reqs = llm_.requests();
  ASSERT_EQ(reqs.size(), 2u);
  EXPECT_FALSE(reqs[0].tools_enabled);
  EXPECT_NE(reqs[1].messages[0].content.find("planner: use echo first"), std::string::npos);
  FakeLlm failing;
  failing.push(Status::DeadlineExceeded("planner timed out"));
  failing.push_text("still answered");
  Agent agent(failing, tools_, o);
  auto out = agent.run("task");
  ASSERT_TRUE(out->ok);
  EXPECT_EQ(out->answer, "still answered");
}

// What a user sees of the planner: the status it runs under, before the task is announced, and the
// run's "planner" metadata (the plan, or why it was skipped) when the first model call starts.
struct PlannerWatch : Hooks {
  std::vector<std::string> events;
  void on_user_message(RunContext&, const Message&) override { events.push_back("user_message"); }
  void on_status_changed(RunContext& ctx, RunStatus s) override {
    std::string e(run_status_name(s));
    auto planner = ctx.metadata.find("planner");
    if (s == RunStatus::kCallingModel && planner != ctx.metadata.end()) e += " [" + planner->second + "]";
    events.push_back(e);
  }
};

TEST_F(AgentTest, ThePlannerRunsBeforeTheTaskIsAnnouncedAndItsOutcomeIsInTheMetadata) {
  AgentOptions o = options();
  o.planner.enabled = true;
  llm_.push_text("use echo first");
  llm_.push_text("answer");
  {
    Agent agent(llm_, tools_, o);
    auto watch = std::make_shared<PlannerWatch>();
    agent.add_hooks(watch);
    auto out = agent.run("task");
    ASSERT_TRUE(out.ok() && out->ok);
    EXPECT_EQ(out->model_calls, 2);
    std::vector<std::string> want = {"planning", "user_message", "calling_model [use echo first]", "finished"};
    EXPECT_EQ(watch->events, want);
  }
  FakeLlm failing;
  failing.push(Status::DeadlineExceeded("planner timed out"));
  failing.push_text("still answered");
  Agent agent(failing, tools_, o);
  auto watch = std::make_shared<PlannerWatch>();
  agent.add_hooks(watch);
  ASSERT_TRUE(agent.run("task")->ok);
  ASSERT_GE(watch->events.size(), 3u);
  EXPECT_EQ(watch->events[2],
            "calling_model [skipped: " + Status::DeadlineExceeded("planner timed out").to_string() + "]");
}

}  // namespace
}  // namespace keel
