// The autopilot's loop against a real store and real sources, with the work faked: a dropped file
// becomes one observation and one run; the same file again is de-duplicated; failures back off and
// stall; a restart takes up what a crash left; a removed file is dismissed; a broken source does
// not stop the others; the hourly cap holds work back visibly; feeds and commits are observed.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <utility>

#include "keel/autopilot.hpp"
#include "keel/store/sqlite_store.hpp"
#include "support/static_http_server.hpp"
#include "support/temp_dir.hpp"

namespace keel::testing {
namespace {

class AutopilotTest : public ::testing::Test {
 protected:
  AutopilotTest() {
    StoreOptions so;
    so.path = (db_dir_.path() / "keel.db").string();
    store_ = std::move(open_sqlite_store(so)).value();
    workspace_ = ws_.path().string();
    std::filesystem::create_directories(ws_.path() / "inbox");
    config_.configured = true;
    config_.backoff_ms = 0;
    config_.concurrency = 2;
    AutopilotSourceConfig inbox;
    inbox.name = "inbox";
    inbox.kind = "files";
    inbox.path = "inbox";
    inbox.globs = {"*.txt"};
    config_.sources.push_back(inbox);
    AutopilotTriggerConfig t;
    t.source = "*";
    t.skills = {"triage"};
    config_.triggers.push_back(t);
  }

  std::unique_ptr<Autopilot> make() {
    AutopilotOptions o;
    o.mcp_resources = mcp_;
    o.config = config_;
    o.workspace = workspace_;
    o.store = store_.get();
    o.work = [this](const Observation& ob, const AutopilotTriggerConfig&, std::stop_token) {
      std::lock_guard lock(mu_);
      worked_.push_back(ob.subject);
      return outcome_(ob);
    };
    o.on_event = [this](const AutopilotEvent& e) {
      std::lock_guard lock(mu_);
      events_.push_back(std::string(autopilot_event_name(e.kind)) + ":" + e.state + ":" + e.detail);
    };
    auto p = Autopilot::create(std::move(o));
    EXPECT_TRUE(p.ok()) << p.status().to_string();
    return p.ok() ? std::move(p).value() : nullptr;
  }

  std::vector<Observation> observations(std::optional<ObservationState> state = std::nullopt) {
    ObservationQuery q;
    q.state = state;
    q.limit = 0;
    q.oldest_first = true;
    return store_->list_observations(workspace_, q).value_or(std::vector<Observation>{});
  }
  nlohmann::json status() {
    auto doc = store_->get_daemon_status(workspace_, kAutopilotStatusName);
    return doc.ok() && doc->has_value() ? nlohmann::json::parse(**doc) : nlohmann::json();
  }
  bool saw_event(const std::string& prefix) {
    std::lock_guard lock(mu_);
    for (const std::string& e : events_) {
      if (e.rfind(prefix, 0) == 0) return true;
    }
    return false;
  }

  TempDir db_dir_, ws_;
  std::unique_ptr<Store> store_;
  std::string workspace_;
  AutopilotConfig config_;
  std::mutex mu_;
  std::vector<std::string> worked_;
  std::vector<std::string> events_;
  std::shared_ptr<McpResourceWatch> mcp_ = nullptr;
  std::function<ObservationOutcome(const Observation&)> outcome_ = [](const Observation&) {
    ObservationOutcome out;
    out.kind = ObservationOutcome::Kind::kDone;
    out.result = "triaged";
    out.proposals = 1;
    out.tokens = 10;
    return out;
  };
};

TEST_F(AutopilotTest, ADroppedFileIsObservedOnceAndProcessedOnce) {
  auto pilot = make();
  ASSERT_TRUE(pilot);
  ASSERT_TRUE(pilot->cycle(true).ok());  // the first scan: nothing yet
  ws_.write("inbox/report.txt", "quarterly numbers");
  ws_.write("inbox/ignored.bin", "not matched by the glob");
  auto m = pilot->cycle(true);
  ASSERT_TRUE(m.ok()) << m.status().to_string();
  EXPECT_EQ(m->seen, 1);
  EXPECT_EQ(m->processed, 1);
  EXPECT_EQ(m->proposals, 1);
  ASSERT_EQ(worked_.size(), 1u);
  EXPECT_EQ(worked_[0], "inbox/report.txt");
  auto all = observations();
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].state, ObservationState::kDone);
  EXPECT_EQ(all[0].result, "triaged");
  nlohmann::json payload = nlohmann::json::parse(all[0].payload);
  EXPECT_EQ(payload["text"], "quarterly numbers");
  EXPECT_EQ(payload["path"], "inbox/report.txt");

  // The same file written again: the same fingerprint, nothing new.
  ws_.write("inbox/report.txt", "quarterly numbers");
  m = pilot->cycle(true);
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->seen, 1);
  EXPECT_EQ(m->deduplicated, 1);
  EXPECT_EQ(worked_.size(), 1u);
  EXPECT_TRUE(saw_event("deduplicated"));
  // Changed content is a new observation.
  ws_.write("inbox/report.txt", "revised numbers");
  m = pilot->cycle(true);
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(worked_.size(), 2u);
  EXPECT_EQ(observations().size(), 2u);
  // Spend is recorded, status is kept, spans are stored.
  EXPECT_EQ(store_->spend_since(workspace_, "autopilot", 0)->tokens, 20);
  nlohmann::json st = status();
  EXPECT_EQ(st["processed"], 2);
  EXPECT_EQ(st["proposals"], 2);
  EXPECT_EQ(st["sources"][0]["ok"], true);
}

TEST_F(AutopilotTest, ThreeFailuresInARowStallTheObservation) {
  outcome_ = [](const Observation&) {
    ObservationOutcome out;
    out.kind = ObservationOutcome::Kind::kFailed;
    out.error = "skill triage failed: the model answered garbage";
    return out;
  };
  auto pilot = make();
  ws_.write("inbox/a.txt", "x");
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(pilot->cycle(true).ok());
  EXPECT_EQ(worked_.size(), 3u) << "no fourth attempt";
  auto stalled = observations(ObservationState::kStalled);
  ASSERT_EQ(stalled.size(), 1u);
  EXPECT_EQ(stalled[0].failures, 3);
  EXPECT_EQ(stalled[0].last_error, "skill triage failed: the model answered garbage");
  EXPECT_TRUE(saw_event("transition:stalled:stalled after 3 failures in a row"));
  EXPECT_EQ(status()["failed"], 3);
}

TEST_F(AutopilotTest, FailuresBackOffBeforeTheNextAttempt) {
  config_.backoff_ms = 60000;
  int calls = 0;
  outcome_ = [&calls](const Observation&) {
    ++calls;
    ObservationOutcome out;
    out.kind = ObservationOutcome::Kind::kFailed;
    out.error = "down";
    return out;
  };
  auto pilot = make();
  ws_.write("inbox/a.txt", "x");
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(pilot->cycle(true).ok());
  EXPECT_EQ(calls, 1) << "the retry waits a minute";
  auto pending = observations(ObservationState::kPending);
  ASSERT_EQ(pending.size(), 1u);
  EXPECT_GT(pending[0].next_attempt_ms, pending[0].updated_ms + 50000);
}

TEST_F(AutopilotTest, ARestartTakesUpWhatACrashLeftProcessing) {
  ws_.write("inbox/a.txt", "x");
  Observation left;
  left.workspace = workspace_;
  left.source = "inbox";
  left.fingerprint = "crashed-while-processing";
  left.kind = "file";
  left.subject = "left over";
  auto id = store_->add_observation(left);
  ASSERT_TRUE(id.ok() && id->has_value());
  ASSERT_TRUE(store_->move_observation(**id, ObservationState::kPending, {ObservationState::kProcessing}).ok());
  auto pilot = make();
  ASSERT_TRUE(pilot->cycle(true).ok());
  auto got = store_->get_observation(**id);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->state, ObservationState::kDone);
  EXPECT_TRUE(saw_event("transition:pending:taken up again after a restart"));
  // A second autopilot on the same store repeats nothing.
  const size_t before = worked_.size();
  pilot.reset();
  auto again = make();
  ASSERT_TRUE(again->cycle(true).ok());
  EXPECT_EQ(worked_.size(), before);
  EXPECT_EQ(observations(ObservationState::kDone).size(), 2u);
}

TEST_F(AutopilotTest, AFileRemovedBeforeProcessingIsDismissed) {
  Observation gone;
  gone.workspace = workspace_;
  gone.source = "inbox";
  gone.fingerprint = "file:0000";
  gone.kind = "file";
  gone.subject = "inbox/gone.txt";
  gone.payload = R"({"name":"gone.txt","path":"inbox/gone.txt"})";
  auto id = store_->add_observation(gone);
  ASSERT_TRUE(id.ok() && id->has_value());
  auto pilot = make();
  ASSERT_TRUE(pilot->cycle(true).ok());
  auto got = store_->get_observation(**id);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->state, ObservationState::kDismissed);
  EXPECT_NE(got->result.find("was removed or changed"), std::string::npos) << got->result;
  EXPECT_TRUE(worked_.empty());
}

TEST_F(AutopilotTest, BrokenSourcesReportTheirErrorAndTheOthersKeepRunning) {
  AutopilotSourceConfig missing;
  missing.name = "missing";
  missing.kind = "files";
  missing.path = "no-such-folder";
  config_.sources.push_back(missing);
  AutopilotSourceConfig not_a_folder;
  not_a_folder.name = "notafolder";
  not_a_folder.kind = "files";
  not_a_folder.path = "plain.txt";
  config_.sources.push_back(not_a_folder);
  AutopilotSourceConfig broken;
  broken.name = "broken";
  broken.kind = "files";
  broken.error = "/ws/keel.yaml: autopilot.sources[3] ('broken'): unknown key 'globb'";
  config_.sources.push_back(broken);
  AutopilotSourceConfig bad_cron;
  bad_cron.name = "badcron";
  bad_cron.kind = "schedule";
  bad_cron.cron = "61 * * * *";
  config_.sources.push_back(bad_cron);
  ws_.write("plain.txt", "a file, not a folder");
  auto pilot = make();
  ws_.write("inbox/a.txt", "x");
  ASSERT_TRUE(pilot->cycle(true).ok());
  ASSERT_TRUE(pilot->cycle(true).ok());
  EXPECT_EQ(worked_.size(), 1u) << "the good source still works";
  nlohmann::json st = status();
  ASSERT_EQ(st["sources"].size(), 5u);
  EXPECT_EQ(st["sources"][0]["ok"], true);
  EXPECT_EQ(st["sources"][1]["ok"], false);
  EXPECT_NE(st["sources"][1]["error"].get<std::string>().find("no-such-folder"), std::string::npos);
  EXPECT_NE(st["sources"][2]["error"].get<std::string>().find("it is not a folder"), std::string::npos);
  EXPECT_NE(st["sources"][3]["error"].get<std::string>().find("unknown key 'globb'"), std::string::npos);
  EXPECT_NE(st["sources"][4]["error"].get<std::string>().find("61"), std::string::npos)
      << st["sources"][4]["error"];
  EXPECT_TRUE(saw_event("source_error"));
}

TEST_F(AutopilotTest, TheHourlyCapHoldsWorkBackVisibly) {
  config_.max_tokens_per_hour = 100;
  ASSERT_TRUE(store_->record_spend({workspace_, "autopilot", 0, 150, 0}).ok());
  auto pilot = make();
  ws_.write("inbox/a.txt", "x");
  ASSERT_TRUE(pilot->cycle(true).ok());
  EXPECT_TRUE(worked_.empty());
  EXPECT_EQ(observations(ObservationState::kPending).size(), 1u) << "kept, not dropped";
  EXPECT_TRUE(saw_event("guard::hourly token cap 100 reached: 150 tokens in the last hour"));
  EXPECT_EQ(status()["guard"], "hourly token cap 100 reached: 150 tokens in the last hour");
}

TEST_F(AutopilotTest, RunStopsPromptlyAndMarksItselfStopped) {
  config_.interval_ms = 50;
  auto pilot = make();
  std::stop_source stop;
  std::thread t([&] { EXPECT_TRUE(pilot->run(stop.get_token()).ok()); });
  ws_.write("inbox/live.txt", "woken by inotify");
  for (int i = 0; i < 200 && worked_.size() < 1; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  stop.request_stop();
  t.join();
  EXPECT_EQ(worked_.size(), 1u);
  EXPECT_EQ(status()["running"], false);
}

TEST_F(AutopilotTest, CreateNeedsSourcesTriggersStoreAndWork) {
  AutopilotOptions o;
  o.config = config_;
  o.workspace = workspace_;
  EXPECT_EQ(Autopilot::create(o).status().code(), ErrorCode::kInvalidArgument);
  o.store = store_.get();
  EXPECT_EQ(Autopilot::create(o).status().code(), ErrorCode::kInvalidArgument);
  o.work = [](const Observation&, const AutopilotTriggerConfig&, std::stop_token) { return ObservationOutcome{}; };
  o.config.triggers.clear();
  EXPECT_NE(Autopilot::create(o).status().message().find("no triggers"), std::string::npos);
  o.config.sources.clear();
  EXPECT_NE(Autopilot::create(o).status().message().find("no sources"), std::string::npos);
}

constexpr const char* kFeed = R"(<?xml version="1.0"?>
<rss version="2.0"><channel><title>News</title>
<item><title>First</title><link>http://example.test/1</link><guid>urn:1</guid></item>
<item><title>Second</title><link>http://example.test/2</link><guid>urn:2</guid></item>
</channel></rss>)";

TEST_F(AutopilotTest, FeedItemsAreObservationsAndGarbageIsTheSourcesError) {
  StaticHttpServer server;
  server.route("/feed.xml", StaticRoute{200, "", {{"Content-Type", "application/rss+xml"}, {"ETag", "\"v1\""}}, kFeed});
  server.route("/garbage.xml", text_page("application/rss+xml", "{\"this\": \"is not a feed\"}"));
  config_.sources.clear();
  config_.sources.push_back({"news", "http", "", {}, "", server.url("/feed.xml"), "", "", 100, 5000, ""});
  config_.sources.push_back({"junk", "http", "", {}, "", server.url("/garbage.xml"), "", "", 100, 5000, ""});
  auto pilot = make();
  ASSERT_TRUE(pilot->cycle(true).ok());
  EXPECT_EQ(worked_.size(), 2u);
  EXPECT_EQ(observations().size(), 2u);
  nlohmann::json st = status();
  EXPECT_EQ(st["sources"][0]["ok"], true);
  EXPECT_EQ(st["sources"][1]["ok"], false);
  EXPECT_NE(st["sources"][1]["error"].get<std::string>().find("garbage.xml"), std::string::npos);
  // The next poll is conditional; the same items are de-duplicated.
  std::this_thread::sleep_for(std::chrono::milliseconds(120));
  auto m = pilot->cycle(true);
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->deduplicated, 2);
  bool conditional = false;
  for (const auto& r : server.requests()) {
    for (const auto& [name, value] : r.headers) {
      if (name == "if-none-match" && value == "\"v1\"") conditional = true;
    }
  }
  EXPECT_TRUE(conditional);
}

// MCP resources as a fake server shows them: content, whether it takes subscriptions, updates.
class FakeResources final : public McpResourceWatch {
 public:
  Result<std::string> read(const std::string& server, const std::string& uri, int64_t, std::stop_token) override {
    reads.push_back(server + " " + uri);
    if (fail) return Status::Unavailable("MCP server 'notes' is not connected");
    return content;
  }
  bool subscribe(const std::string&, const std::string& uri, std::stop_token) override {
    subscribed.push_back(uri);
    return offers_subscriptions;
  }
  bool take_update(const std::string&, const std::string&) override { return std::exchange(updated, false); }

  std::string content = "v1";
  bool fail = false;
  bool offers_subscriptions = false;
  bool updated = false;
  std::vector<std::string> reads, subscribed;
};

TEST_F(AutopilotTest, AnMcpResourceIsPolledWhenTheServerHasNoSubscriptions) {
  auto fake = std::make_shared<FakeResources>();
  mcp_ = fake;
  config_.sources.clear();
  config_.sources.push_back({"docs", "mcp", "", {}, "", "", "notes", "file:///a.md", 100, 5000, ""});
  auto pilot = make();
  ASSERT_TRUE(pilot->cycle(true).ok());
  std::this_thread::sleep_for(std::chrono::milliseconds(120));
  ASSERT_TRUE(pilot->cycle(true).ok());  // the same content: nothing new
  fake->content = "v2";
  std::this_thread::sleep_for(std::chrono::milliseconds(120));
  ASSERT_TRUE(pilot->cycle(true).ok());
  ASSERT_EQ(fake->reads.size(), 3u);
  EXPECT_EQ(fake->reads[0], "notes file:///a.md");
  EXPECT_EQ(fake->subscribed, std::vector<std::string>{"file:///a.md"}) << "asked once";
  auto all = observations();
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(nlohmann::json::parse(all[1].payload)["text"], "v2");
  fake->fail = true;
  std::this_thread::sleep_for(std::chrono::milliseconds(120));
  ASSERT_TRUE(pilot->cycle(true).ok());
  EXPECT_EQ(status()["sources"][0]["error"], "MCP server 'notes' is not connected");
}

TEST_F(AutopilotTest, ASubscribedMcpResourceIsReadWhenTheServerSaysItChanged) {
  auto fake = std::make_shared<FakeResources>();
  fake->offers_subscriptions = true;
  mcp_ = fake;
  config_.sources.clear();
  config_.sources.push_back({"docs", "mcp", "", {}, "", "", "notes", "file:///a.md", 100, 5000, ""});
  auto pilot = make();
  ASSERT_TRUE(pilot->cycle(true).ok());
  fake->content = "v2";
  for (int i = 0; i < 3; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(120));
    ASSERT_TRUE(pilot->cycle(true).ok());
  }
  EXPECT_EQ(fake->reads.size(), 1u) << "no polling while subscribed";
  fake->updated = true;  // notifications/resources/updated
  ASSERT_TRUE(pilot->cycle(true).ok());
  EXPECT_EQ(fake->reads.size(), 2u);
  auto all = observations();
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(nlohmann::json::parse(all[1].payload)["text"], "v2");
}

TEST_F(AutopilotTest, WithoutMcpServersAnMcpSourceSaysSo) {
  config_.sources.push_back({"docs", "mcp", "", {}, "", "", "notes", "file:///a.md", 100, 5000, ""});
  auto pilot = make();
  ASSERT_TRUE(pilot->cycle(true).ok());
  EXPECT_NE(status()["sources"][1]["error"].get<std::string>().find("no MCP servers"), std::string::npos);
}

TEST_F(AutopilotTest, NewCommitsAreObservations) {
  if (std::system("git --version > /dev/null 2>&1") != 0) GTEST_FAIL() << "git is needed (scripts/install-deps.sh)";
  const std::string repo = (ws_.path() / "repo").string();
  const std::string git = "git -c user.name=t -c user.email=t@example.test -C " + repo + " ";
  ASSERT_EQ(std::system(("git init -q " + repo + " && " + git + "commit -q --allow-empty -m first").c_str()), 0);
  config_.sources.clear();
  config_.sources.push_back({"repo", "git", "repo", {}, "", "", "", "", 100, 5000, ""});
  auto pilot = make();
  ASSERT_TRUE(pilot->cycle(true).ok());
  EXPECT_TRUE(observations().empty()) << "a new source starts at HEAD";
  ASSERT_EQ(std::system((git + "commit -q --allow-empty -m 'second commit'").c_str()), 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(120));
  ASSERT_TRUE(pilot->cycle(true).ok());
  auto all = observations();
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].subject, "second commit");
  EXPECT_EQ(all[0].kind, "git");
  // A restart remembers where it was: a commit made while stopped is still seen.
  pilot.reset();
  ASSERT_EQ(std::system((git + "commit -q --allow-empty -m 'while stopped'").c_str()), 0);
  auto again = make();
  ASSERT_TRUE(again->cycle(true).ok());
  all = observations();
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[1].subject, "while stopped");
}

}  // namespace
}  // namespace keel::testing
