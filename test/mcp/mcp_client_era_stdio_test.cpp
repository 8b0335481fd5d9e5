// Era detection over a stdio-like transport (scripted in process), with protocol_version "auto":
// the client probes with server/discover first; a modern server is spoken to statelessly, a handshake server that
// answers the probe with an error, or leaves it unanswered, gets the initialize handshake.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "keel/mcp.hpp"
#include "mcp/client_connect.hpp"

namespace keel::testing {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

// Answers each request the client sends with what `script` returns (nullopt: never answers) on
// the sending thread, and records the messages.
class EraScriptTransport final : public mcp::Transport {
 public:
  using Script = std::function<std::optional<json>(const json& message)>;
  EraScriptTransport(Script script, std::shared_ptr<std::vector<json>> sent)
      : script_(std::move(script)), sent_(std::move(sent)) {}

  Status start(mcp::TransportCallbacks callbacks, std::chrono::milliseconds) override {
    callbacks_ = std::move(callbacks);
    return Status::Ok();
  }
  Status send(const json& message, const mcp::SendOptions&) override {
    {
      std::lock_guard lock(mutex_);
      sent_->push_back(message);
    }
    if (!message.contains("id") || !message.contains("method")) return Status::Ok();
    if (std::optional<json> answer = script_(message)) callbacks_.on_message(std::move(*answer));
    return Status::Ok();
  }
  void close(std::chrono::milliseconds) override {}
  std::string describe() const override { return "scripted stdio"; }

 private:
  Script script_;
  std::shared_ptr<std::vector<json>> sent_;
  mcp::TransportCallbacks callbacks_;
  std::mutex mutex_;
};

json era_answer(const json& request, json result) {
  return {{"jsonrpc", "2.0"}, {"id", request["id"]}, {"result", result}};
}

std::optional<json> handshake_script(const json& m, bool answer_probe) {
  const std::string method = m.value("method", "");
  if (method == "initialize") {
    return era_answer(
        m, {{"protocolVersion", "2025-11-25"}, {"capabilities", json::object()}, {"serverInfo", {{"name", "old"}}}});
  }
  if (method == "server/discover") {
    if (!answer_probe) return std::nullopt;
    return json{{"jsonrpc", "2.0"}, {"id", m["id"]}, {"error", {{"code", -32601}, {"message", "Method not found"}}}};
  }
  return era_answer(m, {{"tools", json::array()}});
}

std::vector<std::string> sent_methods(const std::vector<json>& sent) {
  std::vector<std::string> out;
  for (const json& m : sent) out.push_back(m.value("method", m.contains("result") ? "(result)" : "?"));
  return out;
}

McpServerConfig era_stdio_config() {
  McpServerConfig config;
  config.name = "scripted";
  config.protocol_version = "auto";  // over stdio keel probes only when asked to
  config.protocol_version = "auto";  // stdio probes only when asked to
  config.startup_timeout_ms = 8000;
  config.call_timeout_ms = 2000;
  return config;
}

TEST(McpClientEraStdio, AModernServerIsSpokenToWithoutAHandshake) {
  auto sent = std::make_shared<std::vector<json>>();
  auto transport = std::make_unique<EraScriptTransport>(
      [](const json& m) -> std::optional<json> {
        if (m.value("method", "") == "server/discover") {
          return era_answer(m, {{"supportedVersions", {"2026-07-28"}}, {"capabilities", {{"tools", json::object()}}}});
        }
        return era_answer(m, {{"tools", json::array()}});
      },
      sent);
  auto client = mcp::connect_client(era_stdio_config(), std::move(transport), {});
  ASSERT_TRUE(client.ok()) << client.status().message();
  EXPECT_EQ((*client)->protocol_version(), "2026-07-28");
  ASSERT_TRUE((*client)->list_tools().ok());
  EXPECT_TRUE((*client)->ping().ok());  // no ping in the revision: a discover stands in
  EXPECT_EQ(sent_methods(*sent), (std::vector<std::string>{"server/discover", "tools/list", "server/discover"}));
  EXPECT_EQ((*sent)[1]["params"]["_meta"].value("io.modelcontextprotocol/protocolVersion", ""), "2026-07-28");
}

TEST(McpClientEraStdio, AHandshakeServerRefusingTheProbeGetsInitializeAtOnce) {
  auto sent = std::make_shared<std::vector<json>>();
  auto transport = std::make_unique<EraScriptTransport>([](const json& m) { return handshake_script(m, true); }, sent);
  const auto started = Clock::now();
  auto client = mcp::connect_client(era_stdio_config(), std::move(transport), {});
  ASSERT_TRUE(client.ok()) << client.status().message();
  EXPECT_LT(Clock::now() - started, std::chrono::seconds(2));
  EXPECT_EQ((*client)->protocol_version(), "2025-11-25");
  ASSERT_TRUE((*client)->list_tools().ok());
  const std::vector<std::string> methods = sent_methods(*sent);
  ASSERT_GE(methods.size(), 4u);
  EXPECT_EQ(methods[0], "server/discover");
  EXPECT_EQ(methods[1], "initialize");
  EXPECT_EQ(methods[2], "notifications/initialized");
  EXPECT_FALSE(sent->back()["params"].contains("_meta")) << sent->back().dump();
}

TEST(McpClientEraStdio, AServerSilentOnTheProbeGetsInitializeAfterTheProbeTimeout) {
  auto sent = std::make_shared<std::vector<json>>();
  auto transport = std::make_unique<EraScriptTransport>([](const json& m) { return handshake_script(m, false); }, sent);
  const auto started = Clock::now();
  auto client = mcp::connect_client(era_stdio_config(), std::move(transport), {});
  ASSERT_TRUE(client.ok()) << client.status().message();
  EXPECT_LT(Clock::now() - started, std::chrono::seconds(6));  // the probe's bound, not the startup timeout
  EXPECT_EQ((*client)->protocol_version(), "2025-11-25");
}

TEST(McpClientEraStdio, ByDefaultAStdioServerGetsTheHandshakeWithoutAProbe) {
  auto sent = std::make_shared<std::vector<json>>();
  auto transport = std::make_unique<EraScriptTransport>([](const json& m) { return handshake_script(m, true); }, sent);
  McpServerConfig config = era_stdio_config();
  config.protocol_version = "";
  auto client = mcp::connect_client(config, std::move(transport), {});
  ASSERT_TRUE(client.ok()) << client.status().message();
  EXPECT_EQ(sent_methods(*sent)[0], "initialize");
}

TEST(McpClientEraStdio, APinnedRevisionDoesNotFallBack) {
  auto sent = std::make_shared<std::vector<json>>();
  auto transport = std::make_unique<EraScriptTransport>([](const json& m) { return handshake_script(m, true); }, sent);
  McpServerConfig config = era_stdio_config();
  config.protocol_version = "2026-07-28";
  auto client = mcp::connect_client(config, std::move(transport), {});
  ASSERT_FALSE(client.ok());
  EXPECT_EQ(sent_methods(*sent)[0], "server/discover");
  for (const std::string& method : sent_methods(*sent)) EXPECT_NE(method, "initialize");
}

#ifdef KEEL_FAULT_MCP_SERVER
// The same against a real process (the handshake-only test server).
McpServerConfig fault_process_config(std::vector<std::string> args) {
  McpServerConfig config = era_stdio_config();
  config.name = "fault";
  config.command = KEEL_FAULT_MCP_SERVER;
  config.args = std::move(args);
  return config;
}

TEST(McpClientEraStdio, AHandshakeProcessAnsweringTheProbeWithAnErrorGetsInitialize) {
  auto client = McpClient::connect(fault_process_config({}));
  ASSERT_TRUE(client.ok()) << client.status().message();
  EXPECT_EQ((*client)->protocol_version(), "2025-11-25");
  auto r = (*client)->call_tool("echo", {{"text", "x"}});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->text(), "echo: x");
}

TEST(McpClientEraStdio, AProcessEndingOnTheProbeIsStartedAgainForTheHandshake) {
  std::vector<std::string> logs;
  McpClientHooks hooks;
  hooks.on_log = [&logs](std::string_view, std::string_view line) { logs.emplace_back(line); };
  auto client = McpClient::connect(fault_process_config({"--crash-on", "server/discover"}), hooks);
  ASSERT_TRUE(client.ok()) << client.status().message();
  EXPECT_EQ((*client)->protocol_version(), "2025-11-25");
  EXPECT_TRUE((*client)->ping().ok());
  bool restarted = false;
  for (const std::string& line : logs) restarted = restarted || line.find("restarting it") != std::string::npos;
  EXPECT_TRUE(restarted);
}

TEST(McpClientEraStdio, AProcessSilentOnTheProbeGetsInitializeAfterTheProbeTimeout) {
  const auto started = Clock::now();
  auto client = McpClient::connect(fault_process_config({"--hang-on", "server/discover"}));
  ASSERT_TRUE(client.ok()) << client.status().message();
  EXPECT_LT(Clock::now() - started, std::chrono::seconds(6));
  EXPECT_EQ((*client)->protocol_version(), "2025-11-25");
  EXPECT_TRUE((*client)->list_tools().ok());
}
#endif

}  // namespace
}  // namespace keel::testing
