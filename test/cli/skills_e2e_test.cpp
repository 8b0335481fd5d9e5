// End-to-end tests of the executable-skill commands in the keel binary: `keel skills run` against
// a scripted OpenAI-compatible mock server on 127.0.0.1 (status, metrics, outputs, retries, exit
// codes), and the proposal flow: proposals, approve, reject and autorun.
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
using testing::mock_tool_calls;

const json kSummaryOutput = {
    {"type", "object"}, {"required", {"summary"}}, {"properties", {{"summary", {{"type", "string"}}}}}};

class SkillsCliTest : public testing::StoreCliTest {
 protected:
  void SetUp() override {
    StoreCliTest::SetUp();
    ASSERT_TRUE(server_.running());
    // One attempt per request and short waits: backend failures show at once.
    ws_.write("keel.yaml", "retry:\n  max_attempts: 1\n");
    json summarize = {{"id", "summarize"},
                      {"description", "Summarize the text"},
                      {"inputSchema", {{"type", "object"}, {"required", {"text"}}}},
                      {"outputSchema", kSummaryOutput},
                      {"maxTokens", 64}};
    add_skill("summarize", summarize, "Summarize the input text in one line.");
    json write = {{"id", "write-note"},
                  {"outputSchema", {{"type", "object"}, {"required", {"summary", "file"}}}},
                  {"approvalMode", "proposal"},
                  {"action", {{"tool", "fs_write"}, {"argumentsPointer", "/file"}}}};
    add_skill("write-note", write, "Propose a note to write.");
    json auto_write = write;
    auto_write["id"] = "auto-note";
    auto_write["approvalMode"] = "auto-run-eligible";
    add_skill("auto-note", auto_write, "Write a note.");
  }

  void add_skill(const std::string& folder, const json& manifest, const std::string& md) {
    ws_.write(".keel/skills/" + folder + "/skill.json", manifest.dump(2));
    std::string text = "---\nname: ";
    text.append(folder).append("\n---\n").append(md).append("\n");
    ws_.write(".keel/skills/" + folder + "/SKILL.md", text);
  }

  CliRun skills(std::vector<std::string> args) {
    args.insert(args.begin(), "skills");
    return keel(args);
  }
  CliRun run_skill(std::vector<std::string> extra) {
    std::vector<std::string> args = {"run", "--model", "mock", "--base-url", server_.base_url()};
    args.insert(args.end(), extra.begin(), extra.end());
    return skills(args);
  }
  static std::string note_reply(const std::string& path, const std::string& content) {
    return json{{"summary", "write " + path}, {"file", {{"path", path}, {"content", content}}}}.dump();
  }

  testing::MockLlmServer server_;
};

TEST_F(SkillsCliTest, RunPrintsStatusMetricsAndTheOutput) {
  server_.push(mock_text(R"({"summary": "a short text"})"));
  CliRun r = run_skill({"summarize", "--input", R"({"text": "A short text about nothing."})"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  std::vector<std::string> lines = lines_of(r.out);
  ASSERT_GE(lines.size(), 2u) << r.out;
  EXPECT_EQ(lines[0].rfind("summarize: succeeded · openai-compatible", 0), 0u) << lines[0];
  EXPECT_NE(lines[0].find(" ms · 0 retries"), std::string::npos) << lines[0];
  EXPECT_NE(r.out.find("\"summary\": \"a short text\""), std::string::npos) << r.out;
  ASSERT_EQ(server_.request_count(), 1u);
  json body = json::parse(server_.request_bodies()[0]);
  EXPECT_EQ(body["max_tokens"], 64);
  EXPECT_EQ(body["messages"][0]["role"], "system");
  EXPECT_NE(body["messages"][0]["content"].get<std::string>().find("Summarize the input text in one line."),
            std::string::npos);
  EXPECT_EQ(body["messages"][0]["content"].get<std::string>().find("name: summarize"), std::string::npos);
  EXPECT_NE(body["messages"][1]["content"].get<std::string>().find("A short text about nothing."), std::string::npos);

  // --input @FILE reads the input from a file (relative to the current directory).
  ws_.write("input.json", R"({"text": "from a file"})");
  server_.push(mock_text(R"({"summary": "file"})"));
  CliRun from_file = run_skill({"summarize", "--input", "@input.json"});
  ASSERT_EQ(from_file.exit_code, 0) << from_file.err;
  ASSERT_EQ(server_.request_count(), 2u);
  EXPECT_NE(json::parse(server_.request_bodies()[1])["messages"][1]["content"].get<std::string>().find("from a file"),
            std::string::npos);
  CliRun no_file = run_skill({"summarize", "--input", "@missing.json"});
  EXPECT_EQ(no_file.exit_code, 2);
  EXPECT_NE(no_file.err.find("--input: cannot read the file 'missing.json'"), std::string::npos) << no_file.err;
}

TEST_F(SkillsCliTest, JsonLinesShowTheRetryAndTheFinalSummary) {
  server_.push(mock_text(R"({"summary": 5})"));
  server_.push(mock_text("```json\n{\"summary\": \"five\"}\n```"));
  CliRun r = run_skill({"summarize", "--json", "--input", R"({"text": "5"})"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  std::vector<std::string> lines = lines_of(r.out);
  ASSERT_EQ(lines.size(), 3u) << r.out;
  json started = json::parse(lines[0]);
  EXPECT_EQ(started["type"], "skill_started");
  EXPECT_EQ(started["skill"], "summarize");
  json finished = json::parse(lines[1]);
  EXPECT_EQ(finished["type"], "skill_finished");
  EXPECT_EQ(finished["status"], "succeeded");
  EXPECT_EQ(finished["retries"], 1);
  EXPECT_EQ(finished["skipped"], false);
  EXPECT_EQ(finished["output"], json({{"summary", "five"}}));
  EXPECT_EQ(finished["repairs"], json({"removed the ``` fence around the JSON"}));
  json done = json::parse(lines[2]);
  EXPECT_EQ(done["type"], "skills_finished");
  EXPECT_EQ(done["ok"], true);
  EXPECT_EQ(done["exit_code"], 0);
  EXPECT_EQ(done["run_id"], started["run_id"]);
  ASSERT_EQ(server_.request_count(), 2u);
  json retry = json::parse(server_.request_bodies()[1]);
  ASSERT_EQ(retry["messages"].size(), 4u);
  EXPECT_EQ(retry["messages"][2]["content"], R"({"summary": 5})");
  EXPECT_NE(retry["messages"][3]["content"].get<std::string>().find("/summary: expected string, got integer"),
            std::string::npos);
  // The run left its spans in the database.
  auto spans = store_->list_spans(started["run_id"].get<std::string>());
  ASSERT_TRUE(spans.ok());
  EXPECT_EQ(spans->size(), 2u);
}

TEST_F(SkillsCliTest, ExitCodesForBadInputLoadErrorsFailuresAndBackendErrors) {
  CliRun bad_input = run_skill({"summarize", "--input", R"({"txt": "typo"})"});
  EXPECT_EQ(bad_input.exit_code, 2);
  EXPECT_NE(bad_input.err.find("the input does not match the inputSchema of skill 'summarize': /text: missing required "
                               "property"),
            std::string::npos)
      << bad_input.err;
  CliRun not_json = run_skill({"summarize", "--input", "{oops"});
  EXPECT_EQ(not_json.exit_code, 2);
  CliRun unknown = run_skill({"nope"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("no executable skill 'nope'"), std::string::npos) << unknown.err;
  EXPECT_EQ(server_.request_count(), 0u);

  server_.push(mock_text("no json here"));
  server_.push(mock_text("still none"));
  CliRun failed = run_skill({"summarize", "--input", R"({"text": "x"})"});
  EXPECT_EQ(failed.exit_code, 3) << failed.out << failed.err;
  EXPECT_NE(failed.out.find("skill 'summarize': the output was rejected twice: the reply is not JSON"),
            std::string::npos)
      << failed.out;
  EXPECT_NE(failed.out.find("raw output: still none"), std::string::npos) << failed.out;

  server_.push(testing::mock_error(500, "model crashed"));
  CliRun backend = run_skill({"summarize", "--input", R"({"text": "x"})"});
  EXPECT_EQ(backend.exit_code, 4) << backend.out << backend.err;

  ws_.write(".keel/skills/broken/skill.json", R"({"id": "broken", "outputSchema": {}, "dependz": []})");
  ws_.write(".keel/skills/broken/SKILL.md", "x");
  CliRun load = run_skill({"summarize"});
  EXPECT_EQ(load.exit_code, 2);
  EXPECT_NE(load.err.find(".keel/skills/broken/skill.json: key 'dependz': is not a known key"), std::string::npos)
      << load.err;
}

TEST_F(SkillsCliTest, AProposalIsListedApprovedAndItsActionRuns) {
  server_.push(mock_text(note_reply("notes/todo.md", "buy milk")));
  CliRun r = run_skill({"write-note"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("action queued: fs_write"), std::string::npos) << r.out;
  EXPECT_FALSE(std::filesystem::exists(ws_.path() / "notes/todo.md"));

  CliRun list = skills({"proposals", "--json"});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  json proposals = json::parse(list.out);
  ASSERT_EQ(proposals.size(), 1u) << proposals;
  EXPECT_EQ(proposals[0]["skill"], "write-note");
  EXPECT_EQ(proposals[0]["status"], "pending");
  EXPECT_EQ(proposals[0]["tool"], "fs_write");
  EXPECT_EQ(proposals[0]["arguments"], json({{"path", "notes/todo.md"}, {"content", "buy milk"}}));
  EXPECT_EQ(proposals[0]["summary"], "write notes/todo.md");
  const std::string id = std::to_string(proposals[0]["id"].get<int64_t>());

  CliRun table = skills({"proposals"});
  ASSERT_EQ(table.exit_code, 0);
  ASSERT_EQ(lines_of(table.out).size(), 2u) << table.out;
  EXPECT_NE(lines_of(table.out)[1].find("write notes/todo.md"), std::string::npos);

  CliRun approve = skills({"approve", id});
  ASSERT_EQ(approve.exit_code, 0) << approve.out << approve.err;
  EXPECT_EQ(approve.out.rfind("proposal " + id + " executed: created notes/todo.md", 0), 0u) << approve.out;
  EXPECT_EQ(testing::read_file(ws_.path() / "notes/todo.md"), "buy milk");

  CliRun pending = skills({"proposals", "--json"});
  EXPECT_EQ(json::parse(pending.out), json::array());
  CliRun all = skills({"proposals", "--all", "--json"});
  json everything = json::parse(all.out);
  ASSERT_EQ(everything.size(), 1u);
  EXPECT_EQ(everything[0]["status"], "executed");
  EXPECT_NE(everything[0]["result"].get<std::string>().find("created notes/todo.md"), std::string::npos);

  CliRun twice = skills({"approve", id});
  EXPECT_EQ(twice.exit_code, 2);
  EXPECT_NE(twice.err.find("is executed, not pending"), std::string::npos) << twice.err;
  CliRun missing = skills({"approve", "999"});
  EXPECT_EQ(missing.exit_code, 1);
}

TEST_F(SkillsCliTest, ARejectedProposalNeverRuns) {
  server_.push(mock_text(note_reply("x.md", "nope")));
  ASSERT_EQ(run_skill({"write-note"}).exit_code, 0);
  json proposals = json::parse(skills({"proposals", "--json"}).out);
  ASSERT_EQ(proposals.size(), 1u);
  const std::string id = std::to_string(proposals[0]["id"].get<int64_t>());
  CliRun reject = skills({"reject", id, "--reason", "not now"});
  ASSERT_EQ(reject.exit_code, 0) << reject.err;
  EXPECT_EQ(reject.out, "proposal " + id + " rejected\n");
  json all = json::parse(skills({"proposals", "--all", "--json"}).out);
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0]["status"], "rejected");
  EXPECT_EQ(all[0]["result"], "not now");
  EXPECT_EQ(skills({"approve", id}).exit_code, 2);
  EXPECT_EQ(skills({"reject", "999"}).exit_code, 1);
  EXPECT_FALSE(std::filesystem::exists(ws_.path() / "x.md"));
}

TEST_F(SkillsCliTest, AutorunLetsAnEligibleSkillActWithoutAsking) {
  server_.push(mock_text(note_reply("first.md", "1")));
  CliRun off = run_skill({"auto-note"});
  ASSERT_EQ(off.exit_code, 0) << off.out << off.err;
  EXPECT_NE(off.out.find("auto-run is off for auto-note in this workspace"), std::string::npos) << off.out;
  EXPECT_FALSE(std::filesystem::exists(ws_.path() / "first.md"));

  CliRun on = skills({"autorun", "auto-note", "on"});
  ASSERT_EQ(on.exit_code, 0) << on.err;
  EXPECT_NE(on.out.find("auto-run of auto-note is on"), std::string::npos) << on.out;
  server_.push(mock_text(note_reply("second.md", "2")));
  CliRun ran = run_skill({"auto-note"});
  ASSERT_EQ(ran.exit_code, 0) << ran.out << ran.err;
  EXPECT_NE(ran.out.find("action executed: fs_write"), std::string::npos) << ran.out;
  EXPECT_EQ(testing::read_file(ws_.path() / "second.md"), "2");
  EXPECT_EQ(json::parse(skills({"proposals", "--json"}).out).size(), 1u);  // only the first run's

  EXPECT_EQ(skills({"autorun", "auto-note", "off"}).exit_code, 0);
  server_.push(mock_text(note_reply("third.md", "3")));
  ASSERT_EQ(run_skill({"auto-note"}).exit_code, 0);
  EXPECT_FALSE(std::filesystem::exists(ws_.path() / "third.md"));

  CliRun advisory = skills({"autorun", "summarize", "on"});
  EXPECT_EQ(advisory.exit_code, 2);
  EXPECT_NE(advisory.err.find("skill 'summarize' is advisory: only auto-run-eligible skills"), std::string::npos)
      << advisory.err;
  EXPECT_EQ(skills({"autorun", "ghost", "on"}).exit_code, 1);
  EXPECT_EQ(skills({"autorun", "auto-note", "maybe"}).exit_code, 2);
}

TEST_F(SkillsCliTest, TraceShowsASkillRunsSpans) {
  server_.push(mock_text(R"({"summary": "short"})"));
  CliRun r = run_skill({"summarize", "--input", R"({"text": "x"})"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const size_t at = r.err.find("sk_");
  ASSERT_NE(at, std::string::npos) << r.err;
  const std::string id = r.err.substr(at, r.err.find(' ', at) - at);
  CliRun trace = keel({"trace", id});
  ASSERT_EQ(trace.exit_code, 0) << trace.err;
  EXPECT_EQ(trace.out.rfind("trace " + id + "  skill run  2 spans", 0), 0u) << trace.out;
  EXPECT_NE(trace.out.find("summarize"), std::string::npos) << trace.out;
  CliRun otlp = keel({"trace", id, "--otlp"});
  ASSERT_EQ(otlp.exit_code, 0);
  json exported = json::parse(otlp.out, nullptr, false);
  ASSERT_FALSE(exported.is_discarded()) << otlp.out;
  EXPECT_TRUE(exported.contains("resourceSpans")) << otlp.out;
  CliRun missing = keel({"trace", "sk_0000000000000000"});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find("no skill run 'sk_0000000000000000'"), std::string::npos) << missing.err;
}

TEST_F(SkillsCliTest, AnAgentRunsAnExecutableSkillThroughRunSkill) {
  ToolCall call;
  call.id = "c1";
  call.name = "run_skill";
  call.arguments = json{{"id", "extract"},
                        {"input", {{"text", "Mail hello@agent.rs today."}, {"target", "email"}}}}.dump();
  server_.push(mock_tool_calls({call}));
  server_.push(mock_text(R"({"email": ["hello@agent.rs", "ghost@agent.rs"]})"));  // a made-up value
  server_.push(mock_text(R"({"email": ["hello@agent.rs"]})"));                    // the retry
  server_.push(mock_text("The address is hello@agent.rs."));
  CliRun r = keel({"run", "--model", "mock", "--base-url", server_.base_url(), "--json", "find the email"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  ASSERT_EQ(server_.request_count(), 4u);
  json first = json::parse(server_.request_bodies()[0]);
  bool offered = false;
  for (const json& t : first["tools"]) offered = offered || t["function"]["name"] == "run_skill";
  EXPECT_TRUE(offered);
  // The skill's retry shows the model the guard's finding; the agent gets the validated output.
  EXPECT_NE(server_.request_bodies()[2].find("HallucinationDetected: 'ghost@agent.rs' not found in source text"),
            std::string::npos)
      << server_.request_bodies()[2];
  json last = json::parse(server_.request_bodies()[3]);
  std::string tool_result;
  for (const json& m : last["messages"]) {
    if (m["role"] == "tool") tool_result = m["content"].get<std::string>();
  }
  EXPECT_NE(tool_result.find(R"("output":{"email":["hello@agent.rs"]})"), std::string::npos) << tool_result;
  EXPECT_NE(tool_result.find(R"("status":"succeeded")"), std::string::npos) << tool_result;
}

}  // namespace
}  // namespace keel
