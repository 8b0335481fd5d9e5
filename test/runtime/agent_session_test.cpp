// The agent with a store: every message is committed before the next act with side effects, a session
// continues where it stopped, an interrupted run resumes, tool runs, approvals and spans are kept,
// and cacheable tools are answered from the store's cache.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include <atomic>
#include <nlohmann/json.hpp>

#include "keel/agent.hpp"
#include "keel/store/sqlite_store.hpp"
#include "support/fake_llm.hpp"
#include "support/sqlite_wal.hpp"
#include "support/temp_dir.hpp"

namespace keel {
namespace {

using testing::FakeLlm;

std::unique_ptr<Tool> counting_tool(std::string name, bool cacheable, std::atomic<int>* runs) {
  ToolSpec s;
  s.name = std::move(name);
  s.description = "returns its input";
  s.parameters_schema = R"({"type":"object","properties":{"text":{"type":"string"}},"required":["text"]})";
  s.read_only = true;
  s.concurrency_safe = true;
  s.cacheable = cacheable;
  return make_tool(s, [runs](const nlohmann::json& args, const ToolContext&) -> Result<std::string> {
    ++*runs;
    return "got " + args["text"].get<std::string>();
  });
}

class AgentSessionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    StoreOptions so;
    so.path = dir_.path() / "keel.db";
    auto s = open_sqlite_store(so);
    ASSERT_TRUE(s.ok()) << s.status().to_string();
    store_ = std::move(s).value();
    ASSERT_TRUE(tools_.add(counting_tool("echo", false, &runs_)).ok());
    ASSERT_TRUE(tools_.add(counting_tool("lookup", true, &runs_)).ok());
  }
  AgentOptions options() {
    AgentOptions o;
    o.workspace = dir_.path().string();
    o.load_agents_md = false;
    o.stream = false;
    o.store = store_.get();
    return o;
  }
  // A store with room for the schema (about 50 pages) and little else.
  std::unique_ptr<Store> small_store() {
    StoreOptions so;
    so.path = dir_.path() / "small.db";
    so.max_page_count = 60;
    auto s = open_sqlite_store(so);
    EXPECT_TRUE(s.ok()) << s.status().to_string();
    return s.ok() ? std::move(s).value() : nullptr;
  }
  std::vector<Message> stored(const std::string& session) {
    auto m = store_->load_messages(session);
    EXPECT_TRUE(m.ok()) << m.status().to_string();
    std::vector<Message> out;
    if (m.ok()) {
      for (auto& x : *m) out.push_back(x.message);
    }
    return out;
  }
  testing::TempDir dir_;
  std::unique_ptr<Store> store_;
  ToolRegistry tools_;
  std::string acting_session_;
  std::atomic<int> runs_{0};
  FakeLlm llm_;
};

TEST_F(AgentSessionTest, ARunIsStoredMessageByMessageWithItsToolRunsAndTrace) {
  llm_.push_call("echo", R"({"text":"hi"})");
  llm_.push_text("done");
  Agent agent(llm_, tools_, options());
  auto out = agent.run("say hi");
  ASSERT_TRUE(out.ok() && out->ok) << (out.ok() ? out->error : out.status().to_string());
  ASSERT_FALSE(out->session_id.empty());
  std::vector<Message> msgs = stored(out->session_id);
  ASSERT_EQ(msgs.size(), 5u);  // system, task, assistant call, tool result, answer
  EXPECT_EQ(msgs[0].role, Role::kSystem);
  EXPECT_EQ(msgs[1].content, "say hi");
  EXPECT_EQ(msgs[2].tool_calls.size(), 1u);
  EXPECT_EQ(msgs[3].content, "got hi");
  EXPECT_EQ(msgs[4].content, "done");

  auto run = store_->get_run(out->run_id);
  ASSERT_TRUE(run.ok());
  EXPECT_EQ(run->state, RunState::kFinished);
  EXPECT_EQ(run->answer, "done");
  auto tool_runs = store_->list_tool_runs(out->run_id);
  ASSERT_TRUE(tool_runs.ok());
  ASSERT_EQ(tool_runs->size(), 1u);
  EXPECT_EQ((*tool_runs)[0].tool, "echo");
  EXPECT_EQ((*tool_runs)[0].result, "got hi");
  auto spans = store_->list_spans(out->run_id);
  ASSERT_TRUE(spans.ok());
  int model = 0, tool = 0, root = 0;
  for (const auto& s : *spans) {
    model += s.kind == "model";
    tool += s.kind == "tool";
    root += s.kind == "run";
  }
  EXPECT_EQ(model, 2);
  EXPECT_EQ(tool, 1);
  EXPECT_EQ(root, 1);
}

// Commit before act: a tool with side effects runs only once the conversation that asked for it
// (the task, the call) is in the store, so a crash can never make it run twice.
TEST_F(AgentSessionTest, AToolWithSideEffectsRunsOnlyOnceItsCallIsStored) {
  ToolSpec spec;
  spec.name = "write_note";
  spec.description = "writes a note";
  spec.parameters_schema = R"({"type":"object","properties":{"text":{"type":"string"}}})";
  spec.read_only = false;
  std::vector<size_t> stored_at_act;
  Store* store = store_.get();
  std::string* session = &acting_session_;
  ASSERT_TRUE(tools_.add(make_tool(spec, [&stored_at_act, store, session](const nlohmann::json&, const ToolContext& c)
                                             -> Result<std::string> {
                  *session = c.session_id;
                  auto m = store->load_messages(c.session_id);
                  stored_at_act.push_back(m.ok() ? m->size() : 0);
                  return std::string("written");
                }))
                  .ok());
  llm_.push_call("lookup", R"({"text":"a"})");  // a read-only round first: its write may still be queued
  llm_.push_call("write_note", R"({"text":"b"})");
  llm_.push_text("done");
  // From the second model call on, another connection holds the database's write lock for a
  // while: the writes queued meanwhile wait, and write_note must wait for them.
  struct HoldWriteLock : Hooks {
    std::string path;
    int calls = 0;
    std::thread holder;
    void on_process_prompts(RunContext&, ModelRequest&) override {
      if (++calls != 2) return;
      sqlite3* db = nullptr;
      ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
      sqlite3_busy_timeout(db, 5000);
      ASSERT_EQ(sqlite3_exec(db, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr), SQLITE_OK);
      holder = std::thread([db] {
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr);
        sqlite3_close(db);
      });
    }
  };
  auto hold = std::make_shared<HoldWriteLock>();
  hold->path = (dir_.path() / "keel.db").string();
  Agent agent(llm_, tools_, options());
  agent.add_hooks(hold);
  auto out = agent.run("go");
  if (hold->holder.joinable()) hold->holder.join();
  ASSERT_EQ(hold->calls, 3);
  ASSERT_TRUE(out.ok() && out->ok);
  ASSERT_EQ(stored_at_act.size(), 1u);
  // system, task, lookup call, its result, write_note call: all stored before write_note acted.
  EXPECT_EQ(stored_at_act[0], 5u);
  EXPECT_EQ(acting_session_, out->session_id);
  // At the end every message is stored, the read-only rounds included.
  EXPECT_EQ(store_->load_messages(out->session_id)->size(), 7u);
}

// A round whose calls are all read-only and bounded (safe to repeat, done at once) costs at most one
// transaction: the assistant's calls go into the store with their results instead of before them.
// (Fast rounds share transactions too: SessionRecorderTest has that.)
TEST_F(AgentSessionTest, ARoundOfBoundedReadOnlyCallsIsOneTransaction) {
  ToolSpec spec;
  spec.name = "stat";
  spec.parameters_schema = R"({"type":"object","properties":{"path":{"type":"string"}}})";
  spec.read_only = true;
  spec.bounded = true;
  ASSERT_TRUE(tools_.add(make_tool(spec, [](const nlohmann::json&, const ToolContext&) -> Result<std::string> {
                return std::string("file, 1 byte");
              })).ok());
  auto commits_for = [&](int rounds) {
    StoreOptions so;
    so.path = dir_.path() / ("rounds-" + std::to_string(rounds)) / "keel.db";
    std::filesystem::create_directories(so.path.parent_path());
    auto store = open_sqlite_store(so);
    EXPECT_TRUE(store.ok()) << store.status().to_string();
    if (!store.ok()) return -1;
    FakeLlm llm;
    for (int r = 0; r < rounds; ++r) llm.push_call("stat", R"({"path":"f)" + std::to_string(r) + R"(.txt"})");
    llm.push_text("done");
    AgentOptions o = options();
    o.store = store->get();
    Agent agent(llm, tools_, o);
    auto out = agent.run("look");
    EXPECT_TRUE(out.ok() && out->ok);
    if (!out.ok()) return -1;
    auto msgs = (*store)->load_messages(out->session_id);
    EXPECT_TRUE(msgs.ok());
    // system, task, then a call and its result per round, then the answer: nothing is left out.
    EXPECT_EQ(msgs.ok() ? msgs->size() : 0u, static_cast<size_t>(2 * rounds + 3));
    EXPECT_EQ((*store)->list_tool_runs(out->run_id)->size(), static_cast<size_t>(rounds));
    return testing::wal_commits(so.path.string() + "-wal");
  };
  const int one = commits_for(1);
  const int four = commits_for(4);
  ASSERT_GT(one, 0) << "no write-ahead log to read, or one reset by a checkpoint";
  ASSERT_GT(four, 0) << "no write-ahead log to read, or one reset by a checkpoint";
  EXPECT_LE(four - one, 3);  // at most one more transaction per round, never two
}

TEST_F(AgentSessionTest, ContinuingASessionSendsTheEarlierConversation) {
  llm_.push_text("Paris");
  Agent agent(llm_, tools_, options());
  auto first = agent.run("capital of France?");
  ASSERT_TRUE(first.ok() && first->ok);
  llm_.push_text("about 2 million");
  auto second = agent.continue_session(first->session_id, "and its population?");
  ASSERT_TRUE(second.ok() && second->ok) << (second.ok() ? second->error : second.status().to_string());
  EXPECT_EQ(second->session_id, first->session_id);
  EXPECT_NE(second->run_id, first->run_id);
  auto reqs = llm_.requests();
  ASSERT_EQ(reqs.size(), 2u);
  const auto& sent = reqs[1].messages;
  ASSERT_GE(sent.size(), 4u);
  EXPECT_EQ(sent[1].content, "capital of France?");
  EXPECT_EQ(sent[2].content, "Paris");
  EXPECT_EQ(sent[3].content, "and its population?");
  EXPECT_EQ(stored(first->session_id).size(), 5u);  // one system prompt, two turns
}

TEST_F(AgentSessionTest, ContinuingAnUnknownSessionIsNotFound) {
  Agent agent(llm_, tools_, options());
  auto out = agent.continue_session("s_0000000000000000", "hello");
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), ErrorCode::kNotFound);
  EXPECT_NE(out.status().message().find("s_0000000000000000"), std::string::npos);
}

TEST_F(AgentSessionTest, AnInterruptedRunResumesFromItsLastCommittedMessage) {
  // First process: the model asks for a tool, then the backend dies before the next answer.
  llm_.push_call("echo", R"({"text":"x"})");
  llm_.push(Status::Unavailable("connection reset"));
  std::string run_id;
  {
    AgentOptions o = options();
    Agent agent(llm_, tools_, o);
    auto out = agent.run("do x");
    ASSERT_TRUE(out.ok());
    ASSERT_FALSE(out->ok);
    run_id = out->run_id;
  }
  // A failed run is terminal: mark it as a crash would leave it (still running).
  RunUpdate u;
  u.state = RunState::kRunning;
  ASSERT_TRUE(store_->update_run(run_id, u).ok());

  FakeLlm second;
  second.push_text("x is done");
  Agent agent(second, tools_, options());
  auto out = agent.resume(run_id);
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  ASSERT_TRUE(out->ok) << out->error;
  EXPECT_EQ(out->answer, "x is done");
  auto reqs = second.requests();
  ASSERT_EQ(reqs.size(), 1u);
  bool saw_result = false;
  for (const auto& m : reqs[0].messages) saw_result |= m.role == Role::kTool && m.content == "got x";
  EXPECT_TRUE(saw_result);
  std::vector<Message> msgs = stored(out->session_id);
  int results = 0;
  for (const auto& m : msgs) results += m.role == Role::kTool;
  EXPECT_EQ(results, 1);  // nothing committed twice
  EXPECT_EQ(msgs.back().content, "x is done");
  EXPECT_EQ(store_->get_run(run_id)->state, RunState::kFinished);

  auto again = agent.resume(run_id);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.status().code(), ErrorCode::kFailedPrecondition);
}

TEST_F(AgentSessionTest, CacheableToolsAreAnsweredFromTheStoreAcrossRuns) {
  Agent agent(llm_, tools_, options());
  llm_.push_call("lookup", R"({"text":"k"})");
  llm_.push_text("one");
  ASSERT_TRUE(agent.run("first").ok());
  llm_.push_call("lookup", R"({"text":"k"})");
  llm_.push_text("two");
  auto out = agent.run("second");
  ASSERT_TRUE(out.ok() && out->ok);
  EXPECT_EQ(runs_.load(), 1);  // the second lookup came from the cache
  auto msgs = stored(out->session_id);
  bool cached = false;
  for (const auto& m : msgs) cached |= m.role == Role::kTool && m.content == "got k";
  EXPECT_TRUE(cached);
  // Not cacheable: runs every time.
  llm_.push_call("echo", R"({"text":"k"})");
  llm_.push_text("three");
  ASSERT_TRUE(agent.run("third").ok());
  llm_.push_call("echo", R"({"text":"k"})");
  llm_.push_text("four");
  ASSERT_TRUE(agent.run("fourth").ok());
  EXPECT_EQ(runs_.load(), 3);
}

TEST_F(AgentSessionTest, ASummaryIsKeptInTheStoreAndAnswersTheSameSpanInALaterRun) {
  std::vector<Message> earlier;  // plain conversation: nothing to digest, only a summary helps
  for (int i = 0; i < 12; ++i) {
    earlier.push_back(Message::user("question " + std::to_string(i) + " " + std::string(300, 'q')));
    earlier.push_back(Message::assistant("answer " + std::to_string(i) + " " + std::string(300, 'a')));
  }
  AgentOptions o = options();
  o.config.context.context_window = 2000;
  o.config.context.recency_rounds = 1;
  llm_.push_text("twelve questions, all answered");
  llm_.push_text("one");
  {
    Agent agent(llm_, tools_, o);
    auto out = agent.run_after(earlier, "TASK");
    ASSERT_TRUE(out.ok() && out->ok);
  }
  ASSERT_EQ(llm_.requests().size(), 2u);  // the summary, then the answer
  llm_.push_text("two");
  Agent agent(llm_, tools_, o);
  auto out = agent.run_after(earlier, "TASK");
  ASSERT_TRUE(out.ok() && out->ok);
  EXPECT_EQ(out->answer, "two");
  auto reqs = llm_.requests();
  ASSERT_EQ(reqs.size(), 3u);  // the summary came from the store
  bool summarized = false;
  for (const auto& m : reqs[2].messages) summarized |= m.content.find("twelve questions, all answered") != std::string::npos;
  EXPECT_TRUE(summarized);
}

// A read-only round is written while the run goes on (it is safe to repeat): its lost write is
// found at the latest when the run ends, and the run fails with it instead of answering.
TEST_F(AgentSessionTest, AStoreThatCannotBeWrittenFailsTheRunExplicitly) {
  std::unique_ptr<Store> small = small_store();
  ASSERT_NE(small, nullptr);
  AgentOptions o = options();
  o.store = small.get();
  std::string huge(400 * 1024, 'z');
  llm_.push_call("echo", nlohmann::json{{"text", huge}}.dump());
  llm_.push_text("never");
  Agent agent(llm_, tools_, o);
  auto out = agent.run("fill it");
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  EXPECT_FALSE(out->ok);
  EXPECT_NE(out->error.find("could not save"), std::string::npos) << out->error;
  auto run = small->get_run(out->run_id);
  ASSERT_TRUE(run.ok()) << run.status().to_string();
  EXPECT_EQ(run->state, RunState::kFailed);  // not finished with an answer the store lacks
}

// Before an act with side effects the conversation that led to it must be stored: when it cannot
// be, the act never happens and no model is asked again.
TEST_F(AgentSessionTest, AnActWhoseCallCannotBeStoredNeverHappens) {
  std::unique_ptr<Store> small = small_store();
  ASSERT_NE(small, nullptr);
  std::atomic<int> writes{0};
  ToolSpec spec;
  spec.name = "write_note";
  spec.parameters_schema = R"({"type":"object","properties":{"text":{"type":"string"}}})";
  spec.read_only = false;
  ASSERT_TRUE(tools_.add(make_tool(spec, [&writes](const nlohmann::json&, const ToolContext&) -> Result<std::string> {
                ++writes;
                return std::string("written");
              })).ok());
  AgentOptions o = options();
  o.store = small.get();
  llm_.push_call("write_note", nlohmann::json{{"text", std::string(400 * 1024, 'z')}}.dump());
  llm_.push_text("never");
  Agent agent(llm_, tools_, o);
  auto out = agent.run("fill it");
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  EXPECT_FALSE(out->ok);
  EXPECT_NE(out->error.find("could not save"), std::string::npos) << out->error;
  EXPECT_EQ(writes.load(), 0);  // the act whose call is not stored never ran
  EXPECT_LE(llm_.requests().size(), 1u);  // no model call after a lost message
}

// The answer is the last thing saved: when it cannot be, the stored run is failed with the reason,
// not finished with an answer the conversation lacks.
TEST_F(AgentSessionTest, AnAnswerThatCannotBeSavedLeavesTheRunFailedNotFinished) {
  std::unique_ptr<Store> small = small_store();
  ASSERT_NE(small, nullptr);
  AgentOptions o = options();
  o.store = small.get();
  llm_.push_text(std::string(400 * 1024, 'a'));
  Agent agent(llm_, tools_, o);
  auto out = agent.run("answer at length");
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  EXPECT_FALSE(out->ok);
  auto run = small->get_run(out->run_id);
  ASSERT_TRUE(run.ok()) << run.status().to_string();
  EXPECT_EQ(run->state, RunState::kFailed);
  EXPECT_EQ(run->answer, "");
  EXPECT_NE(run->error.find("could not save the conversation"), std::string::npos) << run->error;
}

}  // namespace
}  // namespace keel

namespace keel {
namespace {

std::unique_ptr<Tool> risky_tool(std::atomic<int>* runs) {
  ToolSpec s;
  s.name = "deploy";
  s.description = "deploys";
  s.parameters_schema = R"({"type":"object","properties":{"target":{"type":"string"}}})";
  s.risk = Risk::kHigh;
  return make_tool(s, [runs](const nlohmann::json&, const ToolContext&) -> Result<std::string> {
    ++*runs;
    return std::string("deployed");
  });
}

// Answers "always" once, then counts how often it is asked.
struct AlwaysOnce : Approver {
  int asked = 0;
  std::vector<ApprovalDecision> decide(const std::vector<ApprovalRequest>& reqs, std::stop_token) override {
    std::vector<ApprovalDecision> out;
    for (const auto& r : reqs) {
      ++asked;
      out.push_back({r.call.id, asked == 1 ? ApprovalVerdict::kAllowAlways : ApprovalVerdict::kDeny, "asked"});
    }
    return out;
  }
};

TEST_F(AgentSessionTest, AnAlwaysAnswerIsRememberedForTheWorkspace) {
  std::atomic<int> deploys{0};
  ASSERT_TRUE(tools_.add(risky_tool(&deploys)).ok());
  auto approver = std::make_shared<AlwaysOnce>();
  Agent agent(llm_, tools_, options());
  agent.set_approver(approver);
  llm_.push_call("deploy", R"({"target":"staging"})");
  llm_.push_text("deployed once");
  ASSERT_TRUE(agent.run("deploy").ok());
  llm_.push_call("deploy", R"({"target":"prod"})");
  llm_.push_text("deployed twice");
  auto out = agent.run("deploy again");
  ASSERT_TRUE(out.ok() && out->ok);
  EXPECT_EQ(approver->asked, 1);  // the second run used the saved rule
  EXPECT_EQ(deploys.load(), 2);
  auto rules = store_->list_approval_rules(dir_.path().string());
  ASSERT_TRUE(rules.ok());
  ASSERT_EQ(rules->size(), 1u);
  EXPECT_EQ((*rules)[0].tool, "deploy");
  auto log = store_->list_approvals(ApprovalFilter{});
  ASSERT_TRUE(log.ok());
  EXPECT_EQ(log->size(), 2u);  // both decisions are in the audit log
}

TEST_F(AgentSessionTest, ADenyRuleWinsAndAPatternNarrowsARule) {
  std::atomic<int> deploys{0};
  ASSERT_TRUE(tools_.add(risky_tool(&deploys)).ok());
  ApprovalRule allow;
  allow.workspace = dir_.path().string();
  allow.tool = "deploy";
  allow.verdict = ApprovalVerdict::kAllow;
  ASSERT_TRUE(store_->add_approval_rule(allow).ok());
  ApprovalRule deny = allow;
  deny.pattern = "\"target\":\"prod\"";
  deny.verdict = ApprovalVerdict::kDeny;
  ASSERT_TRUE(store_->add_approval_rule(deny).ok());
  auto approver = std::make_shared<AlwaysOnce>();
  Agent agent(llm_, tools_, options());
  agent.set_approver(approver);
  llm_.push_call("deploy", R"({"target":"prod"})");
  llm_.push_call("deploy", R"({"target":"staging"})");
  llm_.push_text("done");
  auto out = agent.run("deploy");
  ASSERT_TRUE(out.ok() && out->ok);
  EXPECT_EQ(approver->asked, 0);
  EXPECT_EQ(deploys.load(), 1);  // prod denied by the rule, staging allowed
}

}  // namespace
}  // namespace keel
