// Tool postconditions through the keel executable: `keel tools list` shows them, and `keel run
// --json` reports a failed one as a guard_fired event and, the second time, as a guardrail failure
// (exit code 3), with a scripted model on 127.0.0.1 and the real shell.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/cli_runner.hpp"
#include "support/mock_llm_server.hpp"
#include "support/temp_dir.hpp"

namespace keel {
namespace {

using nlohmann::json;
using testing::CliOptions;
using testing::CliRun;

constexpr const char* kListingRule =
    "not_metadata_only: the output must be more than the \"total N\" lines of `ls -l` (only calls whose command runs "
    "ls, dir or vdir)";

class PostconditionE2eTest : public ::testing::Test {
 protected:
  CliRun keel(std::vector<std::string> args) {
    CliOptions o;
    o.cwd = ws_.path().string();
    return testing::run_cli(KEEL_BINARY, args, o);
  }
  testing::TempDir ws_;
};

TEST_F(PostconditionE2eTest, ToolsListShowsPostconditions) {
  CliRun text = keel({"tools", "list"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  std::string line = std::string(14, ' ') + " postcondition " + kListingRule + "\n";
  EXPECT_NE(text.out.find(line), std::string::npos) << text.out;
  EXPECT_NE(text.out.find(std::string(14, ' ') + " postcondition not_empty: the output must not be blank\n"),
            std::string::npos);

  CliRun js = keel({"tools", "list", "--json"});
  ASSERT_EQ(js.exit_code, 0) << js.err;
  json tools = json::parse(js.out);
  int checked = 0;
  for (const auto& t : tools) {
    ASSERT_TRUE(t.contains("postconditions")) << t["name"];
    if (t["name"] == "shell") {
      ASSERT_EQ(t["postconditions"].size(), 1u);
      const json& p = t["postconditions"][0];
      EXPECT_EQ(p["name"], "not_metadata_only");
      EXPECT_EQ(p["kind"], "not_metadata_only");
      EXPECT_EQ(p["applies_to"]["programs"], json::array({"ls", "dir", "vdir"}));
      EXPECT_EQ(p["ignore_prefixes"], json::array({"[exit code ", "[killed by signal ", "[output truncated: "}));
      ++checked;
    } else if (t["name"] == "fs_read") {
      EXPECT_EQ(t["postconditions"], json::array());
      ++checked;
    }
  }
  EXPECT_EQ(checked, 2);
}

TEST_F(PostconditionE2eTest, RunJsonReportsTheGuardAndFailsOnTheSecondMistake) {
  testing::MockLlmServer server;
  ASSERT_TRUE(server.running());
  std::string data(20000, '\0');  // incompressible, so ls counts blocks on any file system
  uint32_t x = 2463534242u;
  for (char& c : data) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    c = static_cast<char>(x & 0xFF);
  }
  ws_.write("big.txt", data);
  server.push(testing::mock_tool_calls({{"c1", "shell", R"({"command":"ls -lS | head -n 1"})"}}));
  server.push(testing::mock_tool_calls({{"c2", "shell", R"({"command":"ls -l --sort=size | head -1"})"}}));
  server.push(testing::mock_text("big.txt"));  // never asked for
  CliRun r = keel({"run", "--base-url", server.base_url(), "--model", "mock", "--yes", "--json", "--workspace",
                   ws_.path().string(), "Which file is the biggest?"});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_EQ(server.request_count(), 2u);
  std::vector<json> guards;
  json failed;
  for (const auto& l : testing::lines_of(r.out)) {
    json e = json::parse(l);
    if (e["type"] == "guard_fired") guards.push_back(e);
    if (e["type"] == "run_failed") failed = e;
  }
  ASSERT_EQ(guards.size(), 2u) << r.out;
  EXPECT_EQ(guards[0]["kind"], "postcondition_failed");
  EXPECT_EQ(guards[0]["tool"], "shell");
  EXPECT_EQ(guards[0]["call_id"], "c1");
  EXPECT_EQ(guards[1]["call_id"], "c2");
  ASSERT_TRUE(failed.is_object()) << r.out;
  EXPECT_EQ(failed["kind"], "guardrail");
  EXPECT_EQ(failed["exit_code"], 3);
  const std::string error = failed["error"];
  EXPECT_EQ(error.rfind("shell failed its postcondition not_metadata_only: ", 0), 0u) << error;
  EXPECT_NE(error.find("(output: \"total "), std::string::npos) << error;
  EXPECT_NE(error.find(" again after a corrective retry."), std::string::npos) << error;
}

}  // namespace
}  // namespace keel
