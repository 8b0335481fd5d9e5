// Lazy tool loading (keel/core/deferred_tools.hpp): deferred tools stay out of model requests and
// the system prompt's tool list until a tool_search result names them or the model calls them.
#include "keel/core/deferred_tools.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "keel/core/agent_machine.hpp"
#include "keel/core/prompt_builder.hpp"

namespace keel {
namespace {

ToolSpec tool(std::string name, bool deferred = false) {
  ToolSpec s;
  s.name = std::move(name);
  s.description = "does " + s.name;
  s.read_only = true;
  s.deferred = deferred;
  return s;
}

std::vector<ToolSpec> tools() {
  return {tool("fs_read"), tool("tool_search"), tool("git__log", true), tool("git__diff", true), tool("jira__issue", true)};
}

std::vector<std::string> names(std::span<const ToolSpec> specs) {
  std::vector<std::string> out;
  for (const ToolSpec& s : specs) out.push_back(s.name);
  return out;
}

Message search_result(const std::string& content, ToolStatus status = ToolStatus::kOk) {
  return Message::tool(ToolResult{"c1", "tool_search", status, content, false, 1});
}

TEST(DeferredTools, OnlyWhatTheConversationLoadedIsOffered) {
  EXPECT_EQ(names(offered_tools(tools(), {})), (std::vector<std::string>{"fs_read", "tool_search"}));
  const std::vector<Message> found = {
      search_result(R"({"query":"git","matches":[{"name":"git__diff","loaded":true},{"name":"fs_read"}],"total":2})")};
  EXPECT_EQ(names(offered_tools(tools(), found)), (std::vector<std::string>{"fs_read", "tool_search", "git__diff"}));
  const std::vector<Message> called = {Message::assistant("", {{"c2", "jira__issue", "{}"}})};
  EXPECT_EQ(names(offered_tools(tools(), called)), (std::vector<std::string>{"fs_read", "tool_search", "jira__issue"}));
  EXPECT_FALSE(has_deferred_tools(std::vector<ToolSpec>{tool("a"), tool("b")}));
  EXPECT_TRUE(has_deferred_tools(tools()));
}

TEST(DeferredTools, FailedSearchesOtherToolsAndUnreadableResultsLoadNothing) {
  const std::vector<Message> history = {
      search_result(R"({"matches":[{"name":"git__log"}]})", ToolStatus::kError),
      Message::tool(ToolResult{"c3", "fs_read", ToolStatus::kOk, R"({"matches":[{"name":"git__log"}]})", false, 1}),
      search_result("not json"),
      search_result(R"({"matches":"git__log"})"),
  };
  EXPECT_EQ(names(offered_tools(tools(), history)), (std::vector<std::string>{"fs_read", "tool_search"}));
}

TEST(DeferredTools, TheMachineOffersAFoundToolFromTheNextModelCall) {
  AgentMachine m(AgentConfig{}, tools(), "SYSTEM", "show the git log");
  Decision d = m.start();
  const auto* first = std::get_if<CallModel>(&d.action);
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(names(first->request.tools), (std::vector<std::string>{"fs_read", "tool_search"}));
  ModelReply search;
  search.tool_calls = {{"s1", "tool_search", R"({"query":"git log"})"}};
  d = m.step(ModelReplied{search});
  ASSERT_TRUE(std::holds_alternative<RunTools>(d.action));
  d = m.step(ToolsFinished{{{"s1", "tool_search", ToolStatus::kOk, R"({"matches":[{"name":"git__log"}],"total":1})", false, 1}}});
  const auto* second = std::get_if<CallModel>(&d.action);
  ASSERT_NE(second, nullptr);
  EXPECT_EQ(names(second->request.tools), (std::vector<std::string>{"fs_read", "tool_search", "git__log"}));
}

TEST(DeferredTools, TheSystemPromptCountsDeferredToolsInsteadOfListingThem) {
  SystemPromptParts parts;
  const std::vector<ToolSpec> specs = tools();
  parts.tools = specs;
  const std::string prompt = build_system_prompt(parts);
  EXPECT_NE(prompt.find("fs_read"), std::string::npos);
  EXPECT_EQ(prompt.find("git__log"), std::string::npos);
  EXPECT_NE(prompt.find("3 more tools are not listed here. Find them with tool_search"), std::string::npos) << prompt;
  parts.tools = std::span<const ToolSpec>(specs.data(), 2);
  EXPECT_EQ(build_system_prompt(parts).find("more tools are not listed"), std::string::npos);
}

}  // namespace
}  // namespace keel
