// `keel run` (CliAgent) and `keel serve` (ServeAgentFactory) assemble the same agent from the same
// configuration: options, tools and hooks, apart from the documented host differences.
#include <gtest/gtest.h>

#include <cstdlib>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "api/serve_agent_factory.hpp"
#include "assembly/store_access.hpp"
#include "cli/agent_setup.hpp"
#include "keel/assembly.hpp"
#include "support/temp_dir.hpp"

namespace keel {
namespace {

// Sets an environment variable for one test and puts the old value back.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    ::setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old_) {
      ::setenv(name_, old_->c_str(), 1);
    } else {
      ::unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

class HostAssemblyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ws_.write("keel.yaml",
              "max_rounds: 7\n"
              "planner:\n  enabled: true\n  timeout_ms: 1500\n"
              "context:\n  threshold_percent: 70\n  recency_rounds: 3\n  summary_cooldown_rounds: 4\n"
              "approvals:\n  tools:\n    shell: {mode: deny}\n    fs_write: {deny_patterns: ['secret']}\n");
    ws_.write(".keel/prompts/repair.md", "Repair the call, please.");
    ws_.write(".keel/skills/release-notes/SKILL.md",
              "---\nname: release-notes\ndescription: Writes release notes from a change log.\n---\nUse bullets.\n");
  }

  nlohmann::json cli_agent() {
    cli::AgentFlags flags;
    flags.workspace = ws_.path().string();
    flags.quiet = true;  // no output hooks, nobody asked
    Result<std::unique_ptr<cli::CliAgent>> agent = cli::CliAgent::create(flags);
    EXPECT_TRUE(agent.ok()) << agent.status().message();
    if (!agent.ok()) return nullptr;
    const assembly::AssembledAgent& a = (*agent)->assembled();
    return assembly::describe_agent(a.blueprint(), a.toolbox().registry());
  }

  nlohmann::json serve_agent() {
    Result<std::unique_ptr<Store>> store = assembly::open_default_store();
    EXPECT_TRUE(store.ok()) << store.status().message();
    if (!store.ok()) return nullptr;
    api::ServeAgentFlags flags;
    flags.workspace = ws_.path().string();
    Result<std::unique_ptr<api::ServeAgentFactory>> factory =
        api::ServeAgentFactory::create(flags, **store, nullptr, [](const std::string&) {});
    EXPECT_TRUE(factory.ok()) << factory.status().message();
    if (!factory.ok()) return nullptr;
    Result<std::unique_ptr<api::AgentLease>> lease = (*factory)->make(api::RunSettings{}, nullptr);
    EXPECT_TRUE(lease.ok()) << lease.status().message();
    if (!lease.ok()) return nullptr;
    Result<assembly::AgentBlueprint> blueprint = (*factory)->blueprint(api::RunSettings{}, *(*lease)->llm);
    EXPECT_TRUE(blueprint.ok()) << blueprint.status().message();
    if (!blueprint.ok()) return nullptr;
    return assembly::describe_agent(*blueprint, (*factory)->tools());
  }

  testing::TempDir home_;
  testing::TempDir ws_;
  ScopedEnv keel_home_{"KEEL_HOME", (home_.path() / "keel").string()};
  ScopedEnv home_env_{"HOME", home_.path().string()};
  ScopedEnv xdg_{"XDG_CONFIG_HOME", (home_.path() / "config").string()};
  ScopedEnv model_{"KEEL_MODEL", "rules"};
};

TEST_F(HostAssemblyTest, RunAndServeBuildTheSameAgentFromTheSameConfig) {
  nlohmann::json run = cli_agent();
  nlohmann::json serve = serve_agent();
  ASSERT_TRUE(run.is_object());
  ASSERT_TRUE(serve.is_object());

  // The configuration reached both: these are keel.yaml's values, not defaults.
  for (const nlohmann::json* agent : {&run, &serve}) {
    EXPECT_EQ((*agent)["max_rounds"], 7);
    EXPECT_EQ((*agent)["planner"]["enabled"], true);
    EXPECT_EQ((*agent)["planner"]["timeout_ms"], 1500);
    EXPECT_DOUBLE_EQ((*agent)["context"]["threshold"].get<double>(), 0.7);
    EXPECT_EQ((*agent)["context"]["recency_rounds"], 3);
    EXPECT_EQ((*agent)["repair_prompt"], "Repair the call, please.");
    EXPECT_EQ((*agent)["approvals"]["tools"]["shell"]["mode"], "deny");
    EXPECT_EQ((*agent)["knowledge_skills"][0]["name"], "release-notes");
    EXPECT_EQ((*agent)["store"], true);
  }

  // The one documented difference: keel serve offers no spawn_agent (HostOptions::spawn_agent).
  nlohmann::json run_tools = run["tools"];
  nlohmann::json serve_tools = serve["tools"];
  auto spawn = std::find(run_tools.begin(), run_tools.end(), "spawn_agent");
  ASSERT_NE(spawn, run_tools.end()) << run_tools.dump();
  run_tools.erase(spawn);
  EXPECT_EQ(std::find(serve_tools.begin(), serve_tools.end(), "spawn_agent"), serve_tools.end());
  EXPECT_EQ(run_tools, serve_tools);
  EXPECT_NE(std::find(serve_tools.begin(), serve_tools.end(), "load_skill"), serve_tools.end());

  run.erase("tools");
  serve.erase("tools");
  EXPECT_EQ(run, serve) << "keel run:   " << run.dump() << "\nkeel serve: " << serve.dump();
}

TEST_F(HostAssemblyTest, AnEphemeralRunKeepsNoStoreAndNoStoreTools) {
  assembly::HostInputs in;
  in.workspace = ws_.path().string();
  assembly::HostOptions host;
  host.store = false;
  Result<std::unique_ptr<assembly::AssembledAgent>> agent = assembly::AssembledAgent::create(in, host);
  ASSERT_TRUE(agent.ok()) << agent.status().message();
  nlohmann::json d = assembly::describe_agent((*agent)->blueprint(), (*agent)->toolbox().registry());
  EXPECT_EQ(d["store"], false);
  const nlohmann::json& tools = d["tools"];
  EXPECT_EQ(std::find(tools.begin(), tools.end(), "memory_write"), tools.end()) << tools.dump();
  EXPECT_NE(std::find(tools.begin(), tools.end(), "fs_read"), tools.end()) << tools.dump();
}

TEST_F(HostAssemblyTest, AMissingWorkspaceIsAnErrorThatNamesIt) {
  assembly::HostInputs in;
  in.workspace = (ws_.path() / "nowhere").string();
  Result<std::unique_ptr<assembly::AssembledAgent>> agent = assembly::AssembledAgent::create(in, {});
  ASSERT_FALSE(agent.ok());
  EXPECT_NE(agent.status().message().find("nowhere"), std::string::npos) << agent.status().message();
  EXPECT_NE(agent.status().message().find("not an existing directory"), std::string::npos);
}

}  // namespace
}  // namespace keel
