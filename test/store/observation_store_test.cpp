// The autopilot's tables in the SQLite store: observations unique by fingerprint per source,
// moves only from the state the mover saw (so two workers never take one observation), counts,
// spend sums over a time window, daemon status documents, workspace scoping and persistence.
#include <atomic>
#include <thread>

#include "store_test_util.hpp"

namespace keel::testing {
namespace {

class ObservationStoreTest : public StoreTest {
 protected:
  Observation make(const std::string& fingerprint, const std::string& source = "inbox", const std::string& ws = "/ws") {
    Observation o;
    o.workspace = ws;
    o.source = source;
    o.fingerprint = fingerprint;
    o.kind = "file";
    o.subject = "inbox/" + fingerprint;
    o.payload = R"({"name":")" + fingerprint + R"("})";
    return o;
  }
  int64_t add(const Observation& o) {
    auto r = store_->add_observation(o);
    EXPECT_TRUE(r.ok()) << r.status().to_string();
    EXPECT_TRUE(r.ok() && r->has_value());
    return r.ok() && r->has_value() ? **r : 0;
  }
};

TEST_P(ObservationStoreTest, AddsOnceAndDeduplicatesByFingerprintPerSource) {
  clock_ = 1000;
  const int64_t id = add(make("a"));
  auto again = store_->add_observation(make("a"));
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(again->has_value());
  // Another source or another workspace may hold the same fingerprint.
  add(make("a", "other"));
  add(make("a", "inbox", "/elsewhere"));
  auto got = store_->get_observation(id);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->state, ObservationState::kPending);
  EXPECT_EQ(got->subject, "inbox/a");
  EXPECT_EQ(got->created_ms, 1000);
  EXPECT_EQ(got->updated_ms, 1000);
  // A finished observation is still a duplicate.
  KEEL_ASSERT_OK(store_->move_observation(id, ObservationState::kPending, {ObservationState::kProcessing}));
  KEEL_ASSERT_OK(store_->move_observation(id, ObservationState::kProcessing, {ObservationState::kDone, 0, "", "ok", 0}));
  auto third = store_->add_observation(make("a"));
  ASSERT_TRUE(third.ok());
  EXPECT_FALSE(third->has_value());
}

TEST_P(ObservationStoreTest, RejectsBadInput) {
  Observation o = make("x");
  o.fingerprint = "";
  EXPECT_EQ(store_->add_observation(o).status().code(), ErrorCode::kInvalidArgument);
  o = make("x");
  o.source = "";
  EXPECT_EQ(store_->add_observation(o).status().code(), ErrorCode::kInvalidArgument);
  o = make("x");
  o.payload = "[1,2]";
  auto r = store_->add_observation(o);
  EXPECT_EQ(r.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("JSON object"), std::string::npos);
  EXPECT_EQ(store_->get_observation(4242).status().code(), ErrorCode::kNotFound);
}

TEST_P(ObservationStoreTest, MovesOnlyFromTheStateTheMoverSaw) {
  const int64_t id = add(make("a"));
  KEEL_ASSERT_OK(store_->move_observation(id, ObservationState::kPending, {ObservationState::kProcessing}));
  Status second = store_->move_observation(id, ObservationState::kPending, {ObservationState::kProcessing});
  EXPECT_EQ(second.code(), ErrorCode::kFailedPrecondition);
  EXPECT_NE(second.message().find("is processing, not pending"), std::string::npos) << second.message();
  clock_ = 5000;
  KEEL_ASSERT_OK(store_->move_observation(
      id, ObservationState::kProcessing, {ObservationState::kPending, 1, "skill triage failed", "", 7000}));
  auto got = store_->get_observation(id);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->failures, 1);
  EXPECT_EQ(got->last_error, "skill triage failed");
  EXPECT_EQ(got->next_attempt_ms, 7000);
  EXPECT_EQ(got->updated_ms, 5000);
  EXPECT_EQ(store_->move_observation(999, ObservationState::kPending, {}).code(), ErrorCode::kNotFound);
}

TEST_P(ObservationStoreTest, ConcurrentTakersTakeEachObservationOnce) {
  std::vector<int64_t> ids;
  for (int i = 0; i < 20; ++i) ids.push_back(add(make("f" + std::to_string(i))));
  std::atomic<int> taken{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int64_t id : ids) {
        if (store_->move_observation(id, ObservationState::kPending, {ObservationState::kProcessing}).ok()) ++taken;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(taken.load(), 20);
}

TEST_P(ObservationStoreTest, ListsByStateSourceAndDueTime) {
  const int64_t a = add(make("a"));
  const int64_t b = add(make("b"));
  const int64_t c = add(make("c", "feed"));
  KEEL_ASSERT_OK(store_->move_observation(b, ObservationState::kPending, {ObservationState::kPending, 1, "e", "", 9000}));
  ObservationQuery due;
  due.state = ObservationState::kPending;
  due.due_by_ms = 5000;
  due.oldest_first = true;
  auto list = store_->list_observations("/ws", due);
  ASSERT_TRUE(list.ok());
  ASSERT_EQ(list->size(), 2u);
  EXPECT_EQ((*list)[0].id, a);
  EXPECT_EQ((*list)[1].id, c);
  ObservationQuery by_source;
  by_source.source = "feed";
  list = store_->list_observations("/ws", by_source);
  ASSERT_TRUE(list.ok());
  ASSERT_EQ(list->size(), 1u);
  EXPECT_EQ((*list)[0].id, c);
  ObservationQuery newest;
  newest.limit = 2;
  list = store_->list_observations("/ws", newest);
  ASSERT_TRUE(list.ok());
  ASSERT_EQ(list->size(), 2u);
  EXPECT_EQ((*list)[0].id, c);
  EXPECT_TRUE(store_->list_observations("/other", newest)->empty());
  KEEL_ASSERT_OK(store_->move_observation(a, ObservationState::kPending, {ObservationState::kStalled, 3, "x", "", 0}));
  auto counts = store_->count_observations("/ws");
  ASSERT_TRUE(counts.ok());
  std::vector<std::pair<ObservationState, int64_t>> want = {{ObservationState::kPending, 2},
                                                            {ObservationState::kStalled, 1}};
  EXPECT_EQ(*counts, want);
}

TEST_P(ObservationStoreTest, SpendSumsWithinTheWindowAndScope) {
  KEEL_ASSERT_OK(store_->record_spend({"/ws", "autopilot", 1000, 100, 0.5}));
  KEEL_ASSERT_OK(store_->record_spend({"/ws", "autopilot", 2000, 50, 0.25}));
  KEEL_ASSERT_OK(store_->record_spend({"/ws", "other", 2000, 7, 0}));
  KEEL_ASSERT_OK(store_->record_spend({"/x", "autopilot", 2000, 9, 0}));
  auto all = store_->spend_since("/ws", "autopilot", 0);
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->tokens, 150);
  EXPECT_DOUBLE_EQ(all->cost, 0.75);
  auto recent = store_->spend_since("/ws", "autopilot", 1500);
  ASSERT_TRUE(recent.ok());
  EXPECT_EQ(recent->tokens, 50);
  auto none = store_->spend_since("/ws", "autopilot", 5000);
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->tokens, 0);
  EXPECT_EQ(store_->record_spend({"/ws", "autopilot", 0, -1, 0}).code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(store_->record_spend({"/ws", "", 0, 1, 0}).code(), ErrorCode::kInvalidArgument);
}

TEST_P(ObservationStoreTest, DaemonStatusIsReplacedAndSurvivesReopening) {
  auto none = store_->get_daemon_status("/ws", "autopilot");
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
  KEEL_ASSERT_OK(store_->put_daemon_status("/ws", "autopilot", R"({"cycles":1})"));
  KEEL_ASSERT_OK(store_->put_daemon_status("/ws", "autopilot", R"({"cycles":2})"));
  EXPECT_EQ(store_->put_daemon_status("/ws", "autopilot", "not json").code(), ErrorCode::kInvalidArgument);
  const int64_t id = add(make("kept"));
  reopen();
  auto got = store_->get_daemon_status("/ws", "autopilot");
  ASSERT_TRUE(got.ok());
  ASSERT_TRUE(got->has_value());
  EXPECT_EQ(**got, R"({"cycles":2})");
  EXPECT_FALSE(store_->get_daemon_status("/other", "autopilot")->has_value());
  EXPECT_TRUE(store_->get_observation(id).ok());
}

TEST(ObservationStateNames, RoundTrip) {
  for (ObservationState s : {ObservationState::kPending, ObservationState::kProcessing, ObservationState::kDone,
                             ObservationState::kDismissed, ObservationState::kStalled}) {
    EXPECT_EQ(parse_observation_state(observation_state_name(s)), s);
  }
  EXPECT_FALSE(parse_observation_state("paused").has_value());
}

KEEL_STORE_ENGINES(ObservationStoreTest);

}  // namespace
}  // namespace keel::testing
