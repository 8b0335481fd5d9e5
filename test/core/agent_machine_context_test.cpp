// The context pipeline inside the agent loop: compaction is visible (guard, report, continuation
// note), a summary is a Summarize decision the host answers, and a failed summary never fails the run.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>

#include "keel/core/agent_machine.hpp"

namespace keel {
namespace {

ToolSpec read_tool() {
  ToolSpec s;
  s.name = "fs_read";
  s.read_only = true;
  s.concurrency_safe = true;
  return s;
}

AgentConfig small_window(size_t window) {
  AgentConfig cfg;
  cfg.max_rounds = 50;
  cfg.context.context_window = window;
  cfg.context.recency_rounds = 1;
  cfg.context.summary_cooldown_rounds = 100;
  return cfg;
}

ModelReply read(const std::string& path) {
  ModelReply r;
  r.tool_calls.push_back({"", "fs_read", R"({"path":")" + path + R"("})"});
  return r;
}

std::string big(char c, size_t n) {
  std::string s;
  s.push_back(c);
  s.append(" first line of the file\n");
  while (s.size() < n) {
    s.append(60, c);
    s.push_back('\n');
  }
  return s;
}

bool has_guard(const Decision& d, GuardKind kind) {
  return std::any_of(d.guards.begin(), d.guards.end(), [&](const GuardEvent& g) { return g.kind == kind; });
}

// Drives one tool round: the model reads `path`, the tool returns `content`.
Decision round(AgentMachine& m, const std::string& path, const std::string& content) {
  Decision d = m.step(ModelReplied{read(path)});
  const auto& run = std::get<RunTools>(d.action);
  return m.step(ToolsFinished{{{run.calls[0].id, "fs_read", ToolStatus::kOk, content, false, 1}}});
}

TEST(AgentMachineContext, OldResultsAreDigestedVisiblyWithANoteForTheModel) {
  AgentMachine m(small_window(1200), {read_tool()}, "SYS", "TASK");
  m.start();
  round(m, "a", big('a', 2000));
  Decision d = round(m, "b", big('b', 2000));
  ASSERT_TRUE(std::holds_alternative<CallModel>(d.action));
  ASSERT_TRUE(d.compaction.has_value());
  EXPECT_TRUE(has_guard(d, GuardKind::kContextCompacted));
  EXPECT_GE(d.compaction->messages_digested, 1u);
  // The first result is now a one-line digest; the last round is verbatim.
  const auto& h = m.history();
  auto first = std::find_if(h.begin(), h.end(), [](const Message& x) { return x.role == Role::kTool; });
  ASSERT_NE(first, h.end());
  EXPECT_EQ(first->content.rfind("[fs_read → a first line of the file", 0), 0u) << first->content;
  EXPECT_EQ(h.back().content, big('b', 2000));
  const auto& call = std::get<CallModel>(d.action);
  EXPECT_NE(call.request.appended.back().content.find(d.compaction->note), std::string::npos);
  EXPECT_GT(call.context.tool_results, 0u);
  EXPECT_EQ(call.context_window, 1200u);
}

TEST(AgentMachineContext, ADigestedResultMayBeReadAgain) {
  AgentMachine m(small_window(1200), {read_tool()}, "SYS", "TASK");
  m.start();
  round(m, "a", big('a', 2000));
  round(m, "b", big('b', 2000));
  Decision d = m.step(ModelReplied{read("a")});  // its result was digested: not a duplicate any more
  EXPECT_FALSE(has_guard(d, GuardKind::kSemanticRepeat));
  EXPECT_TRUE(std::holds_alternative<RunTools>(d.action));
}

TEST(AgentMachineContext, NoWindowNoCompaction) {
  AgentMachine m(small_window(0), {read_tool()}, "SYS", "TASK");
  m.start();
  round(m, "a", big('a', 4000));
  Decision d = round(m, "b", big('b', 4000));
  EXPECT_FALSE(d.compaction.has_value());
  EXPECT_FALSE(has_guard(d, GuardKind::kContextCompacted));
  EXPECT_GT(std::get<CallModel>(d.action).context.total(), 2000u);
}

// History whose old part is plain conversation (nothing to digest), so only a summary helps.
AgentMachine chatty_session(size_t window) {
  std::vector<Message> earlier;
  for (int i = 0; i < 12; ++i) {
    earlier.push_back(Message::user("question " + std::to_string(i) + " " + std::string(300, 'q')));
    earlier.push_back(Message::assistant("answer " + std::to_string(i) + " " + std::string(300, 'a')));
  }
  return AgentMachine(small_window(window), {read_tool()}, "SYS", earlier, "TASK");
}

TEST(AgentMachineContext, OverTheLimitTheHostIsAskedForASummary) {
  AgentMachine m = chatty_session(1200);
  Decision d = m.start();
  auto* s = std::get_if<Summarize>(&d.action);
  ASSERT_NE(s, nullptr);
  EXPECT_FALSE(s->request.tools_enabled);
  EXPECT_GE(s->messages, 2u);
  EXPECT_EQ(m.phase(), AgentPhase::kAwaitingSummary);
  ModelReply summary;
  summary.text = "The user asked twelve questions; all were answered.";
  d = m.step(ModelReplied{summary});
  auto* call = std::get_if<CallModel>(&d.action);
  ASSERT_NE(call, nullptr);
  ASSERT_TRUE(d.compaction.has_value());
  EXPECT_NE(std::find(d.compaction->stages.begin(), d.compaction->stages.end(), CompactionStage::kSummary),
            d.compaction->stages.end());
  bool found = std::any_of(m.history().begin(), m.history().end(), [&](const Message& x) {
    return x.content.find(summary.text) != std::string::npos;
  });
  EXPECT_TRUE(found);
  EXPECT_EQ(m.history()[0].content, "SYS");
  EXPECT_EQ(m.history().back().content, "TASK");
}

TEST(AgentMachineContext, TheSummaryRequestNamesTheCacheEntryThatMayAnswerIt) {
  AgentMachine m = chatty_session(1200);
  Decision d = m.start();
  auto* s = std::get_if<Summarize>(&d.action);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->cache_scope, "context_summary");
  char hex[32];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(s->span_hash));
  EXPECT_EQ(s->cache_key, hex);
  // The same span in another run has the same key; another span has another.
  AgentMachine again = chatty_session(1200);
  Decision d2 = again.start();
  ASSERT_TRUE(std::holds_alternative<Summarize>(d2.action));
  EXPECT_EQ(std::get<Summarize>(d2.action).cache_key, s->cache_key);
  std::vector<Message> other;
  for (int i = 0; i < 12; ++i) {
    other.push_back(Message::user("query " + std::to_string(i) + " " + std::string(300, 'q')));
    other.push_back(Message::assistant("reply " + std::to_string(i) + " " + std::string(300, 'a')));
  }
  AgentMachine third(small_window(1200), {read_tool()}, "SYS", other, "TASK");
  Decision d3 = third.start();
  ASSERT_TRUE(std::holds_alternative<Summarize>(d3.action));
  EXPECT_NE(std::get<Summarize>(d3.action).cache_key, s->cache_key);
}

TEST(AgentMachineContext, AFailedSummaryFallsBackInsteadOfFailingTheRun) {
  AgentMachine m = chatty_session(1200);
  Decision d = m.start();
  ASSERT_TRUE(std::holds_alternative<Summarize>(d.action));
  d = m.step(ModelFailed{Status::Unavailable("summary model down")});
  ASSERT_TRUE(std::holds_alternative<CallModel>(d.action));
  ASSERT_TRUE(d.compaction.has_value());
  EXPECT_NE(d.compaction->summary_error.find("summary model down"), std::string::npos);
  EXPECT_NE(std::find(d.compaction->stages.begin(), d.compaction->stages.end(), CompactionStage::kTailFallback),
            d.compaction->stages.end());
  EXPECT_EQ(m.history()[0].content, "SYS");
  EXPECT_EQ(m.history().back().content, "TASK");
  d = m.step(ModelReplied{ModelReply{"done", "", {}, "stop", {}, ""}});
  EXPECT_TRUE(std::holds_alternative<Finish>(d.action));
}

TEST(AgentMachineContext, RequestedCompactionRunsEvenWhenTheHistoryFits) {
  AgentMachine m = chatty_session(1'000'000);
  m.request_compaction();
  Decision d = m.start();
  // Plain conversation and nothing to digest: the forced step asks for a summary.
  ASSERT_TRUE(std::holds_alternative<Summarize>(d.action));
  d = m.step(ModelReplied{ModelReply{"short summary", "", {}, "stop", {}, ""}});
  ASSERT_TRUE(std::holds_alternative<CallModel>(d.action));
  EXPECT_TRUE(d.compaction.has_value());
  EXPECT_LT(m.history().size(), 26u);
}

}  // namespace
}  // namespace keel
