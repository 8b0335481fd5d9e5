// `keel run --session`, `--ephemeral` and `keel chat` end to end, against the mock server.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "support/cli_runner.hpp"
#include "support/mock_llm_server.hpp"
#include "support/temp_dir.hpp"

namespace keel {
namespace {

using nlohmann::json;

class SessionRunE2e : public ::testing::Test {
 protected:
  testing::CliRun keel(std::vector<std::string> args, std::optional<std::string> tty = std::nullopt) {
    testing::CliOptions opts;
    opts.env = {{"KEEL_HOME", (home_.path() / "keel").string()}};
    opts.cwd = ws_.path().string();
    opts.tty_input = std::move(tty);
    return testing::run_cli(KEEL_BINARY, args, opts);
  }
  std::vector<std::string> model() { return {"--base-url", server_.base_url(), "--model", "mock", "--no-stream"}; }
  static std::string session_of(const std::string& json_lines) {
    for (const auto& line : testing::lines_of(json_lines)) {
      json j = json::parse(line, nullptr, false);
      if (j.is_object() && j.value("type", "") == "run_started") return j.value("session_id", "");
    }
    return {};
  }
  testing::MockLlmServer server_;
  testing::TempDir ws_;
  testing::TempDir home_;
};

TEST_F(SessionRunE2e, RunSessionContinuesTheConversation) {
  server_.push(testing::mock_text("Paris"));
  std::vector<std::string> a = {"run", "--json"};
  for (auto& m : model()) a.push_back(m);
  a.push_back("capital of France?");
  testing::CliRun first = keel(a);
  ASSERT_EQ(first.exit_code, 0) << first.err;
  std::string session = session_of(first.out);
  ASSERT_EQ(session.rfind("s_", 0), 0u) << first.out;

  server_.push(testing::mock_text("about two million"));
  std::vector<std::string> b = {"run", "--session", session};
  for (auto& m : model()) b.push_back(m);
  b.push_back("and how many people live there?");
  testing::CliRun second = keel(b);
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_NE(second.out.find("about two million"), std::string::npos);
  json sent = json::parse(server_.requests().at(1).body);
  std::string all = sent["messages"].dump();
  EXPECT_NE(all.find("capital of France?"), std::string::npos);
  EXPECT_NE(all.find("Paris"), std::string::npos);
  EXPECT_NE(all.find("how many people"), std::string::npos);
}

TEST_F(SessionRunE2e, UnknownSessionIsExitOne) {
  std::vector<std::string> a = {"run", "--session", "s_0123456789abcdef"};
  for (auto& m : model()) a.push_back(m);
  a.push_back("hello");
  testing::CliRun r = keel(a);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("s_0123456789abcdef"), std::string::npos) << r.err;
  EXPECT_EQ(server_.request_count(), 0u);
}

TEST_F(SessionRunE2e, EphemeralKeepsNothingAndExcludesSession) {
  server_.push(testing::mock_text("ok"));
  std::vector<std::string> a = {"run", "--ephemeral", "--json"};
  for (auto& m : model()) a.push_back(m);
  a.push_back("hi");
  testing::CliRun r = keel(a);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(session_of(r.out), "");
  EXPECT_FALSE(std::filesystem::exists(home_.path() / "keel" / "keel.db"));
  testing::CliRun both = keel({"run", "--ephemeral", "--session", "s_0123456789abcdef", "--model", "rules", "hi"});
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_NE(both.err.find("exclude"), std::string::npos) << both.err;
}

TEST_F(SessionRunE2e, ACorruptDatabaseIsAClearErrorAndStaysUntouched) {
  std::filesystem::create_directories(home_.path() / "keel");
  std::string junk(8192, 'x');
  auto db = home_.path() / "keel" / "keel.db";
  { std::ofstream(db, std::ios::binary) << junk; }
  testing::CliRun r = keel({"run", "--model", "rules", "what time is it"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("keel.db"), std::string::npos) << r.err;
  EXPECT_EQ(testing::read_file(db), junk);
}

TEST_F(SessionRunE2e, ChatKeepsOneSessionAcrossTurns) {
  server_.push(testing::mock_text("first answer"));
  server_.push(testing::mock_text("second answer"));
  std::vector<std::string> a = {"chat"};
  for (auto& m : model()) a.push_back(m);
  testing::CliRun r = keel(a, "hello\n/tokens\nagain\n/bogus\n/exit\n");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("first answer"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("second answer"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("tokens (estimated)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("unknown command /bogus"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("saved"), std::string::npos) << r.out;
  ASSERT_EQ(server_.request_count(), 2u);
  std::string second = json::parse(server_.requests().at(1).body)["messages"].dump();
  EXPECT_NE(second.find("first answer"), std::string::npos);
}

}  // namespace
}  // namespace keel
