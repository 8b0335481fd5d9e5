// The Agent with the real shell tool and a scripted model that makes seed 004's mistake: it asks
// for the largest file with `ls -lS | head -n 1` and gets only ls's "total N" line. The shell's
// not_metadata_only postcondition turns that into a corrective error; a retry that lists entries
// finishes, a retry that makes the same mistake fails the run.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "keel/agent.hpp"
#include "keel/builtin_tools.hpp"
#include "keel/core/postcondition.hpp"
#include "support/fake_llm.hpp"
#include "support/temp_dir.hpp"

namespace keel {
namespace {

using testing::FakeLlm;

constexpr const char* kFirstLine = R"({"command":"ls -lS | head -n 1"})";
constexpr const char* kReason =
    "the output is only the \"total N\" block count that `ls -l` prints before the entries, and no entries";

struct Recorder : Hooks {
  std::vector<GuardEvent> guards;
  std::vector<std::string> tool_statuses;
  void on_guard_fired(RunContext&, const GuardEvent& g) override { guards.push_back(g); }
  void on_tool_result(RunContext&, const ToolCall&, const ToolResult& r) override {
    tool_statuses.push_back(std::string(tool_status_name(r.status)));
  }
};

// The tool messages of a recorded request, in order.
std::vector<Message> tool_messages(const testing::RecordedRequest& req) {
  std::vector<Message> out;
  for (const auto& m : req.messages) {
    if (m.role == Role::kTool) out.push_back(m);
  }
  return out;
}

class AgentPostconditionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // Incompressible bytes, so every file system allocates blocks and ls's total is not 0.
    std::string data(64 * 1024, '\0');
    uint32_t x = 2463534242u;
    for (char& c : data) {
      x ^= x << 13;
      x ^= x >> 17;
      x ^= x << 5;
      c = static_cast<char>(x & 0xFF);
    }
    dir_.write("big.bin", data);
    dir_.write("small.txt", "hi\n");
    BuiltinToolOptions o;
    o.workspace_root = dir_.path().string();
    o.shell_timeout_ms = 20000;
    ASSERT_TRUE(register_builtin_tools(tools_, o).ok());

    // What `ls -lS | head -n 1` prints here, through the real shell tool.
    Tool* shell = tools_.find("shell");
    ASSERT_NE(shell, nullptr);
    ToolContext ctx;
    ctx.workspace_root = dir_.path().string();
    Result<std::string> out = shell->execute(nlohmann::json::parse(kFirstLine), ctx);
    ASSERT_TRUE(out.ok()) << out.status().message();
    total_line_ = out->substr(0, out->find('\n'));
    ASSERT_EQ(*out, total_line_ + "\n[exit code 0]");
    ASSERT_EQ(total_line_.rfind("total ", 0), 0u) << total_line_;
    ASSERT_NE(total_line_, "total 0");
  }
  AgentOptions options() {
    AgentOptions o;
    o.workspace = dir_.path().string();
    o.approvals.override_mode = ApprovalMode::kAuto;  // the shell runs without asking
    return o;
  }
  std::string failed_line() const {
    std::string s = "shell failed its postcondition not_metadata_only: ";
    s.append(kReason).append(" (output: \"").append(total_line_).append("\")");
    return s;
  }
  testing::TempDir dir_;
  FakeLlm llm_;
  ToolRegistry tools_;
  std::string total_line_;  // e.g. "total 72"
};

TEST_F(AgentPostconditionTest, ShellDeclaresTheListingPostcondition) {
  const ToolSpec& spec = tools_.find("shell")->spec();
  ASSERT_EQ(spec.postconditions.size(), 1u);
  EXPECT_EQ(spec.postconditions[0].kind, PostconditionKind::kNotMetadataOnly);
  EXPECT_EQ(spec.postconditions[0].applies_to.programs, (std::vector<std::string>{"ls", "dir", "vdir"}));
  EXPECT_EQ(tools_.find("fs_list")->spec().postconditions.size(), 1u);
  EXPECT_EQ(tools_.find("fs_search")->spec().postconditions.size(), 1u);
  EXPECT_TRUE(tools_.find("fs_read")->spec().postconditions.empty());  // an empty file is an honest read
}

TEST_F(AgentPostconditionTest, MetadataOnlyOutputGetsACorrectiveRetryThatSucceeds) {
  llm_.push_call("shell", kFirstLine);
  llm_.push_call("shell", R"({"command":"ls -S | head -n 1"})");
  llm_.push_text("big.bin is the biggest file.");
  Agent agent(llm_, tools_, options());
  auto rec = std::make_shared<Recorder>();
  agent.add_hooks(rec);
  auto out = agent.run("Which file in this directory is the biggest?");
  ASSERT_TRUE(out.ok()) << out.status().message();
  ASSERT_TRUE(out->ok) << out->error;
  EXPECT_EQ(out->answer, "big.bin is the biggest file.");

  ASSERT_EQ(rec->guards.size(), 1u);
  EXPECT_EQ(rec->guards[0].kind, GuardKind::kPostconditionFailed);
  EXPECT_EQ(rec->guards[0].tool, "shell");
  EXPECT_EQ(rec->guards[0].detail, failed_line() + "; one corrective retry");
  // Hooks see what the tool returned; the guard says what the model was given instead.
  EXPECT_EQ(rec->tool_statuses, (std::vector<std::string>{"ok", "ok"}));

  auto reqs = llm_.requests();
  ASSERT_EQ(reqs.size(), 3u);
  auto second = tool_messages(reqs[1]);
  ASSERT_EQ(second.size(), 1u);
  std::string corrective = "postcondition not_metadata_only failed: ";
  corrective.append(kReason).append(". The output was: \"").append(total_line_).append("\". ");
  corrective.append(Postcondition::not_metadata_only().hint);
  EXPECT_EQ(second[0].content, corrective);
  EXPECT_EQ(second[0].metadata.at("status"), "error");
  const std::string& note = reqs[1].messages.back().content;
  EXPECT_NE(note.find("This is the one corrective retry: if shell's output fails a postcondition again, the run ends "
                      "as failed."),
            std::string::npos)
      << note;
  auto third = tool_messages(reqs[2]);
  ASSERT_EQ(third.size(), 2u);
  EXPECT_EQ(third[1].content, "big.bin\n[exit code 0]");
  EXPECT_EQ(third[1].metadata.at("status"), "ok");
}

TEST_F(AgentPostconditionTest, TheSameMistakeAgainFailsTheRun) {
  llm_.push_call("shell", kFirstLine);
  llm_.push_call("shell", R"({"command":"ls -l --sort=size | head -n 1"})");
  llm_.push_text("big.bin is the biggest file.");  // never asked for
  Agent agent(llm_, tools_, options());
  auto rec = std::make_shared<Recorder>();
  agent.add_hooks(rec);
  auto out = agent.run("Which file in this directory is the biggest?");
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_FALSE(out->ok);
  EXPECT_EQ(out->failure, FailureKind::kGuardrail);
  EXPECT_EQ(out->error, failed_line() +
                            " again after a corrective retry. keel does not answer from output that breaks its tool's "
                            "contract; a more capable model or a simpler task may succeed.");
  EXPECT_TRUE(out->answer.empty());
  EXPECT_EQ(llm_.requests().size(), 2u);
  ASSERT_EQ(rec->guards.size(), 2u);
  EXPECT_EQ(rec->guards[1].kind, GuardKind::kPostconditionFailed);
  EXPECT_EQ(rec->guards[1].detail, failed_line() + " again after a corrective retry; the run ends");
}

TEST_F(AgentPostconditionTest, AScriptPrintingATotalIsNotChecked) {
  dir_.write("sum.sh", "echo 'total 42'\n");
  llm_.push_call("shell", R"({"command":"sh sum.sh"})");
  llm_.push_text("The total is 42.");
  Agent agent(llm_, tools_, options());
  auto rec = std::make_shared<Recorder>();
  agent.add_hooks(rec);
  auto out = agent.run("What does sum.sh print?");
  ASSERT_TRUE(out.ok());
  ASSERT_TRUE(out->ok) << out->error;
  EXPECT_TRUE(rec->guards.empty());
  auto reqs = llm_.requests();
  ASSERT_EQ(reqs.size(), 2u);
  auto tools = tool_messages(reqs[1]);
  ASSERT_EQ(tools.size(), 1u);
  EXPECT_EQ(tools[0].content, "total 42\n[exit code 0]");
}

}  // namespace
}  // namespace keel
