// Fixture of the command hook tests: an Agent on a scripted model with a high-risk deploy tool and
// a read-only lookup tool in a temporary workspace, CommandHooks built from settings JSON, and
// hook commands that record their stdin as JSON lines in the workspace.
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <nlohmann/json.hpp>
#include <sstream>

#include "keel/agent.hpp"
#include "keel/spawn_agent.hpp"
#include "runtime/command_hooks.hpp"
#include "support/fake_llm.hpp"
#include "support/temp_dir.hpp"

namespace keel::hook_tests {

using nlohmann::json;
using testing::FakeLlm;

// Answers every request with `verdict` and counts the questions.
struct CountingApprover : Approver {
  ApprovalVerdict verdict = ApprovalVerdict::kAllow;
  std::vector<ApprovalRequest> asked;
  std::vector<ApprovalDecision> decide(const std::vector<ApprovalRequest>& reqs, std::stop_token) override {
    std::vector<ApprovalDecision> out;
    for (const auto& r : reqs) {
      asked.push_back(r);
      out.push_back({r.call.id, verdict, "scripted"});
    }
    return out;
  }
};

class CommandHooksTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ToolSpec deploy;
    deploy.name = "deploy";
    deploy.description = "deploys";
    deploy.parameters_schema =
        R"({"type":"object","properties":{"target":{"type":"string"}},"required":["target"],"additionalProperties":false})";
    deploy.risk = Risk::kHigh;
    ASSERT_TRUE(tools_.add(make_tool(deploy, [this](const json& args, const ToolContext&) -> Result<std::string> {
                    deployed_.push_back(args.value("target", std::string()));
                    return "deployed " + args.value("target", std::string());
                  })).ok());
    ToolSpec lookup;
    lookup.name = "lookup";
    lookup.description = "looks a key up";
    lookup.parameters_schema = R"({"type":"object","properties":{"key":{"type":"string"}}})";
    lookup.read_only = true;
    ASSERT_TRUE(tools_.add(make_tool(lookup, [this](const json& args, const ToolContext&) -> Result<std::string> {
                    ++lookups_;
                    return "value of " + args.value("key", std::string());
                  })).ok());
  }

  // Offers keel's spawn_agent; its sub-agents run with `h`'s hooks for sub-agents.
  void offer_spawn_agent(const std::shared_ptr<detail::CommandHooks>& h) {
    SpawnAgentOptions so;
    so.hooks = {h->for_subagents()};
    ASSERT_TRUE(register_spawn_agent_tool(tools_, llm_, options(), nullptr, so).ok());
  }

  std::string ws() const { return ws_.path().string(); }

  // A command that appends its stdin as one line to <workspace>/NAME.jsonl.
  static std::string record(const std::string& name) {
    return "cat >> \"$KEEL_PROJECT_DIR/" + name + ".jsonl\"; echo >> \"$KEEL_PROJECT_DIR/" + name + ".jsonl\"";
  }
  // The JSON lines a record() command wrote.
  std::vector<json> recorded(const std::string& name) const {
    std::vector<json> out;
    std::istringstream in(testing::read_file(ws_.path() / (name + ".jsonl")));
    for (std::string line; std::getline(in, line);) {
      if (!line.empty()) out.push_back(json::parse(line));
    }
    return out;
  }

  // CommandHooks for settings `text`; fails the test when it does not parse.
  std::shared_ptr<detail::CommandHooks> hooks(const json& settings, std::optional<SandboxPolicy> sandbox = std::nullopt) {
    detail::HookSettings s;
    Status parsed = detail::parse_hook_settings(settings.dump(), "test-settings.json", false, s);
    EXPECT_TRUE(parsed.ok()) << parsed.to_string();
    detail::CommandHookOptions o;
    o.workspace = ws();
    o.sandbox = std::move(sandbox);
    o.warn = [this](const std::string& line) { warnings_.push_back(line); };
    return std::make_shared<detail::CommandHooks>(std::move(s.commands), std::move(o));
  }

  AgentOptions options() {
    AgentOptions o;
    o.workspace = ws();
    o.load_agents_md = false;
    o.stream = false;
    o.config.max_rounds = 6;
    return o;
  }

  // One run of `task` on a fresh agent with `h`, the policy `o` and `approver`.
  RunOutcome run(std::shared_ptr<Hooks> h, const std::string& task, std::shared_ptr<Approver> approver = nullptr,
                 std::optional<AgentOptions> o = std::nullopt) {
    Agent agent(llm_, tools_, o ? *o : options());
    agent.add_hooks(std::move(h));
    if (approver) agent.set_approver(std::move(approver));
    Result<RunOutcome> out = agent.run(task);
    EXPECT_TRUE(out.ok()) << out.status().to_string();
    return out.ok() ? *out : RunOutcome{};
  }

  // The content of the last tool message of the last request.
  std::string last_tool_message() const {
    auto reqs = llm_.requests();
    for (auto it = reqs.back().messages.rbegin(); it != reqs.back().messages.rend(); ++it) {
      if (it->role == Role::kTool) return it->content;
    }
    return {};
  }

  static json on(const std::string& event, const std::string& matcher, const std::string& command, int timeout = 0) {
    json h = {{"type", "command"}, {"command", command}};
    if (timeout > 0) h["timeout"] = timeout;
    json group = {{"hooks", json::array({h})}};
    if (!matcher.empty()) group["matcher"] = matcher;
    return {{"hooks", {{event, json::array({group})}}}};
  }
  // Several events' hooks in one settings object.
  static json merged(std::initializer_list<json> parts) {
    json out = {{"hooks", json::object()}};
    for (const json& p : parts) {
      for (const auto& [event, groups] : p["hooks"].items()) {
        for (const auto& g : groups) out["hooks"][event].push_back(g);
      }
    }
    return out;
  }

  static void expect_common(const json& j, const std::string& event, const std::string& ws) {
    EXPECT_EQ(j.value("hook_event_name", ""), event) << j.dump();
    EXPECT_EQ(j.value("cwd", ""), ws) << j.dump();
    EXPECT_FALSE(j.value("session_id", "").empty()) << j.dump();
    EXPECT_TRUE(j.contains("transcript_path")) << j.dump();
    EXPECT_EQ(j.value("permission_mode", ""), "default") << j.dump();
  }

  testing::TempDir ws_;
  ToolRegistry tools_;
  FakeLlm llm_;
  std::vector<std::string> deployed_;
  std::atomic<int> lookups_{0};
  std::vector<std::string> warnings_;
};

}  // namespace keel::hook_tests
