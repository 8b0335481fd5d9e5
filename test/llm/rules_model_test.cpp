// The rules model as an LlmClient: the tool call it asks for, the answer it builds from a tool
// result, and its plain "cannot handle" reply.
#include "keel/rules_model.hpp"

#include <gtest/gtest.h>

#include <stop_token>
#include <string>
#include <vector>

namespace keel {
namespace {

ToolSpec spec(std::string name) {
  ToolSpec s;
  s.name = std::move(name);
  return s;
}

// A conversation plus the tools offered; request() borrows both.
class RulesModelTest : public ::testing::Test {
 protected:
  RulesModelTest() {
    for (const char* name : {"fs_list", "fs_read", "fs_search", "fs_stat", "get_datetime", "shell"}) {
      tools.push_back(spec(name));
    }
  }

  void ask(std::string task) {
    history.push_back(Message::system("You are keel."));
    history.push_back(Message::user(std::move(task)));
  }

  // Appends the assistant's call and a tool result answering it.
  void answer_call(const ToolCall& call, std::string content, ToolStatus status = ToolStatus::kOk) {
    history.push_back(Message::assistant("", {call}));
    ToolResult r;
    r.call_id = call.id;
    r.name = call.name;
    r.status = status;
    r.content = std::move(content);
    history.push_back(Message::tool(r));
  }

  ModelRequest request() const {
    ModelRequest req;
    req.history = history;
    req.tools = tools;
    return req;
  }

  ModelReply complete(const ModelRequest& req, CallOptions options = {}) {
    Result<ModelReply> r = model->complete(req, options);
    EXPECT_TRUE(r.ok()) << r.status().to_string();
    return r.ok() ? r.value() : ModelReply{};
  }
  ModelReply complete() { return complete(request()); }

  // Asks `task`, checks the one call it makes, answers it with `output`, returns the final text.
  std::string run(const std::string& task, const std::string& tool, const std::string& args, const std::string& output,
                  ToolStatus status = ToolStatus::kOk) {
    ask(task);
    ModelReply first = complete();
    EXPECT_EQ(first.text, "");
    EXPECT_EQ(first.finish_reason, "tool_calls");
    if (first.tool_calls.size() != 1) {
      ADD_FAILURE() << "expected one tool call for: " << task;
      return {};
    }
    const ToolCall& call = first.tool_calls[0];
    EXPECT_EQ(call.id, "rules_1");
    EXPECT_EQ(call.name, tool) << task;
    EXPECT_EQ(call.arguments, args) << task;
    answer_call(call, output, status);
    ModelReply second = complete();
    EXPECT_TRUE(second.tool_calls.empty());
    EXPECT_EQ(second.finish_reason, "stop");
    return second.text;
  }

  std::unique_ptr<LlmClient> model = make_rules_model();
  std::vector<Message> history;
  std::vector<ToolSpec> tools;
};

TEST_F(RulesModelTest, Describes) { EXPECT_EQ(model->describe(), "rules (deterministic, no model)"); }

TEST_F(RulesModelTest, ListsFiles) {
  EXPECT_EQ(run("list the files in src", "fs_list", R"({"path":"src"})", "a.cpp\nb.cpp\n"),
            "Files in src:\na.cpp\nb.cpp");
}

TEST_F(RulesModelTest, ListsTheWorkspaceByDefault) {
  EXPECT_EQ(run("what files are here?", "fs_list", R"({"path":"."})", "README.md\n"),
            "Files in the workspace:\nREADME.md");
}

TEST_F(RulesModelTest, ListingAnEmptyDirectory) {
  EXPECT_EQ(run("ls docs", "fs_list", R"({"path":"docs"})", ""), "docs is empty.");
}

TEST_F(RulesModelTest, ReadsAFile) {
  EXPECT_EQ(run("read README.md", "fs_read", R"({"path":"README.md"})", "# keel\nhello\n"),
            "Contents of README.md:\n# keel\nhello");
}

TEST_F(RulesModelTest, SearchesWithAnEscapedLiteral) {
  EXPECT_EQ(
      run("find 'a.b(c)' in src", "fs_search", R"j({"path":"src","pattern":"a\\.b\\(c\\)"})j", "src/x.cpp:3: a.b(c)\n"),
      "Matches for 'a.b(c)' in src:\nsrc/x.cpp:3: a.b(c)");
}

TEST_F(RulesModelTest, SearchWithNoMatches) {
  EXPECT_EQ(run("search for TODO", "fs_search", R"({"path":".","pattern":"TODO"})", ""),
            "No matches for 'TODO' in the workspace.");
}

TEST_F(RulesModelTest, CountsLines) {
  EXPECT_EQ(run("how many lines does README.md have?", "fs_read", R"({"path":"README.md"})", "a\nb\nc\n"),
            "README.md has 3 lines.");
}

TEST_F(RulesModelTest, CountsOneLineAndAnEmptyFile) {
  EXPECT_EQ(run("count lines in a.txt", "fs_read", R"({"path":"a.txt"})", "only"), "a.txt has 1 line.");
  history.clear();
  EXPECT_EQ(run("count lines in b.txt", "fs_read", R"({"path":"b.txt"})", ""), "b.txt has 0 lines.");
}

TEST_F(RulesModelTest, TellsTheTimeFromPlainOutput) {
  EXPECT_EQ(run("what time is it", "get_datetime", "{}", "2025-03-01T09:30:00+01:00\n"),
            "It is 2025-03-01T09:30:00+01:00.");
}

TEST_F(RulesModelTest, TellsTheTimeFromGetDatetimeFields) {
  EXPECT_EQ(run("what's the date today?", "get_datetime", "{}",
                "local: 2025-03-01T09:30:00+01:00\nutc: 2025-03-01T08:30:00Z\nunix: 1740817800\n"
                "weekday: Saturday\ntimezone: Europe/Paris (CET, UTC+01:00)\n"),
            "It is Saturday, 2025-03-01T09:30:00+01:00, time zone Europe/Paris (CET, UTC+01:00).");
}

TEST_F(RulesModelTest, CountsAnEmptyFileMarker) {
  EXPECT_EQ(run("count lines in e.txt", "fs_read", R"({"path":"e.txt"})", "[empty file: 0 bytes]"),
            "e.txt has 0 lines.");
}

TEST_F(RulesModelTest, CountOfACutReadSaysAtLeast) {
  EXPECT_EQ(run("count lines in big.log", "fs_read", R"({"path":"big.log"})",
                "a\nb\n[output truncated at 4 bytes: showing lines 1-2; use offset_line=3 to read on]"),
            "big.log has at least 2 lines (fs_read returned only part of it, so the exact count is unknown).");
}

TEST_F(RulesModelTest, RephrasesOneLineToolSummaries) {
  EXPECT_EQ(run("ls docs", "fs_list", R"({"path":"docs"})", "docs/ is empty"), "docs/ is empty.");
  history.clear();
  EXPECT_EQ(run("grep zzz", "fs_search", R"({"path":".","pattern":"zzz"})", "no matches for 'zzz' in 3 files under ."),
            "No matches for 'zzz' in the workspace.");
  history.clear();
  EXPECT_EQ(run("cat e.txt", "fs_read", R"({"path":"e.txt"})", "[empty file: 0 bytes]"), "e.txt is empty.");
}

TEST_F(RulesModelTest, ReportsAFailedCallHonestly) {
  EXPECT_EQ(run("read missing.txt", "fs_read", R"({"path":"missing.txt"})", "cannot read 'missing.txt': no such file",
                ToolStatus::kError),
            "The fs_read call failed: cannot read 'missing.txt': no such file");
}

TEST_F(RulesModelTest, ReportsADeniedCall) {
  EXPECT_EQ(run("ls", "fs_list", R"({"path":"."})", "denied by policy", ToolStatus::kDenied),
            "The fs_list call failed: denied by policy");
}

TEST_F(RulesModelTest, CannotHandleUnknownRequests) {
  ask("write me a poem about the sea");
  ModelReply reply = complete();
  EXPECT_EQ(reply.text, kRulesModelCannotHandle);
  EXPECT_TRUE(reply.tool_calls.empty());
  EXPECT_EQ(reply.finish_reason, "stop");
  EXPECT_NE(reply.text.find("--model ollama/qwen2.5:7b"), std::string::npos);
}

TEST_F(RulesModelTest, CannotHandleWhenTheToolIsNotOffered) {
  tools = {spec("fs_list")};
  ask("read README.md");
  EXPECT_EQ(complete().text, kRulesModelCannotHandle);
}

TEST_F(RulesModelTest, CannotHandleWhenToolsAreDisabled) {
  ask("ls");
  ModelRequest req = request();
  req.tools_enabled = false;
  EXPECT_EQ(complete(req).text, kRulesModelCannotHandle);
}

TEST_F(RulesModelTest, AnswersFromTheResultOnTheFinalRound) {
  ask("ls");
  answer_call(ToolCall{"rules_1", "fs_list", R"({"path":"."})"}, "a\n");
  ModelRequest req = request();
  req.final_round = true;
  req.tools_enabled = false;
  req.tools = {};
  ModelReply reply = complete(req);
  EXPECT_EQ(reply.text, "Files in the workspace:\na");
  EXPECT_TRUE(reply.tool_calls.empty());
}

TEST_F(RulesModelTest, StreamsTheFinalTextInOneCall) {
  ask("ls");
  std::vector<std::string> chunks;
  CallOptions options;
  options.on_text = [&](std::string_view t) { chunks.emplace_back(t); };
  complete(request(), options);
  EXPECT_TRUE(chunks.empty());  // a tool call carries no text
  answer_call(ToolCall{"rules_1", "fs_list", R"({"path":"."})"}, "a\n");
  ModelReply reply = complete(request(), options);
  ASSERT_EQ(chunks.size(), 1u);
  EXPECT_EQ(chunks[0], reply.text);
}

TEST_F(RulesModelTest, ContinuationPromptsDoNotChangeTheTask) {
  ask("count lines in a.txt");
  answer_call(ToolCall{"rules_1", "fs_read", R"({"path":"a.txt"})"}, "x\ny\n");
  ModelRequest req = request();
  req.appended.push_back(Message::user("Continue: answer the task."));
  EXPECT_EQ(complete(req).text, "a.txt has 2 lines.");
}

TEST_F(RulesModelTest, ASecondTurnStartsAfterTheLastAnswer) {
  ask("ls");
  answer_call(ToolCall{"rules_1", "fs_list", R"({"path":"."})"}, "a\n");
  history.push_back(Message::assistant("Files in the workspace:\na"));
  history.push_back(Message::user("what time is it"));
  ModelReply reply = complete();
  ASSERT_EQ(reply.tool_calls.size(), 1u);
  EXPECT_EQ(reply.tool_calls[0].name, "get_datetime");
}

TEST_F(RulesModelTest, ReplacedHistoryIsWhatCounts) {
  ask("write a poem");
  ModelRequest req = request();
  req.replaced_history = std::vector<Message>{Message::user("cat notes.txt")};
  ModelReply reply = complete(req);
  ASSERT_EQ(reply.tool_calls.size(), 1u);
  EXPECT_EQ(reply.tool_calls[0].arguments, R"({"path":"notes.txt"})");
}

TEST_F(RulesModelTest, NoUserMessageCannotBeHandled) {
  history.push_back(Message::system("You are keel."));
  EXPECT_EQ(complete().text, kRulesModelCannotHandle);
}

TEST_F(RulesModelTest, InvalidUtf8InTheTaskDoesNotThrow) {
  ask("read \xff\xfe.txt");
  ModelReply reply = complete();
  ASSERT_EQ(reply.tool_calls.size(), 1u);
  EXPECT_EQ(reply.tool_calls[0].name, "fs_read");
}

TEST_F(RulesModelTest, StopRequestedIsCancelled) {
  ask("ls");
  std::stop_source source;
  source.request_stop();
  CallOptions options;
  options.stop = source.get_token();
  Result<ModelReply> r = model->complete(request(), options);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kCancelled);
}

TEST_F(RulesModelTest, IsDeterministic) {
  ask("search for TODO in src");
  ModelReply a = complete();
  ModelReply b = complete();
  ASSERT_EQ(a.tool_calls.size(), 1u);
  ASSERT_EQ(b.tool_calls.size(), 1u);
  EXPECT_EQ(a.tool_calls[0].arguments, b.tool_calls[0].arguments);
}

}  // namespace
}  // namespace keel
