// End-to-end tests of `keel sessions list|show|export|rm` and `keel fork`: a database filled
// through the Store API, read back through the real executable.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli/store_cli_fixture.hpp"

namespace keel {
namespace {

using nlohmann::json;
using testing::CliRun;
using testing::lines_of;
using testing::lines_with;

class SessionsE2eTest : public testing::StoreCliTest {
 protected:
  // A session with one finished run: a user task, a tool call, a long tool result and an answer.
  std::string conversation() {
    std::string sid = new_session("read the notes", workspace());
    std::string rid = new_run(sid, "what does a.txt say");
    append(sid, rid, Message::user("what does a.txt say"), 7);
    append(sid, rid, Message::assistant("", {{"c1", "fs_read", R"({"path":"a.txt"})"}}), 12);
    ToolResult r;
    r.call_id = "c1";
    r.name = "fs_read";
    r.content = "alpha\n" + std::string(1000, 'x') + "TAIL-MARKER";
    append(sid, rid, Message::tool(r), 300);
    append(sid, rid, Message::assistant("It says alpha."), 5);
    ToolRunRecord tr;
    tr.run_id = rid;
    tr.call_id = "c1";
    tr.tool = "fs_read";
    tr.raw_args = R"({"path":"a.txt"})";
    tr.resolved_args = R"({"path":"a.txt"})";
    tr.duration_ms = 3;
    tr.result = r.content;
    EXPECT_TRUE(store_->record_tool_run(tr).ok());
    RunUpdate u;
    u.state = RunState::kFinished;
    u.rounds = 2;
    u.usage = Usage{120, 40};
    u.answer = "It says alpha.";
    EXPECT_TRUE(store_->update_run(rid, u).ok());
    run_id_ = rid;
    return sid;
  }
  std::string run_id_;
};

TEST_F(SessionsE2eTest, ListShowsNewestFirstAndHidesSubAgentsUnlessAll) {
  std::string older = new_session("older task", workspace());
  clock_ += 60'000;
  std::string newer = new_session("newer task", "/elsewhere");
  std::string hidden = new_session("sub-agent work", workspace(), /*hidden=*/true);
  append(newer, "", Message::user("hi"));

  CliRun r = keel({"sessions", "list"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto lines = lines_of(r.out);
  ASSERT_EQ(lines.size(), 3u) << r.out;
  EXPECT_EQ(lines[0].find("ID"), 0u);
  for (const char* col : {"UPDATED", "MESSAGES", "MODEL", "TITLE"}) EXPECT_NE(lines[0].find(col), std::string::npos);
  EXPECT_EQ(lines[1].find(newer), 0u) << r.out;
  EXPECT_NE(lines[1].find("2023-11-14 22:14"), std::string::npos) << lines[1];
  EXPECT_NE(lines[1].find("newer task"), std::string::npos);
  EXPECT_EQ(lines[2].find(older), 0u);
  EXPECT_NE(lines[2].find("2023-11-14 22:13"), std::string::npos) << lines[2];
  EXPECT_EQ(r.out.find(hidden), std::string::npos);

  CliRun all = keel({"sessions", "list", "--all"});
  EXPECT_NE(all.out.find(hidden), std::string::npos) << all.out;

  CliRun limited = keel({"sessions", "list", "--limit", "1"});
  EXPECT_EQ(lines_of(limited.out).size(), 2u) << limited.out;

  CliRun here = keel({"sessions", "list", "--workspace", workspace(), "--json"});
  ASSERT_EQ(here.exit_code, 0) << here.err;
  json j = json::parse(here.out);
  ASSERT_TRUE(j.is_array());
  ASSERT_EQ(j.size(), 1u) << j;
  EXPECT_EQ(j[0]["id"], older);
  EXPECT_EQ(j[0]["workspace"], workspace());
  EXPECT_EQ(j[0]["model"], "openai/gpt-test");
  EXPECT_EQ(j[0]["hidden"], false);
  EXPECT_EQ(j[0]["created_ms"], kT0);
  EXPECT_EQ(j[0]["message_count"], 0);
}

TEST_F(SessionsE2eTest, ShowPrintsHeaderRunsAndMessagesWithToolResultsCut) {
  std::string sid = conversation();
  CliRun r = keel({"sessions", "show", sid});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("read the notes"), std::string::npos);
  EXPECT_NE(r.out.find(workspace()), std::string::npos);
  EXPECT_NE(r.out.find(run_id_), std::string::npos);
  ASSERT_EQ(lines_with(r.out, "finished").size(), 1u) << r.out;
  EXPECT_NE(lines_with(r.out, "finished")[0].find("answer: It says alpha."), std::string::npos);
  EXPECT_NE(r.out.find("→ fs_read {\"path\":\"a.txt\"}"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("[3] tool fs_read (ok, call c1)"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("TAIL-MARKER"), std::string::npos) << "tool result not cut";
  EXPECT_NE(r.out.find("more bytes cut"), std::string::npos);
  EXPECT_NE(r.out.find("It says alpha."), std::string::npos);

  CliRun j = keel({"sessions", "show", sid, "--json"});
  ASSERT_EQ(j.exit_code, 0) << j.err;
  json doc = json::parse(j.out);
  EXPECT_EQ(doc["session"]["id"], sid);
  EXPECT_EQ(doc["session"]["message_count"], 4);
  ASSERT_EQ(doc["runs"].size(), 1u);
  EXPECT_EQ(doc["runs"][0]["state"], "finished");
  EXPECT_EQ(doc["runs"][0]["usage"]["prompt_tokens"], 120);
  ASSERT_EQ(doc["messages"].size(), 4u);
  const json& call = doc["messages"][1];
  EXPECT_EQ(call["role"], "assistant");
  EXPECT_EQ(call["tool_calls"][0]["name"], "fs_read");
  EXPECT_EQ(call["tool_calls"][0]["arguments"], R"({"path":"a.txt"})");
  const json& result = doc["messages"][2];
  EXPECT_EQ(result["seq"], 3);
  EXPECT_EQ(result["run_id"], run_id_);
  EXPECT_EQ(result["tokens"], 300);
  EXPECT_EQ(result["metadata"]["status"], "ok");
  EXPECT_NE(result["content"].get<std::string>().find("TAIL-MARKER"), std::string::npos) << "--json is complete";
}

TEST_F(SessionsE2eTest, ExportJsonIsTheWholeSessionAndMarkdownIsATranscript) {
  std::string sid = conversation();
  CliRun r = keel({"sessions", "export", sid});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json doc = json::parse(r.out);
  EXPECT_EQ(doc["session"]["title"], "read the notes");
  ASSERT_EQ(doc["runs"].size(), 1u);
  EXPECT_EQ(doc["runs"][0]["answer"], "It says alpha.");
  ASSERT_EQ(doc["runs"][0]["tool_runs"].size(), 1u);
  EXPECT_EQ(doc["runs"][0]["tool_runs"][0]["tool"], "fs_read");
  EXPECT_EQ(doc["runs"][0]["tool_runs"][0]["status"], "ok");
  EXPECT_EQ(doc["runs"][0]["tool_runs"][0]["duration_ms"], 3);
  EXPECT_EQ(doc["messages"].size(), 4u);

  const std::string file = (ws_.path() / "out.md").string();
  CliRun md = keel({"sessions", "export", sid, "--format", "md", "--output", file});
  ASSERT_EQ(md.exit_code, 0) << md.err;
  EXPECT_TRUE(md.out.empty()) << md.out;
  std::string text = testing::read_file(file);
  EXPECT_EQ(text.find("# read the notes\n"), 0u) << text;
  const size_t user = text.find("## User\n\nwhat does a.txt say");
  const size_t call = text.find("### Tool call: fs_read");
  const size_t result = text.find("### Tool result: fs_read (ok)");
  const size_t answer = text.find("## Assistant\n\nIt says alpha.");
  ASSERT_NE(user, std::string::npos) << text;
  ASSERT_NE(call, std::string::npos) << text;
  ASSERT_NE(result, std::string::npos) << text;
  ASSERT_NE(answer, std::string::npos) << text;
  EXPECT_LT(user, call);
  EXPECT_LT(call, result);
  EXPECT_LT(result, answer);
  EXPECT_NE(text.find("```json\n{\n  \"path\": \"a.txt\"\n}\n```"), std::string::npos) << text;
  EXPECT_NE(text.find("TAIL-MARKER"), std::string::npos);

  CliRun bad = keel({"sessions", "export", sid, "--format", "pdf"});
  EXPECT_EQ(bad.exit_code, 2);
}

TEST_F(SessionsE2eTest, RmDeletesTheOthersWhenOneIdIsMissing) {
  std::string a = new_session("a", workspace());
  std::string b = new_session("b", workspace());
  const std::string missing = "s_00000000deadbeef";
  CliRun r = keel({"sessions", "rm", a, missing, b});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.out.find("deleted " + a), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("deleted " + b), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("keel: no session '" + missing + "'"), std::string::npos) << r.err;
  EXPECT_EQ(store_->get_session(a).status().code(), ErrorCode::kNotFound);
  EXPECT_EQ(store_->get_session(b).status().code(), ErrorCode::kNotFound);
}

TEST_F(SessionsE2eTest, MissingSessionIsExitOneAndMalformedIdExitTwo) {
  CliRun missing = keel({"sessions", "show", "s_0123456789abcdef"});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_EQ(missing.err.find("keel: no session"), 0u) << missing.err;
  CliRun malformed = keel({"sessions", "show", "../etc"});
  EXPECT_EQ(malformed.exit_code, 2);
  EXPECT_EQ(malformed.err.find("keel: "), 0u) << malformed.err;
  std::string keep = new_session("keep", workspace());
  CliRun bad_rm = keel({"sessions", "rm", keep, "nope"});
  EXPECT_EQ(bad_rm.exit_code, 2);
  EXPECT_TRUE(store_->get_session(keep).ok()) << "nothing is deleted on a usage error";
}

TEST_F(SessionsE2eTest, ForkPrintsOnlyTheNewIdAndRecordsTheParent) {
  std::string sid = conversation();
  CliRun r = keel({"fork", sid, "--at", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_EQ(r.out.size(), 35u) << r.out;  // "s_" + 32 hex + "\n"
  EXPECT_EQ(r.out.back(), '\n');
  const std::string fork = r.out.substr(0, r.out.size() - 1);
  EXPECT_NE(r.err.find(fork), std::string::npos) << r.err;
  auto copy = store_->get_session(fork);
  ASSERT_TRUE(copy.ok()) << copy.status().to_string();
  EXPECT_EQ(copy->parent_id, sid);
  EXPECT_EQ(copy->message_count, 2);

  CliRun shown = keel({"sessions", "show", fork, "--json"});
  EXPECT_EQ(json::parse(shown.out)["session"]["parent_id"], sid);
  EXPECT_EQ(keel({"fork", "s_00000000deadbeef"}).exit_code, 1);
}

TEST_F(SessionsE2eTest, CorruptDatabaseIsExitTwoNamingTheFileAndLeftUntouched) {
  store_.reset();
  std::filesystem::remove(db_path().string() + "-wal");
  std::filesystem::remove(db_path().string() + "-shm");
  const std::string garbage =
      "this is not a database, it is a text file that got in the way\n" + std::string(5000, 'z');
  home_.write("keel.db", garbage);
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"sessions", "list"}, {"sessions", "rm", "s_0123456789abcdef"}, {"fork", "s_0123456789abcdef"}}) {
    CliRun r = keel(args);
    EXPECT_EQ(r.exit_code, 2) << args[0] << ": " << r.err;
    EXPECT_EQ(r.err.find("keel: "), 0u) << r.err;
    EXPECT_NE(r.err.find(db_path().string()), std::string::npos) << r.err;
  }
  EXPECT_EQ(testing::read_file(db_path()), garbage);
}

}  // namespace
}  // namespace keel
