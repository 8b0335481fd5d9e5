// End-to-end: `keel autopilot` in the keel binary against a scripted OpenAI-compatible mock model
// on 127.0.0.1. A file dropped into the watched folder gives one observation, one skill run and
// one proposal; approving it carries the action out once; the same file again is de-duplicated;
// a skill that fails three times stalls its observation; every state survives the process (each
// command is a new process on the same database); the hourly cap holds work back visibly; bad
// source configuration is reported for that source while the others run.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli/store_cli_fixture.hpp"
#include "support/mock_llm_server.hpp"

namespace keel {
namespace {

using nlohmann::json;
using testing::CliRun;
using testing::lines_of;
using testing::mock_text;

class AutopilotCliTest : public testing::StoreCliTest {
 protected:
  void SetUp() override {
    StoreCliTest::SetUp();
    ASSERT_TRUE(server_.running());
    json write = {{"id", "write-note"},
                  {"outputSchema", {{"type", "object"}, {"required", {"summary", "file"}}}},
                  {"approvalMode", "proposal"},
                  {"action", {{"tool", "fs_write"}, {"argumentsPointer", "/file"}}}};
    ws_.write(".keel/skills/write-note/skill.json", write.dump(2));
    ws_.write(".keel/skills/write-note/SKILL.md", "---\nname: write-note\n---\nPropose a note about the file.\n");
    std::filesystem::create_directories(ws_.path() / "inbox");
    configure("");
  }

  void configure(const std::string& extra) {
    ws_.write("keel.yaml", "model: mock\nbase_url: " + server_.base_url() +
                               "\nretry: {max_attempts: 1}\n"
                               "autopilot:\n"
                               "  backoff_ms: 0\n" +
                               extra +
                               "  sources:\n"
                               "    - {name: inbox, files: inbox, glob: '*.txt'}\n"
                               "    - {name: broken, files: inbox, globb: '*'}\n"
                               "  triggers:\n"
                               "    - {source: inbox, skills: [write-note]}\n");
  }

  // One cycle, as JSON Lines events.
  std::vector<json> once() {
    CliRun r = keel({"autopilot", "run", "--once", "--json"});
    EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 3) << r.out << r.err;
    std::vector<json> events;
    for (const std::string& line : lines_of(r.out)) events.push_back(json::parse(line));
    last_exit_ = r.exit_code;
    return events;
  }
  static int count(const std::vector<json>& events, const std::string& type, const std::string& state = "") {
    int n = 0;
    for (const json& e : events) {
      if (e["type"] == type && (state.empty() || e.value("state", "") == state)) ++n;
    }
    return n;
  }
  static std::string note_reply(const std::string& path, const std::string& content) {
    return json{{"summary", "write " + path}, {"file", {{"path", path}, {"content", content}}}}.dump();
  }

  testing::MockLlmServer server_;
  int last_exit_ = 0;
};

TEST_F(AutopilotCliTest, ADroppedFileBecomesOneProposalCarriedOutOnce) {
  ws_.write("inbox/report.txt", "Q3 numbers are in");
  server_.push(mock_text(note_reply("notes/report.md", "summary of Q3")));
  std::vector<json> events = once();
  EXPECT_EQ(last_exit_, 0);
  EXPECT_EQ(count(events, "observed"), 1);
  EXPECT_EQ(count(events, "transition", "processing"), 1);
  EXPECT_EQ(count(events, "transition", "done"), 1);
  EXPECT_EQ(count(events, "source_error"), 1) << "the broken source is reported, the good one runs";
  ASSERT_EQ(server_.request_count(), 1u);
  EXPECT_NE(server_.request_bodies()[0].find("Q3 numbers are in"), std::string::npos) << "the file is the input";
  EXPECT_FALSE(std::filesystem::exists(ws_.path() / "notes/report.md")) << "a proposal waits for a person";

  json proposals = json::parse(keel({"skills", "proposals", "--json"}).out);
  ASSERT_EQ(proposals.size(), 1u) << proposals;
  EXPECT_EQ(proposals[0]["skill"], "write-note");
  const std::string id = std::to_string(proposals[0]["id"].get<int64_t>());
  CliRun approve = keel({"skills", "approve", id});
  ASSERT_EQ(approve.exit_code, 0) << approve.out << approve.err;
  EXPECT_EQ(testing::read_file(ws_.path() / "notes/report.md"), "summary of Q3");
  CliRun twice = keel({"skills", "approve", id});
  EXPECT_EQ(twice.exit_code, 2) << "carried out once";
  EXPECT_NE(twice.err.find("is executed, not pending"), std::string::npos) << twice.err;

  // The same file again, in a new process: de-duplicated, no model call, no new proposal.
  ws_.write("inbox/report.txt", "Q3 numbers are in");
  events = once();
  EXPECT_EQ(count(events, "deduplicated"), 1);
  EXPECT_EQ(count(events, "observed"), 0);
  EXPECT_EQ(server_.request_count(), 1u);
  EXPECT_EQ(json::parse(keel({"skills", "proposals", "--json"}).out).size(), 0u);

  CliRun status = keel({"autopilot", "status", "--json"});
  ASSERT_EQ(status.exit_code, 0) << status.err;
  json st = json::parse(status.out);
  EXPECT_EQ(st["counts"]["done"], 1);
  EXPECT_EQ(st["status"]["running"], false);
  EXPECT_EQ(st["status"]["sources"][1]["ok"], false);
  EXPECT_NE(st["status"]["sources"][1]["error"].get<std::string>().find("unknown key 'globb'"), std::string::npos);
  CliRun text = keel({"autopilot", "status"});
  EXPECT_NE(text.out.find("source broken"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("done 1"), std::string::npos) << text.out;
}

TEST_F(AutopilotCliTest, ASkillFailingThreeTimesStallsItsObservation) {
  ws_.write("inbox/bad.txt", "the model will not answer in JSON");
  for (int i = 0; i < 6; ++i) server_.push(mock_text("not json at all"));  // each attempt: a reply and its retry
  for (int i = 0; i < 3; ++i) {
    once();
    EXPECT_EQ(last_exit_, 3) << "attempt " << i + 1 << " failed";
  }
  once();  // a fourth cycle starts nothing
  EXPECT_EQ(server_.request_count(), 6u);
  CliRun list = keel({"autopilot", "observations", "--state", "stalled", "--json"});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  json stalled = json::parse(list.out);
  ASSERT_EQ(stalled.size(), 1u);
  EXPECT_EQ(stalled[0]["failures"], 3);
  EXPECT_EQ(stalled[0]["subject"], "inbox/bad.txt");
  EXPECT_NE(stalled[0]["last_error"].get<std::string>().find("write-note"), std::string::npos) << stalled[0];

  // retry makes it pending again, with its failures forgotten.
  const std::string id = std::to_string(stalled[0]["id"].get<int64_t>());
  CliRun retry = keel({"autopilot", "retry", id});
  ASSERT_EQ(retry.exit_code, 0) << retry.err;
  EXPECT_EQ(json::parse(keel({"autopilot", "observations", "--state", "pending", "--json"}).out).size(), 1u);
  EXPECT_EQ(keel({"autopilot", "retry", id}).exit_code, 2) << "only stalled or dismissed ones";
  EXPECT_EQ(keel({"autopilot", "retry", "99999"}).exit_code, 1);
}

TEST_F(AutopilotCliTest, TheHourlyTokenCapHoldsWorkBackVisibly) {
  configure("  budget: {max_tokens_per_hour: 10}\n");
  ws_.write("inbox/one.txt", "first");
  server_.push(mock_text(note_reply("one.md", "1")));  // 15 tokens: over the cap afterwards
  once();
  ws_.write("inbox/two.txt", "second");
  std::vector<json> events = once();
  EXPECT_EQ(server_.request_count(), 1u) << "the second observation waits";
  bool guard = false;
  for (const json& e : events) {
    if (e["type"] == "guard" && e["detail"] == "hourly token cap 10 reached: 15 tokens in the last hour") guard = true;
  }
  EXPECT_TRUE(guard) << lines_of(keel({"autopilot", "status"}).out).size();
  json st = json::parse(keel({"autopilot", "status", "--json"}).out);
  EXPECT_EQ(st["counts"]["pending"], 1);
  EXPECT_EQ(st["status"]["guard"], "hourly token cap 10 reached: 15 tokens in the last hour");
  EXPECT_NE(keel({"autopilot", "status"}).out.find("budget guard: hourly token cap 10"), std::string::npos);
}

TEST_F(AutopilotCliTest, RunsInTheForegroundUntilInterruptedAndExportsItsCycleSpans) {
  ws_.write("inbox/live.txt", "watch this");
  server_.push(mock_text(note_reply("notes/live.md", "seen")));
  const std::filesystem::path otlp = home_.path() / "otlp.jsonl";
  testing::CliOptions o;
  o.env["KEEL_HOME"] = home_.path().string();
  o.env["TZ"] = "UTC";
  o.env["KEEL_OTLP_FILE"] = otlp.string();
  o.cwd = workspace();
  // Interrupted once the proposal is stored: the loop ran a whole observation.
  o.interrupt_when = [this] {
    auto p = store_->list_skill_proposals(workspace(), std::nullopt);
    return p.ok() && !p->empty();
  };
  CliRun r = testing::run_cli(KEEL_BINARY, {"autopilot", "run", "--json"}, o);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  int done = 0;
  for (const std::string& line : lines_of(r.out)) {
    json e = json::parse(line);
    if (e["type"] == "transition" && e["state"] == "done") ++done;
  }
  EXPECT_EQ(done, 1) << r.out;
  json st = json::parse(keel({"autopilot", "status", "--json"}).out);
  EXPECT_EQ(st["status"]["running"], false) << "it recorded its stop";
  const std::string exported = testing::read_file(otlp);
  EXPECT_NE(exported.find("\"autopilot.cycle\""), std::string::npos) << exported.substr(0, 400);
  EXPECT_NE(exported.find("inbox/live.txt"), std::string::npos);
}

TEST_F(AutopilotCliTest, AnMcpResourceIsWatchedThroughItsServersSubscription) {
  // keel's own MCP server (keel mcp serve) offers a workspace's files as resources and sends
  // notifications/resources/updated to subscribers; the autopilot subscribes and reads on each one.
  testing::TempDir notes;
  notes.write("notes.md", "first draft");
  testing::TempDir config;
  const std::string uri = "file://" + std::filesystem::canonical(notes.path()).string() + "/notes.md";
  json servers = {{"notes", {{"command", KEEL_BINARY}, {"args", {"mcp", "serve", "-w", notes.path().string(), "--no-agent"}}}}};
  config.write("keel/config.yaml", "mcpServers: " + servers.dump() + "\n");
  ws_.write("keel.yaml", "model: mock\nbase_url: " + server_.base_url() +
                             "\nretry: {max_attempts: 1}\nautopilot:\n  interval_ms: 100\n  sources:\n"
                             "    - {name: docs, mcp: notes, uri: '" + uri + "', every_ms: 600000}\n"
                             "  triggers:\n    - {source: docs, skills: [write-note]}\n");
  server_.push(mock_text(note_reply("notes/one.md", "1")));
  server_.push(mock_text(note_reply("notes/two.md", "2")));
  testing::CliOptions o;
  o.env["KEEL_HOME"] = home_.path().string();
  o.env["XDG_CONFIG_HOME"] = config.path().string();
  o.env["TZ"] = "UTC";
  o.cwd = workspace();
  o.timeout_ms = 30000;
  bool edited = false;
  o.interrupt_when = [&] {
    auto done = store_->list_observations(workspace(), ObservationQuery{ObservationState::kDone, "", std::nullopt, 0});
    if (!done.ok()) return false;
    if (done->size() == 1 && !edited) {
      edited = true;
      notes.write("notes.md", "second draft");  // the server notices within a second and notifies
    }
    return done->size() >= 2;
  };
  CliRun r = testing::run_cli(KEEL_BINARY, {"autopilot", "run", "--json"}, o);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  json list = json::parse(keel({"autopilot", "observations", "--json"}).out);
  ASSERT_EQ(list.size(), 2u) << r.out << r.err;
  EXPECT_EQ(list[0]["payload"]["text"], "second draft");
  EXPECT_EQ(list[1]["payload"]["text"], "first draft");
  EXPECT_EQ(list[0]["kind"], "mcp");
  EXPECT_EQ(server_.request_count(), 2u);
}

TEST_F(AutopilotCliTest, ThePerAttemptTokenCapStopsAnAttemptVisibly) {
  configure("  max_failures: 1\n  budget: {max_tokens_per_run: 10}\n");
  ws_.write("inbox/a.txt", "x");
  // The first reply (15 tokens) does not fit the schema; its retry would pass the cap, so it is refused.
  server_.push(mock_text("not json"));
  server_.push(mock_text(note_reply("never.md", "never")));
  std::vector<json> events = once();
  EXPECT_EQ(last_exit_, 3);
  EXPECT_EQ(server_.request_count(), 1u) << "the capped call never reached the model";
  json stalled = json::parse(keel({"autopilot", "observations", "--state", "stalled", "--json"}).out);
  ASSERT_EQ(stalled.size(), 1u);
  EXPECT_NE(stalled[0]["last_error"].get<std::string>().find("run token cap 10 reached"), std::string::npos)
      << stalled[0]["last_error"];
  EXPECT_EQ(json::parse(keel({"skills", "proposals", "--json"}).out).size(), 0u);
}

TEST_F(AutopilotCliTest, ATaskTriggerRunsAnAgentWhoseSessionIsKept) {
  ws_.write("keel.yaml", "model: mock\nbase_url: " + server_.base_url() +
                             "\nretry: {max_attempts: 1}\nautopilot:\n  sources:\n"
                             "    - {name: inbox, files: inbox}\n"
                             "  triggers:\n    - {source: inbox, task: 'Summarise {{subject}} from {{source}}'}\n");
  ws_.write("inbox/memo.txt", "the memo");
  server_.push(mock_text("The memo says hello."));
  std::vector<json> events = once();
  EXPECT_EQ(last_exit_, 0);
  ASSERT_EQ(server_.request_count(), 1u);
  json body = json::parse(server_.request_bodies()[0]);
  EXPECT_NE(body.dump().find("Summarise inbox/memo.txt from inbox"), std::string::npos) << body.dump().substr(0, 600);
  json done = json::parse(keel({"autopilot", "observations", "--state", "done", "--json"}).out);
  ASSERT_EQ(done.size(), 1u);
  const std::string result = done[0]["result"];
  EXPECT_NE(result.find("The memo says hello."), std::string::npos) << result;
  // The agent's session is stored like any run's: `keel sessions` lists it.
  const size_t at = result.find("session ");
  ASSERT_NE(at, std::string::npos) << result;
  const std::string session = result.substr(at + 8, result.find(' ', at + 8) - at - 8);
  CliRun shown = keel({"sessions", "show", session});
  EXPECT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_NE(shown.out.find("The memo says hello."), std::string::npos) << shown.out;
}

TEST_F(AutopilotCliTest, UsageErrors) {
  ws_.write("keel.yaml", "model: rules\n");
  CliRun none = keel({"autopilot", "run", "--once"});
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.err.find("no autopilot is configured"), std::string::npos) << none.err;
  ws_.write("keel.yaml", "autopilot: {interval_ms: nope}\n");
  CliRun bad = keel({"autopilot", "run", "--once"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("autopilot.interval_ms must be a whole number"), std::string::npos) << bad.err;
  EXPECT_EQ(keel({"autopilot", "observations", "--state", "sleeping"}).exit_code, 2);
  CliRun never = keel({"autopilot", "status"});
  EXPECT_EQ(never.exit_code, 0);
  EXPECT_NE(never.out.find("never ran"), std::string::npos) << never.out;
}

}  // namespace
}  // namespace keel
