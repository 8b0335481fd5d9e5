// End to end: `keel run` with the reference MCP server (server-everything, from npm) whose
// trigger-sampling-request tool asks keel's model for a message. Allowed by the operator's
// approval policy, the request reaches the run's backend (the mock model) and its answer goes back
// to the server; without that policy and with nobody to ask, the server is refused and the tool
// result says why. A run on the rules model declares no sampling, so the tool is not offered.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "support/cli_runner.hpp"
#include "support/mock_llm_server.hpp"
#include "support/temp_dir.hpp"

namespace keel {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

const fs::path kSamplingNpm = KEEL_NPM_DIR;

class McpSamplingCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    node_ = (kSamplingNpm / "node_modules/.bin/node").string();
    if (!fs::exists(node_)) {
      if (std::getenv("KEEL_REQUIRE_NPM") != nullptr)
        FAIL() << "missing " << node_ << "; run scripts/install-test-npm.sh";
      GTEST_SKIP() << "npm test peers not installed (scripts/install-test-npm.sh)";
    }
    ASSERT_TRUE(server_.running());
  }

  // The user's config: server-everything over stdio, plus `extra` YAML.
  void user_config(const std::string& extra = {}) {
    const std::string main =
        (kSamplingNpm / "node_modules/@modelcontextprotocol/server-everything/dist/index.js").string();
    const json servers = {
        {"everything", {{"command", node_}, {"args", {main, "stdio"}}, {"startup_timeout_ms", 30000}}}};
    home_.write("xdg/keel/config.yaml", "mcpServers: " + servers.dump() + "\n" + extra);
  }

  testing::CliRun run(const std::vector<std::string>& model_args, const std::string& task) {
    std::vector<std::string> args = {"run", "--no-stream"};
    args.insert(args.end(), model_args.begin(), model_args.end());
    args.push_back(task);
    testing::CliOptions opts;
    opts.env = {{"KEEL_HOME", home_.path().string()}, {"XDG_CONFIG_HOME", (home_.path() / "xdg").string()}};
    opts.cwd = ws_.path().string();
    opts.timeout_ms = 90000;
    return testing::run_cli(KEEL_BINARY, args, opts);
  }
  std::vector<std::string> mock_model() { return {"--base-url", server_.base_url(), "--model", "mock"}; }

  json request_body(size_t i) { return json::parse(server_.requests().at(i).body); }
  std::string tool_result(size_t request) {
    const json body = request_body(request);
    for (const auto& m : body["messages"]) {
      if (m["role"] == "tool") return m["content"].get<std::string>();
    }
    return {};
  }

  std::string node_;
  testing::MockLlmServer server_;
  testing::TempDir ws_;
  testing::TempDir home_;
};

TEST_F(McpSamplingCliTest, AServerAllowedByThePolicySamplesTheRunsModel) {
  user_config("approvals:\n  tools:\n    mcp_sampling: {mode: auto}\n");
  server_.push(testing::mock_tool_calls(
      {{"c1", "everything__trigger-sampling-request", R"({"prompt":"Name a colour","maxTokens":30})"}}));
  server_.push(testing::mock_text("Cobalt blue."));  // the sampling request
  server_.push(testing::mock_text("The server's model said cobalt blue."));
  testing::CliRun r = run(mock_model(), "ask the server to sample");
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  ASSERT_EQ(server_.requests().size(), 3u) << r.err;

  const json sampling = request_body(1);
  ASSERT_GE(sampling["messages"].size(), 2u) << sampling;
  EXPECT_EQ(sampling["messages"][0]["role"], "system");
  EXPECT_EQ(sampling["messages"][0]["content"], "You are a helpful test server.");
  EXPECT_NE(sampling["messages"][1]["content"].get<std::string>().find("Name a colour"), std::string::npos);
  EXPECT_FALSE(sampling.contains("tools") && !sampling["tools"].empty()) << sampling;
  EXPECT_EQ(sampling.value("max_tokens", sampling.value("max_completion_tokens", 0)), 30) << sampling;

  const std::string result = tool_result(2);
  EXPECT_NE(result.find("Cobalt blue."), std::string::npos) << result;
  EXPECT_NE(result.find("\"role\": \"assistant\""), std::string::npos) << result;
  EXPECT_NE(r.out.find("cobalt blue"), std::string::npos) << r.out;
}

TEST_F(McpSamplingCliTest, WithoutThePolicyAndNobodyToAskTheServerIsRefused) {
  user_config();
  server_.push(testing::mock_tool_calls({{"c1", "everything__trigger-sampling-request", R"({"prompt":"x"})"}}));
  server_.push(testing::mock_text("It was refused."));
  testing::CliRun r = run(mock_model(), "ask the server to sample");
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  ASSERT_EQ(server_.requests().size(), 2u) << "the model was sampled: " << r.err;
  const std::string result = tool_result(1);
  EXPECT_NE(result.find("MCP server 'everything' may not use keel's model"), std::string::npos) << result;
}

TEST_F(McpSamplingCliTest, TheRulesModelDeclaresNoSampling) {
  testing::CliOptions opts;
  opts.env = {{"KEEL_HOME", home_.path().string()}, {"XDG_CONFIG_HOME", (home_.path() / "xdg").string()}};
  opts.cwd = ws_.path().string();
  opts.timeout_ms = 90000;
  user_config();  // no model: the rules model
  testing::CliRun rules = testing::run_cli(KEEL_BINARY, {"mcp", "list", "--json"}, opts);
  ASSERT_EQ(rules.exit_code, 0) << rules.err;
  EXPECT_NE(rules.out.find("\"echo\""), std::string::npos) << rules.out;
  EXPECT_EQ(rules.out.find("trigger-sampling-request"), std::string::npos) << rules.out;
  user_config("model: mock\nbase_url: " + server_.base_url() + "\n");
  testing::CliRun model = testing::run_cli(KEEL_BINARY, {"mcp", "list", "--json"}, opts);
  ASSERT_EQ(model.exit_code, 0) << model.err;
  EXPECT_NE(model.out.find("trigger-sampling-request"), std::string::npos) << model.out;
}

}  // namespace
}  // namespace keel
