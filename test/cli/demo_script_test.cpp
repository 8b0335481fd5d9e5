// `make demo`'s main job (scripts/demo.sh), run as a fresh user runs it but in a temporary folder:
// every step's output is checked — the plan's filled-in answer, the approval and the file it
// allowed, the saved and continued session, the guard that halts a plan on a misnamed column, and
// keel serve answering with its web UI. Nothing outside the demo's folder is touched.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "support/cli_runner.hpp"
#include "support/temp_dir.hpp"

namespace keel {
namespace {

namespace fs = std::filesystem;

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::string read_file(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

struct DemoRun {
  testing::CliRun run;
  fs::path dir;
};

DemoRun run_demo(const testing::TempDir& tmp, const std::string& answer) {
  testing::CliOptions options;
  options.cwd = tmp.path().string();
  options.env = {{"KEEL_DEMO_BIN", KEEL_BINARY},
                 {"KEEL_DEMO_DIR", (tmp.path() / "demo").string()},
                 {"KEEL_DEMO_ANSWER", answer}};
  options.timeout_ms = 90000;
  DemoRun d;
  d.dir = tmp.path() / "demo";
  d.run = testing::run_cli("/bin/bash", {std::string(KEEL_SOURCE_DIR) + "/scripts/demo.sh"}, options);
  return d;
}

TEST(DemoScriptTest, EveryStepShowsWhatItShould) {
  testing::TempDir tmp;
  DemoRun d = run_demo(tmp, "y");
  const std::string& out = d.run.out;
  const std::string& err = d.run.err;
  ASSERT_EQ(d.run.exit_code, 0) << out << err;

  // 1. The plan: three steps, and an answer whose figures come from the tools.
  EXPECT_TRUE(has(out, "The sum of the amount column in sales.csv is 341.75 (from 4 of 4 rows).")) << out;
  for (const char* tool : {"fs_read", "parse_csv", "math_aggregate"}) EXPECT_TRUE(has(err, tool)) << tool << "\n" << err;

  // 2. The approval was asked on the terminal, answered, and the file is what the plan computed.
  EXPECT_TRUE(has(out, "approve fs_write")) << out;
  EXPECT_TRUE(has(out, "The average of the amount column in sales.csv is 85.4375 (from 4 of 4 rows). Saved to report.txt."))
      << out;
  EXPECT_EQ(read_file(d.dir / "workspace/report.txt"), "average of amount in sales.csv: 85.4375\n");
  EXPECT_TRUE(has(out, "$ cat report.txt\naverage of amount in sales.csv: 85.4375")) << out;

  // 3. The session list, the continued session's answer, and both turns in the saved session.
  EXPECT_TRUE(has(out, "$ keel sessions list")) << out;
  EXPECT_TRUE(has(out, "The maximum of the amount column in sales.csv is 120.5 (from 4 of 4 rows).")) << out;
  const size_t show = out.find("$ keel sessions show s_");
  ASSERT_NE(show, std::string::npos) << out;
  const std::string shown = out.substr(show);
  EXPECT_TRUE(has(shown, "sum the amount column of sales.csv")) << shown;
  EXPECT_TRUE(has(shown, "what is the maximum of the amount column of sales.csv")) << shown;

  // 4. The guard: the plan halts on the misnamed column and the answer names the columns there are.
  EXPECT_TRUE(has(err, "plan_halted")) << err;
  EXPECT_TRUE(has(out, "no item has a field 'price'")) << out;
  EXPECT_TRUE(has(out, "amount, region, units")) << out;
  EXPECT_FALSE(has(out, "The sum of the price column")) << "a plausible wrong answer: " << out;

  // 5. keel serve: the signed-in web UI address, its health and its page.
  EXPECT_TRUE(has(out, "keel serve: web UI (signed in): http://127.0.0.1:")) << out;
  EXPECT_TRUE(has(out, "\"ok\":true")) << out;
  EXPECT_TRUE(has(out, "<title>")) << out;
  EXPECT_TRUE(has(out, "keel serve stopped")) << out;

  // Its own home: the store is there.
  EXPECT_TRUE(fs::exists(d.dir / "home/keel.db")) << "the demo's KEEL_HOME holds no store";
}

TEST(DemoScriptTest, ADeniedApprovalWritesNothingAndSaysSo) {
  testing::TempDir tmp;
  DemoRun d = run_demo(tmp, "n");
  ASSERT_EQ(d.run.exit_code, 0) << d.run.out << d.run.err;
  EXPECT_FALSE(fs::exists(d.dir / "workspace/report.txt"));
  EXPECT_TRUE(has(d.run.out, "(report.txt was not written)")) << d.run.out;
  EXPECT_TRUE(has(d.run.out, "denied by the user")) << d.run.out;
}

}  // namespace
}  // namespace keel
