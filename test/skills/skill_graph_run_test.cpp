// Running a skill graph: provided values flowing to dependents, skipWhen without a model call,
// failures blocking only dependents, level-parallel execution, timeouts, events and trace spans.
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "keel/skill_runner.hpp"
#include "keel/store/sqlite_store.hpp"
#include "skills/skill_test_support.hpp"

namespace keel {
namespace {

using nlohmann::json;
using testing::object_skill;
using testing::RuleModel;
using testing::skill_of;
using testing::SkillRequest;
using testing::text_reply;
using Clock = std::chrono::steady_clock;

// Each skill answers from a table; skills not in it get an error.
RuleModel::Responder by_skill(std::map<std::string, std::string> replies) {
  return [replies](const SkillRequest& r, const CallOptions&) -> Result<ModelReply> {
    auto it = replies.find(skill_of(r));
    if (it == replies.end()) return Status::Unavailable("no reply scripted for " + skill_of(r));
    return text_reply(it->second);
  };
}

ExecutableSkill provider(const std::string& id, const std::string& provides, std::vector<std::string> depends = {}) {
  ExecutableSkill s = object_skill(id, {}, std::move(depends));
  s.manifest.output_schema = R"({"type":"object"})";
  s.manifest.provides = {provides};
  return s;
}

Result<SkillGraphResult> run_graph(std::vector<ExecutableSkill> skills, LlmClient& model, std::vector<std::string> ids,
                                   SkillRunnerOptions options = {}, std::vector<SkillEvent>* events = nullptr) {
  KEEL_ASSIGN_OR_RETURN(auto runner, SkillRunner::create(std::move(skills), model, std::move(options)));
  SkillRunRequest req;
  req.ids = std::move(ids);
  if (events != nullptr) {
    req.on_event = [events](const SkillEvent& e) {
      SkillEvent copy = e;
      copy.outcome = nullptr;
      events->push_back(copy);
    };
  }
  return runner->run(req, json{{"source", "inbox"}});
}

TEST(SkillGraphRunTest, ProvidedValuesReachTheDependentsPromptAndTheContext) {
  RuleModel model(by_skill(
      {{"extract", R"({"candidates": ["grant A", "grant B"], "noise": 1})"}, {"score", R"({"scores": [3, 5]})"}}));
  Result<SkillGraphResult> r =
      run_graph({provider("extract", "candidates"), provider("score", "scores", {"extract"})}, model, {"score"});
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  ASSERT_EQ(r->skills.size(), 2u);
  EXPECT_EQ(r->skills[0].id, "extract");
  EXPECT_EQ(r->skills[1].id, "score");
  EXPECT_EQ(r->skills[1].status, SkillStatus::kSucceeded);
  std::vector<SkillRequest> score = model.requests_for("score");
  ASSERT_EQ(score.size(), 1u);
  EXPECT_EQ(score[0].user,
            "## Input\n\n{\n  \"source\": \"inbox\"\n}\n\n## Provided by the skills this one depends on\n\n{\n  "
            "\"candidates\": [\n    \"grant A\",\n    \"grant B\"\n  ]\n}\n");
  // Only provided members enter the context, next to the input's.
  EXPECT_EQ(json::parse(r->context),
            json({{"source", "inbox"}, {"candidates", {"grant A", "grant B"}}, {"scores", {3, 5}}}));
}

TEST(SkillGraphRunTest, ASkippedSkillMakesNoModelCall) {
  ExecutableSkill score = provider("score", "scores", {"extract"});
  score.manifest.skip_when = {"no-candidates"};
  ExecutableSkill digest = object_skill("digest", {}, {"extract"});
  digest.manifest.output_schema = R"({"type":"object"})";
  digest.manifest.skip_when = {"has-source"};  // the input has it
  RuleModel model(by_skill({{"extract", R"({"candidates": []})"}, {"score", R"({"scores": []})"}, {"digest", "{}"}}));
  std::vector<SkillEvent> events;
  Result<SkillGraphResult> r =
      run_graph({provider("extract", "candidates"), score, digest}, model, {"score", "digest"}, {}, &events);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(model.calls(), 1u);
  EXPECT_EQ(model.requests_for("score").size(), 0u);
  ASSERT_EQ(r->skills.size(), 3u);
  EXPECT_EQ(r->skills[1].id, "digest");
  EXPECT_EQ(r->skills[1].status, SkillStatus::kSkipped);
  EXPECT_TRUE(r->skills[1].skipped);
  EXPECT_EQ(r->skills[1].reason, "has-source: the context has a value 'source'");
  EXPECT_EQ(r->skills[2].id, "score");
  EXPECT_EQ(r->skills[2].status, SkillStatus::kSkipped);
  EXPECT_EQ(r->skills[2].reason, "no-candidates: the context has no value 'candidates'");
  EXPECT_EQ(r->skills[2].backend, "");
  EXPECT_TRUE(r->ok());
  // Started only for the skill that ran; finished for all, in plan order within a level.
  std::vector<std::pair<SkillEvent::Kind, std::string>> seen;
  for (const SkillEvent& e : events) seen.emplace_back(e.kind, e.skill);
  using K = SkillEvent::Kind;
  EXPECT_EQ(
      seen,
      (std::vector<std::pair<K, std::string>>{
          {K::kStarted, "extract"}, {K::kFinished, "extract"}, {K::kFinished, "digest"}, {K::kFinished, "score"}}));
  EXPECT_EQ(events.front().run_id, r->run_id);
}

TEST(SkillGraphRunTest, AFailedSkillBlocksItsDependentsOnlyAndTheGraphFails) {
  RuleModel model(by_skill({{"a", "broken"}, {"d", R"({"x": "1"})"}}));
  ExecutableSkill a = object_skill("a", {"x"});
  ExecutableSkill b = object_skill("b", {"x"}, {"a"});
  ExecutableSkill c = object_skill("c", {"x"}, {"b"});
  ExecutableSkill d = object_skill("d", {"x"});
  Result<SkillGraphResult> r = run_graph({a, b, c, d}, model, {"c", "d"});
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->skills.size(), 4u);
  EXPECT_EQ(r->skills[0].id, "a");
  EXPECT_EQ(r->skills[0].status, SkillStatus::kFailed);
  EXPECT_EQ(r->skills[0].raw_output, "broken");
  EXPECT_EQ(r->skills[1].id, "b");
  EXPECT_EQ(r->skills[1].status, SkillStatus::kBlocked);
  EXPECT_EQ(r->skills[1].reason, "dependency 'a' failed");
  EXPECT_EQ(r->skills[2].id, "c");
  EXPECT_EQ(r->skills[2].status, SkillStatus::kBlocked);
  EXPECT_EQ(r->skills[2].reason, "dependency 'b' was blocked: dependency 'a' failed");
  EXPECT_EQ(r->skills[3].id, "d");
  EXPECT_EQ(r->skills[3].status, SkillStatus::kSucceeded);
  EXPECT_EQ(model.requests_for("a").size(), 2u);  // the retry
  EXPECT_EQ(model.requests_for("b").size(), 0u);
  EXPECT_EQ(model.requests_for("c").size(), 0u);
  EXPECT_FALSE(r->ok());
}

TEST(SkillGraphRunTest, SkillsOfOneLevelRunInParallel) {
  // Each call waits until both calls have arrived: run one after the other, the first would wait
  // out the generous timeout and report that it was alone.
  std::mutex mu;
  std::condition_variable cv;
  int arrived = 0;
  std::atomic<int> saw_both{0};
  RuleModel model([&](const SkillRequest&, const CallOptions&) -> Result<ModelReply> {
    std::unique_lock l(mu);
    ++arrived;
    cv.notify_all();
    if (cv.wait_for(l, std::chrono::seconds(10), [&] { return arrived >= 2; })) saw_both.fetch_add(1);
    return text_reply(R"({"x": "done"})");
  });
  SkillRunnerOptions o;
  o.threads = 2;
  Result<SkillGraphResult> r =
      run_graph({object_skill("left", {"x"}), object_skill("right", {"x"})}, model, {"left", "right"}, o);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(saw_both.load(), 2);
  EXPECT_EQ(r->skills[0].status, SkillStatus::kSucceeded);
  EXPECT_EQ(r->skills[1].status, SkillStatus::kSucceeded);
}

TEST(SkillGraphRunTest, ASkillPastItsTimeoutIsStoppedAndFailsNamingTheTimeout) {
  RuleModel model([](const SkillRequest&, const CallOptions& options) -> Result<ModelReply> {
    // A well-behaved backend: returns promptly once asked to stop.
    auto give_up = Clock::now() + std::chrono::seconds(20);
    while (!options.stop.stop_requested() && Clock::now() < give_up) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return Status::Cancelled("stopped");
  });
  ExecutableSkill slow = object_skill("slow", {"x"});
  slow.manifest.timeout_ms = 300;
  const auto t0 = Clock::now();
  Result<SkillGraphResult> r = run_graph({slow}, model, {"slow"});
  const auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0).count();
  ASSERT_TRUE(r.ok());
  const SkillOutcome& o = r->skills.at(0);
  EXPECT_EQ(o.status, SkillStatus::kFailed);
  EXPECT_EQ(o.error_code, ErrorCode::kDeadlineExceeded);
  EXPECT_EQ(o.reason, "skill 'slow' timed out after 300 ms (its timeoutMs)");
  EXPECT_TRUE(o.backend_failed);
  EXPECT_GE(elapsed, 300);
  EXPECT_LT(elapsed, 10000);
}

TEST(SkillGraphRunTest, ACallThatIgnoresItsStopTokenIsAbandonedAfterTheGrace) {
  RuleModel model([](const SkillRequest&, const CallOptions&) -> Result<ModelReply> {
    std::this_thread::sleep_for(std::chrono::milliseconds(1800));  // deaf to stop and timeout
    return text_reply(R"({"x": "late"})");
  });
  ExecutableSkill deaf = object_skill("deaf", {"x"});
  deaf.manifest.timeout_ms = 200;
  SkillRunnerOptions o;
  o.abandon_grace_ms = 100;
  auto runner = SkillRunner::create({deaf}, model, o);
  ASSERT_TRUE(runner.ok());
  SkillRunRequest req;
  req.ids = {"deaf"};
  const auto t0 = Clock::now();
  Result<SkillGraphResult> r = (*runner)->run(req, json::object());
  const auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0).count();
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->skills.at(0).status, SkillStatus::kFailed);
  EXPECT_EQ(r->skills.at(0).reason, "skill 'deaf' timed out after 200 ms (its timeoutMs)");
  EXPECT_GE(elapsed, 300);
  EXPECT_LT(elapsed, 1500);  // did not wait for the call
}

TEST(SkillGraphRunTest, SpansRecordTheRunAndEverySkill) {
  StoreOptions so;
  so.path = ":memory:";
  auto store = open_sqlite_store(so);
  ASSERT_TRUE(store.ok()) << store.status().to_string();
  RuleModel model(by_skill({{"extract", R"({"candidates": ["a"]})"}, {"score", R"({"scores": "not an array"})"}}));
  ExecutableSkill score = provider("score", "scores", {"extract"});
  score.manifest.output_schema = R"({"type":"object","properties":{"scores":{"type":"array"}}})";
  SkillRunnerOptions o;
  o.store = store->get();
  Result<SkillGraphResult> r = run_graph({provider("extract", "candidates"), score}, model, {"score"}, o);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->warnings.empty());
  auto spans = (*store)->list_spans(r->run_id);
  ASSERT_TRUE(spans.ok());
  ASSERT_EQ(spans->size(), 3u);
  std::map<std::string, SpanRecord> by_id;
  for (const SpanRecord& s : *spans) by_id[s.span_id] = s;
  const std::string root = "skills-" + r->run_id;
  ASSERT_EQ(by_id.count(root), 1u);
  EXPECT_EQ(by_id[root].kind, "skill_graph");
  EXPECT_EQ(by_id[root].status, "error");
  EXPECT_EQ(by_id[root].parent_span_id, "");
  EXPECT_EQ(json::parse(by_id[root].attributes)["failed"], 1);
  const SpanRecord& ex = by_id["skill-extract"];
  EXPECT_EQ(ex.kind, "skill");
  EXPECT_EQ(ex.name, "extract");
  EXPECT_EQ(ex.status, "succeeded");
  EXPECT_EQ(ex.parent_span_id, root);
  json ex_attrs = json::parse(ex.attributes);
  EXPECT_EQ(ex_attrs["backend"], "rule-model");
  EXPECT_EQ(ex_attrs["retries"], 0);
  EXPECT_EQ(ex_attrs["skipped"], false);
  const SpanRecord& sc = by_id["skill-score"];
  EXPECT_EQ(sc.status, "failed");
  json sc_attrs = json::parse(sc.attributes);
  EXPECT_EQ(sc_attrs["retries"], 1);
  EXPECT_EQ(sc_attrs["error"].get<std::string>().rfind("skill 'score': the output was rejected twice: ", 0), 0u);
}

TEST(SkillGraphRunTest, CreateRejectsUncompilableSkillsAndCycles) {
  RuleModel model(by_skill({}));
  ExecutableSkill bad = object_skill("bad", {"x"});
  bad.manifest.output_schema = "not json";
  auto r1 = SkillRunner::create({bad}, model, {});
  ASSERT_FALSE(r1.ok());
  EXPECT_EQ(r1.status().message().rfind("skill 'bad': outputSchema: ", 0), 0u) << r1.status().message();
  ExecutableSkill a = object_skill("a", {"x"}, {"b"});
  ExecutableSkill b = object_skill("b", {"x"}, {"a"});
  auto r2 = SkillRunner::create({a, b}, model, {});
  ASSERT_FALSE(r2.ok());
  EXPECT_EQ(r2.status().message(), "skill cycle: a → b → a");
  ExecutableSkill cond = object_skill("c", {"x"});
  cond.manifest.skip_when = {"sometimes"};
  auto r3 = SkillRunner::create({cond}, model, {});
  ASSERT_FALSE(r3.ok());
  EXPECT_EQ(r3.status().message(),
            "skill 'c': skipWhen 'sometimes' is not a condition: write \"no-KEY\" or \"has-KEY\"");
}

}  // namespace
}  // namespace keel
