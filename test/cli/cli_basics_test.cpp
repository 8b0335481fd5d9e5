// The keel executable without a model server: usage errors, tools list, version, and the rules
// model doing real work.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/cli_runner.hpp"
#include "support/temp_dir.hpp"

namespace keel {
namespace {

using testing::CliOptions;
using testing::CliRun;

CliRun keel(std::vector<std::string> args, const std::string& cwd, std::map<std::string, std::string> env = {}) {
  CliOptions o;
  o.cwd = cwd;
  o.env = std::move(env);
  return testing::run_cli(KEEL_BINARY, args, o);
}

class CliBasicsTest : public ::testing::Test {
 protected:
  testing::TempDir ws_;
};

TEST_F(CliBasicsTest, VersionAndHelp) {
  CliRun v = keel({"--version"}, ws_.path());
  EXPECT_EQ(v.exit_code, 0);
  EXPECT_NE(v.out.find("keel 0."), std::string::npos);
  CliRun h = keel({"run", "--help"}, ws_.path());
  EXPECT_EQ(h.exit_code, 0);
  EXPECT_NE(h.out.find("--max-rounds"), std::string::npos);
  EXPECT_EQ(keel({"tools", "--help"}, ws_.path()).exit_code, 0);
}

TEST_F(CliBasicsTest, UsageErrorsExitTwoWithAMessage) {
  CliRun none = keel({}, ws_.path());
  EXPECT_EQ(none.exit_code, 2);
  CliRun no_task = keel({"run"}, ws_.path());
  EXPECT_EQ(no_task.exit_code, 2);
  EXPECT_NE(no_task.err.find("task"), std::string::npos);
  CliRun rounds = keel({"run", "--max-rounds", "0", "x"}, ws_.path());
  EXPECT_EQ(rounds.exit_code, 2);
  CliRun model = keel({"run", "--model", "mystery-model", "x"}, ws_.path());
  EXPECT_EQ(model.exit_code, 2);
  EXPECT_NE(model.err.find("needs a base URL"), std::string::npos) << model.err;
  CliRun ws = keel({"run", "--workspace", "/nonexistent/dir", "x"}, ws_.path());
  EXPECT_EQ(ws.exit_code, 2);
  EXPECT_NE(ws.err.find("not an existing directory"), std::string::npos);
  ws_.write("keel.yaml", "max_rounds: lots\n");
  CliRun cfg = keel({"run", "x"}, ws_.path());
  EXPECT_EQ(cfg.exit_code, 2);
  EXPECT_NE(cfg.err.find("max_rounds"), std::string::npos) << cfg.err;
}

TEST_F(CliBasicsTest, ToolsListShowsMetadata) {
  CliRun r = keel({"tools", "list"}, ws_.path());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  for (const char* name : {"fs_list", "fs_read", "fs_write", "fs_search", "fs_stat", "shell", "get_datetime"}) {
    EXPECT_NE(r.out.find(name), std::string::npos) << name;
  }
  CliRun j = keel({"tools", "list", "--json"}, ws_.path());
  auto tools = nlohmann::json::parse(j.out);
  bool shell_high = false;
  for (const auto& t : tools) {
    if (t["name"] == "shell") shell_high = t["risk"] == "high";
    EXPECT_TRUE(t["parameters"].is_object());
  }
  EXPECT_TRUE(shell_high);
}

TEST_F(CliBasicsTest, RulesModelIsAnnouncedAndDoesRealWork) {
  ws_.write("notes.txt", "one\ntwo\nthree\n");
  ws_.write("src/main.cpp", "int main() {}\n");
  CliRun list = keel({"run", "list the files"}, ws_.path());
  EXPECT_EQ(list.exit_code, 0) << list.err;
  EXPECT_EQ(list.err.rfind("keel: no model configured; using the built-in rules model", 0), 0u) << list.err;
  EXPECT_NE(list.out.find("notes.txt"), std::string::npos) << list.out;
  EXPECT_NE(list.out.find("src"), std::string::npos);
  CliRun count = keel({"run", "count lines in notes.txt"}, ws_.path());
  EXPECT_EQ(count.exit_code, 0) << count.err;
  EXPECT_NE(count.out.find("3 lines"), std::string::npos) << count.out;
  // Chosen with --model rules, it is not announced as a fallback.
  CliRun chosen = keel({"run", "--model", "rules", "count lines in notes.txt"}, ws_.path());
  EXPECT_EQ(chosen.exit_code, 0) << chosen.err;
  EXPECT_NE(chosen.out.find("3 lines"), std::string::npos) << chosen.out;
  EXPECT_EQ(chosen.err.find("no model configured"), std::string::npos) << chosen.err;
  CliRun poem = keel({"run", "write a poem about the sea"}, ws_.path());
  EXPECT_EQ(poem.exit_code, 0);
  EXPECT_NE(poem.out.find("cannot handle"), std::string::npos) << poem.out;
  CliRun json = keel({"run", "--json", "what time is it"}, ws_.path());
  EXPECT_EQ(json.exit_code, 0) << json.err;
  auto lines = testing::lines_of(json.out);
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(nlohmann::json::parse(lines.front())["type"], "notice");
  EXPECT_EQ(nlohmann::json::parse(lines.back())["type"], "run_finished");
}

TEST_F(CliBasicsTest, KeelModelEnvironmentSelectsTheBackend) {
  CliRun r = keel({"run", "hello"}, ws_.path(), {{"KEEL_MODEL", "ollama/qwen2.5:7b"}, {"OLLAMA_HOST", "127.0.0.1:9"}});
  EXPECT_EQ(r.exit_code, 4) << r.err;  // nothing listens on port 9: a backend error, not the rules model
  EXPECT_EQ(r.err.find("rules model"), std::string::npos);
}

}  // namespace
}  // namespace keel
