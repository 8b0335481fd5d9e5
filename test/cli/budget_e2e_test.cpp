// Run budgets in `keel run`: --max-tokens and --max-cost (with keel.yaml `prices`) stop a run
// before a model call that the budget no longer covers, with the budget guard visible and what the
// run stored kept; a cost cap without the model's price is a usage error.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/cli_runner.hpp"
#include "support/mock_llm_server.hpp"
#include "support/temp_dir.hpp"

namespace keel {
namespace {

using nlohmann::json;
using testing::CliRun;

class BudgetE2eTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(server_.running());
    ws_.write("a.txt", "alpha\n");
  }
  CliRun keel(std::vector<std::string> args) {
    testing::CliOptions opts;
    opts.env = {{"KEEL_HOME", home_.path().string()}, {"XDG_CONFIG_HOME", (home_.path() / "xdg").string()}};
    opts.cwd = ws_.path().string();
    return testing::run_cli(KEEL_BINARY, args, opts);
  }
  CliRun run(std::vector<std::string> extra) {
    std::vector<std::string> args = {"run", "--base-url", server_.base_url(), "--model", "mock", "--json"};
    args.insert(args.end(), extra.begin(), extra.end());
    args.push_back("read a.txt again and again");
    return keel(args);
  }
  // The JSON events of a --json run with `type` (and, for guards, of `kind`: repeating the same
  // read also fires semantic_repeat).
  static std::vector<json> events(const CliRun& r, const std::string& type, const std::string& kind = "budget") {
    std::vector<json> out;
    for (const std::string& line : testing::lines_of(r.out)) {
      json e = json::parse(line, nullptr, false);
      if (!e.is_object() || e.value("type", "") != type) continue;
      if (type == "guard_fired" && e.value("kind", "") != kind) continue;
      out.push_back(std::move(e));
    }
    return out;
  }
  void push_reads(int n) {
    for (int i = 0; i < n; ++i) {
      server_.push(testing::mock_tool_calls({{"c" + std::to_string(i), "fs_read", R"({"path":"a.txt"})"}}));
    }
    server_.push(testing::mock_text("done"));
  }

  testing::MockLlmServer server_;
  testing::TempDir ws_;
  testing::TempDir home_;
};

TEST_F(BudgetE2eTest, ATokenCapStopsTheRunBeforeTheCallItNoLongerCoversAndKeepsTheSession) {
  push_reads(5);  // each reply reports 10 prompt + 5 completion tokens
  CliRun r = run({"--max-tokens", "40"});
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_EQ(server_.requests().size(), 3u) << "15, 30, 45 tokens: no fourth call";
  const std::vector<json> guards = events(r, "guard_fired");
  ASSERT_EQ(guards.size(), 1u) << r.out;
  EXPECT_EQ(guards[0]["kind"], "budget");
  EXPECT_NE(guards[0]["detail"].get<std::string>().find("token budget of 40 is spent (45 tokens used)"), std::string::npos)
      << guards[0];
  const std::vector<json> failed = events(r, "run_failed");
  ASSERT_EQ(failed.size(), 1u) << r.out;
  EXPECT_EQ(failed[0]["kind"], "guardrail");
  const std::string session = failed[0].value("session_id", "");
  ASSERT_FALSE(session.empty()) << failed[0];
  CliRun shown = keel({"sessions", "show", session, "--json"});
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_EQ(json::parse(shown.out)["messages"].size() >= 7u, true) << shown.out;  // task + 3 calls + 3 results
}

TEST_F(BudgetE2eTest, ACostCapUsesTheModelsPricesFromKeelYaml) {
  ws_.write("keel.yaml", "prices:\n  mock: {input: 1000, output: 2000}\n");  // per million tokens
  push_reads(5);  // a call: 10 * 1000 + 5 * 2000 per million = 0.02
  CliRun r = run({"--max-cost", "0.05"});
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_EQ(server_.requests().size(), 3u) << "0.02, 0.04, 0.06: no fourth call";
  const std::vector<json> guards = events(r, "guard_fired");
  ASSERT_EQ(guards.size(), 1u) << r.out;
  EXPECT_NE(guards[0]["detail"].get<std::string>().find("cost budget of 0.0500 is spent (0.0600 used"), std::string::npos)
      << guards[0];
}

TEST_F(BudgetE2eTest, ACostCapWithoutThePriceAndBadBudgetsAreUsageErrors) {
  CliRun r = run({"--max-cost", "1"});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("a cost cap needs the price of model 'mock'"), std::string::npos) << r.err;
  EXPECT_TRUE(server_.requests().empty());
  ws_.write("keel.yaml", "budget: {max_tokens: -5}\n");
  r = run({});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("budget.max_tokens"), std::string::npos) << r.err;
  ws_.write("keel.yaml", "prices:\n  mock: {input: cheap, output: 2}\n");
  r = run({});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("prices.mock.input must be a number >= 0"), std::string::npos) << r.err;
}

TEST_F(BudgetE2eTest, KeelYamlBudgetAppliesWhenNoFlagIsGiven) {
  ws_.write("keel.yaml", "budget: {max_tokens: 20}\n");
  push_reads(5);
  CliRun r = run({});
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_EQ(server_.requests().size(), 2u);
  ASSERT_EQ(events(r, "guard_fired").size(), 1u) << r.out;
}

}  // namespace
}  // namespace keel
