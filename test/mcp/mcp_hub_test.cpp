// McpClient and McpHub against the misbehaving test server over real stdio: pagination,
// list_changed, timeouts with cancellation, hooks, registration with allow/deny, bounded restarts.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "keel/mcp.hpp"

#ifdef KEEL_FAULT_MCP_SERVER

namespace keel {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

McpServerConfig fault(std::vector<std::string> args = {}, const std::string& name = "fault") {
  McpServerConfig c;
  c.name = name;
  c.command = KEEL_FAULT_MCP_SERVER;
  c.args = std::move(args);
  c.startup_timeout_ms = 10000;
  c.call_timeout_ms = 10000;
  return c;
}

int64_t ms_since(Clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t).count();
}

TEST(McpClientStdio, ListsEveryPageAndCallsTools) {
  auto client = McpClient::connect(fault({"--page-size", "2"}));
  ASSERT_TRUE(client.ok()) << client.status().message();
  EXPECT_EQ((*client)->server_info()["name"], "fault-server");
  auto tools = (*client)->list_tools();
  ASSERT_TRUE(tools.ok()) << tools.status().message();
  std::vector<std::string> names;
  for (const auto& t : *tools) names.push_back(t.name);
  EXPECT_EQ(names, (std::vector<std::string>{"echo", "add", "slow", "fail", "image", "env", "cwd", "progress"}));
  auto add = (*client)->call_tool("add", {{"a", 2}, {"b", 3}});
  ASSERT_TRUE(add.ok()) << add.status().message();
  EXPECT_EQ(add->structured["sum"], 5);
  auto fail = (*client)->call_tool("fail", json::object());
  ASSERT_TRUE(fail.ok());
  EXPECT_TRUE(fail->is_error);
  EXPECT_EQ(fail->text(), "it failed");
  auto resources = (*client)->list_resources();
  ASSERT_TRUE(resources.ok()) << resources.status().message();
  ASSERT_EQ(resources->size(), 1u);
  auto read = (*client)->read_resource("file:///greeting.txt");
  ASSERT_TRUE(read.ok());
  EXPECT_EQ((*read)["contents"][0]["text"], "hello");
  auto missing = (*client)->read_resource("file:///nope");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), ErrorCode::kNotFound);
  auto prompt = (*client)->get_prompt("greet", {{"name", "Ada"}});
  ASSERT_TRUE(prompt.ok()) << prompt.status().message();
  EXPECT_NE((*prompt).dump().find("Hello, Ada!"), std::string::npos);
}

TEST(McpClientStdio, ATimedOutCallIsCancelledAndTheConnectionStaysUsable) {
  auto client = McpClient::connect(fault());
  ASSERT_TRUE(client.ok()) << client.status().message();
  Clock::time_point t0 = Clock::now();
  auto slow = (*client)->call_tool("slow", {{"ms", 5000}}, {}, std::chrono::milliseconds(300));
  ASSERT_FALSE(slow.ok());
  EXPECT_EQ(slow.status().code(), ErrorCode::kDeadlineExceeded);
  EXPECT_NE(slow.status().message().find("within 300 ms"), std::string::npos) << slow.status().message();
  EXPECT_GE(ms_since(t0), 290);
  EXPECT_LT(ms_since(t0), 4000);
  EXPECT_TRUE((*client)->ping().ok());
  auto echo = (*client)->call_tool("echo", {{"text", "still here"}});
  ASSERT_TRUE(echo.ok());
  EXPECT_EQ(echo->text(), "echo: still here");
}

TEST(McpClientStdio, AStopRequestCancelsACallPromptly) {
  auto client = McpClient::connect(fault());
  ASSERT_TRUE(client.ok()) << client.status().message();
  std::stop_source stop;
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    stop.request_stop();
  });
  Clock::time_point t0 = Clock::now();
  auto slow = (*client)->call_tool("slow", {{"ms", 5000}}, stop.get_token());
  stopper.join();
  ASSERT_FALSE(slow.ok());
  EXPECT_EQ(slow.status().code(), ErrorCode::kCancelled);
  EXPECT_LT(ms_since(t0), 3000);
}

TEST(McpClientStdio, HooksSeeProgressLoggingAndListChanged) {
  std::mutex mu;
  std::vector<std::string> logs;
  int progress = 0;
  McpClientHooks hooks;
  hooks.on_log = [&](std::string_view, std::string_view line) {
    std::lock_guard<std::mutex> lock(mu);
    logs.emplace_back(line);
  };
  hooks.on_progress = [&](std::string_view server, const json&) {
    std::lock_guard<std::mutex> lock(mu);
    EXPECT_EQ(server, "fault");
    ++progress;
  };
  auto client = McpClient::connect(fault({"--list-changed"}), hooks);
  ASSERT_TRUE(client.ok()) << client.status().message();
  EXPECT_FALSE((*client)->tools_changed());
  auto r = (*client)->request("tools/call", {{"name", "progress"}, {"arguments", json::object()}, {"_meta", {{"progressToken", "p1"}}}});
  ASSERT_TRUE(r.ok()) << r.status().message();
  // The server sends list_changed after its answer: wait for it.
  Clock::time_point t0 = Clock::now();
  while (!(*client)->tools_changed() && ms_since(t0) < 5000) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_TRUE((*client)->tools_changed());
  std::lock_guard<std::mutex> lock(mu);
  EXPECT_EQ(progress, 3);
  bool logged = false;
  for (const auto& l : logs) logged = logged || l.rfind("[", 0) == 0;  // "[info] ..." from notifications/message
  EXPECT_TRUE(logged) << ::testing::PrintToString(logs);
}

TEST(McpClientStdio, ASlowStartWithinTheStartupTimeoutIsFine) {
  McpServerConfig slow = fault({"--slow-start", "400"});
  slow.startup_timeout_ms = 8000;
  Clock::time_point t0 = Clock::now();
  auto client = McpClient::connect(slow);
  ASSERT_TRUE(client.ok()) << client.status().message();
  EXPECT_GE(ms_since(t0), 390);
  slow.startup_timeout_ms = 150;
  auto late = McpClient::connect(slow);
  ASSERT_FALSE(late.ok());
  EXPECT_EQ(late.status().code(), ErrorCode::kDeadlineExceeded);
}

TEST(McpClientStdio, StartupFailuresSayWhy) {
  McpServerConfig hang = fault({"--hang-on", "initialize"});
  hang.startup_timeout_ms = 300;
  Clock::time_point t0 = Clock::now();
  auto hung = McpClient::connect(hang);
  ASSERT_FALSE(hung.ok());
  EXPECT_EQ(hung.status().code(), ErrorCode::kDeadlineExceeded);
  EXPECT_NE(hung.status().message().find("startup_timeout_ms"), std::string::npos) << hung.status().message();
  EXPECT_LT(ms_since(t0), 5000);

  auto crash = McpClient::connect(fault({"--crash-on", "initialize"}));
  ASSERT_FALSE(crash.ok());
  EXPECT_EQ(crash.status().code(), ErrorCode::kUnavailable);
  EXPECT_NE(crash.status().message().find("crashing on purpose"), std::string::npos) << crash.status().message();

  McpServerConfig missing = fault();
  missing.command = "no-such-mcp-server-anywhere";
  auto gone = McpClient::connect(missing);
  ASSERT_FALSE(gone.ok());
  EXPECT_NE(gone.status().message().find("not found"), std::string::npos) << gone.status().message();
}

TEST(McpClientStdio, GarbageAndHugeOutputDoNotBreakTheConnection) {
  std::atomic<int> garbage{0};
  McpClientHooks hooks;
  hooks.on_log = [&](std::string_view, std::string_view line) {
    if (line.find("this is not json") != std::string_view::npos) ++garbage;
  };
  auto client = McpClient::connect(fault({"--garbage", "--huge-bytes", "3000000"}), hooks);
  ASSERT_TRUE(client.ok()) << client.status().message();
  auto echo = (*client)->call_tool("echo", {{"text", "big"}});
  ASSERT_TRUE(echo.ok()) << echo.status().message();
  EXPECT_EQ(echo->text().size(), 3000000u);
  EXPECT_GE(garbage.load(), 2);
}

TEST(McpHubStdio, RegistersAllowedToolsAndReportsFailures) {
  McpServerConfig allowed = fault({}, "a");
  allowed.allow_tools = {"echo", "add", "fail"};
  allowed.deny_tools = {"fail"};
  McpServerConfig broken = fault({"--crash-on", "initialize"}, "b");
  McpServerConfig off = fault({}, "c");
  off.enabled = false;
  McpServerConfig untrusted = fault({}, "d");
  untrusted.from_workspace = true;
  McpHub hub({allowed, broken, off, untrusted});
  hub.connect_all();
  ToolRegistry registry;
  ASSERT_TRUE(hub.register_tools(registry).ok());
  std::vector<std::string> names;
  for (const auto& s : registry.specs()) names.push_back(s.name);
  EXPECT_EQ(names, (std::vector<std::string>{"a__echo", "a__add", "mcp_list_resources", "mcp_read_resource"}));
  EXPECT_EQ(registry.find("a__add")->spec().risk, Risk::kHigh);  // no annotations: possibly destructive
  auto status = hub.status();
  ASSERT_EQ(status.size(), 4u);
  EXPECT_EQ(status[0].state, "connected");
  EXPECT_EQ(status[1].state, "failed");
  EXPECT_NE(status[1].error.find("exited with code 3"), std::string::npos) << status[1].error;
  EXPECT_EQ(status[2].state, "disabled");
  EXPECT_EQ(status[3].state, "untrusted");

  ToolContext ctx;
  auto sum = registry.find("a__add")->execute({{"a", 1}, {"b", 2}}, ctx);
  ASSERT_TRUE(sum.ok()) << sum.status().message();
  EXPECT_EQ(*sum, "3");
  auto resources = registry.find("mcp_read_resource")->execute({{"server", "a"}, {"uri", "file:///greeting.txt"}}, ctx);
  ASSERT_TRUE(resources.ok()) << resources.status().message();
  EXPECT_EQ(*resources, "[file:///greeting.txt]\nhello");
}

// hold_tool (the tool lock) keeps a tool back at start, and again when a restarted server lists a
// tool that is now held: its calls are refused from then on, even though it was registered.
TEST(McpHubStdio, HeldToolsAreNotRegisteredAndTheirCallsAreRefusedAfterARestart) {
  std::atomic<bool> hold_echo{false};
  McpHubOptions options;
  options.hold_tool = [&](const McpServerConfig&, const McpToolInfo& t) -> std::optional<std::string> {
    if (t.name == "fail" || (t.name == "echo" && hold_echo)) return "its definition changed";
    return std::nullopt;
  };
  McpServerConfig crashing = fault({"--crash-on", "tools/call"}, "a");
  crashing.allow_tools = {"echo", "add", "fail"};
  McpHub hub({crashing}, options);
  hub.connect_all();
  ToolRegistry registry;
  ASSERT_TRUE(hub.register_tools(registry).ok());
  EXPECT_NE(registry.find("a__echo"), nullptr);
  EXPECT_EQ(registry.find("a__fail"), nullptr);
  EXPECT_EQ(hub.status()[0].held_tools, std::vector<std::string>{"fail: its definition changed"});

  hold_echo = true;
  ToolContext ctx;
  auto crashed = registry.find("a__add")->execute({{"a", 1}, {"b", 2}}, ctx);
  ASSERT_FALSE(crashed.ok());  // the server died; the next call restarts it and lists its tools again
  auto refused = registry.find("a__echo")->execute({{"text", "hi"}}, ctx);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), ErrorCode::kPermissionDenied);
  EXPECT_NE(refused.status().message().find("echo: its definition changed"), std::string::npos)
      << refused.status().message();
  auto held = hub.tool_client("a", "fail");
  EXPECT_EQ(held.status().code(), ErrorCode::kPermissionDenied);
  EXPECT_EQ(hub.tool_client("a", "nope").status().code(), ErrorCode::kNotFound);
}

TEST(McpHubStdio, ADeadServerIsRestartedOnNextUseAtMostMaxRestartsTimes) {
  McpHubOptions options;
  options.max_restarts = 2;
  McpHub hub({fault({"--crash-on", "tools/call"})}, options);
  hub.connect_all();
  ToolRegistry registry;
  ASSERT_TRUE(hub.register_tools(registry).ok());
  Tool* echo = registry.find("fault__echo");
  ASSERT_NE(echo, nullptr);
  ToolContext ctx;
  for (int i = 0; i < 3; ++i) {  // the first call plus two restarts, each crashing
    auto r = echo->execute({{"text", "x"}}, ctx);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.status().message().find("exited with code 3"), std::string::npos) << i << ": " << r.status().message();
  }
  auto given_up = echo->execute({{"text", "x"}}, ctx);
  ASSERT_FALSE(given_up.ok());
  EXPECT_NE(given_up.status().message().find("does not restart it again"), std::string::npos)
      << given_up.status().message();
}

}  // namespace
}  // namespace keel

#endif  // KEEL_FAULT_MCP_SERVER
