// keel's MCP client against keel's MCP server, in process: the protocol both ways without a transport.
#include <gtest/gtest.h>

#include <thread>

#include "keel/mcp.hpp"
#include "mcp/client_connect.hpp"
#include "mcp_server/keel_mcp_handler.hpp"
#include "support/mcp_loopback.hpp"

namespace keel {
namespace {

using nlohmann::json;

std::unique_ptr<ToolRegistry> sample_tools() {
  auto tools = std::make_unique<ToolRegistry>();
  ToolTraits ro;
  ro.read_only = true;
  EXPECT_TRUE(tools
                  ->add(make_tool(make_tool_spec("echo", "Echo text",
                                                 R"({"type":"object","properties":{"text":{"type":"string"}},"required":["text"]})",
                                                 ro),
                                  [](const json& args, const ToolContext&) -> Result<std::string> {
                                    return "echo: " + args["text"].get<std::string>();
                                  }))
                  .ok());
  ToolTraits high;
  high.risk = Risk::kHigh;
  EXPECT_TRUE(tools
                  ->add(make_tool(make_tool_spec("danger", "Deletes things", R"({"type":"object","properties":{}})", high),
                                  [](const json&, const ToolContext&) -> Result<std::string> { return std::string("deleted"); }))
                  .ok());
  return tools;
}

struct AllowAll : ApprovalGate {
  GateVerdict check(const ToolCall&, std::string_view, const ToolSpec&) const override {
    return GateVerdict::allow("test");
  }
};

struct DenyDanger : ApprovalGate {
  GateVerdict check(const ToolCall& call, std::string_view, const ToolSpec&) const override {
    return call.name == "danger" ? GateVerdict::deny("rule no-danger") : GateVerdict::ask("confirm mode");
  }
};

class McpClientServer : public ::testing::Test {
 protected:
  void connect(std::shared_ptr<const ApprovalGate> gate = nullptr, bool with_agent = false) {
    tools_ = sample_tools();
    mcp::KeelMcpServerOptions o;
    o.tools = tools_.get();
    o.gate = std::move(gate);
    o.instructions = "test server";
    if (with_agent) {
      o.run_agent = [this](const std::string& task, std::optional<int> rounds, std::stop_token) -> Result<std::string> {
        agent_task_ = task;
        agent_rounds_ = rounds;
        if (task == "fail") return Status::Aborted("round limit reached");
        return "answer to " + task;
      };
    }
    server_ = std::make_unique<mcp::KeelMcpServer>(std::move(o));
    auto transport = std::make_unique<test::LoopbackTransport>(server_->new_session());
    loopback_ = transport.get();
    McpServerConfig config;
    config.name = "keel";
    config.protocol_version = version_;
    auto client = mcp::connect_client(config, std::move(transport), {});
    ASSERT_TRUE(client.ok()) << client.status().message();
    client_ = std::move(*client);
  }

  std::unique_ptr<ToolRegistry> tools_;
  std::unique_ptr<mcp::KeelMcpServer> server_;
  test::LoopbackTransport* loopback_ = nullptr;
  std::unique_ptr<McpClient> client_;
  std::string version_;  // McpServerConfig::protocol_version: "" the handshake on stdio, "auto" both eras
  std::string agent_task_;
  std::optional<int> agent_rounds_;
};

TEST_F(McpClientServer, ProbedTheStatelessRevisionIsSpoken) {
  version_ = "auto";  // over stdio keel probes only when asked to
  connect();
  EXPECT_EQ(client_->protocol_version(), "2026-07-28");
  EXPECT_EQ(client_->server_info().value("name", ""), "keel");
  EXPECT_TRUE(client_->server_capabilities().contains("tools"));
  EXPECT_TRUE(client_->ping().ok());
  auto r = client_->call_tool("echo", {{"text", "hi"}});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->text(), "echo: hi");
}

TEST_F(McpClientServer, InitializeNegotiatesTheNewestVersion) {
  version_ = "2025-11-25";
  connect();
  EXPECT_EQ(client_->protocol_version(), "2025-11-25");
  EXPECT_EQ(loopback_->protocol_version(), "2025-11-25");
  EXPECT_EQ(client_->server_info().value("name", ""), "keel");
  EXPECT_TRUE(client_->server_capabilities().contains("tools"));
  EXPECT_TRUE(client_->alive());
  EXPECT_TRUE(client_->ping().ok());
}

TEST_F(McpClientServer, ListsToolsWithAnnotations) {
  connect(nullptr, true);
  auto tools = client_->list_tools();
  ASSERT_TRUE(tools.ok()) << tools.status().message();
  ASSERT_EQ(tools->size(), 3u);
  EXPECT_EQ((*tools)[0].name, "echo");
  EXPECT_EQ((*tools)[0].annotations.value("readOnlyHint", false), true);
  EXPECT_EQ((*tools)[0].input_schema["required"], json::array({"text"}));
  EXPECT_EQ((*tools)[1].name, "danger");
  EXPECT_EQ((*tools)[1].annotations.value("destructiveHint", false), true);
  EXPECT_EQ((*tools)[2].name, "run_agent");
}

TEST_F(McpClientServer, CallsATool) {
  connect();
  auto r = client_->call_tool("echo", {{"text", "hi"}});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_FALSE(r->is_error);
  EXPECT_EQ(r->text(), "echo: hi");
}

TEST_F(McpClientServer, InvalidArgumentsAreAToolErrorTheModelCanFix) {
  connect();
  auto r = client_->call_tool("echo", {{"txt", "hi"}});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(r->is_error);
  EXPECT_NE(r->text().find("text"), std::string::npos) << r->text();
}

TEST_F(McpClientServer, UnknownToolIsAProtocolError) {
  connect();
  auto r = client_->call_tool("nope", json::object());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("unknown tool: nope"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("-32602"), std::string::npos);
}

TEST_F(McpClientServer, HighRiskToolIsRefusedWithoutAPolicy) {
  connect();
  auto r = client_->call_tool("danger", json::object());
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->is_error);
  EXPECT_NE(r->text().find("high-risk"), std::string::npos) << r->text();
}

TEST_F(McpClientServer, PolicyDecidesAndAskMeansRefused) {
  connect(std::make_shared<DenyDanger>());
  auto denied = client_->call_tool("danger", json::object());
  ASSERT_TRUE(denied.ok());
  EXPECT_TRUE(denied->is_error);
  EXPECT_NE(denied->text().find("rule no-danger"), std::string::npos) << denied->text();
  auto asked = client_->call_tool("echo", {{"text", "x"}});
  ASSERT_TRUE(asked.ok());
  EXPECT_TRUE(asked->is_error);
  // keel's client answers an elicitation with the schema's defaults: "allow" defaults to false.
  EXPECT_NE(asked->text().find("did not allow it"), std::string::npos) << asked->text();
}

TEST_F(McpClientServer, PolicyCanAllowAHighRiskTool) {
  connect(std::make_shared<AllowAll>());
  auto r = client_->call_tool("danger", json::object());
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->is_error);
  EXPECT_EQ(r->text(), "deleted");
}

TEST_F(McpClientServer, RunAgentReturnsTheAnswerOrTheFailure) {
  connect(nullptr, true);
  auto r = client_->call_tool("run_agent", {{"task", "count files"}, {"max_rounds", 3}});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_FALSE(r->is_error);
  EXPECT_EQ(r->text(), "answer to count files");
  EXPECT_EQ(agent_task_, "count files");
  EXPECT_EQ(agent_rounds_, 3);
  auto failed = client_->call_tool("run_agent", {{"task", "fail"}});
  ASSERT_TRUE(failed.ok());
  EXPECT_TRUE(failed->is_error);
  EXPECT_NE(failed->text().find("round limit reached"), std::string::npos);
}

TEST_F(McpClientServer, UnknownMethodIsNotFound) {
  version_ = "2025-11-25";  // logging/setLevel is a handshake-era method
  connect();
  auto r = client_->request("resources/list", json::object());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kNotFound);
  auto level = client_->request("logging/setLevel", {{"level", "loud"}});
  EXPECT_FALSE(level.ok());
  EXPECT_TRUE(client_->request("logging/setLevel", {{"level", "debug"}}).ok());
}

TEST_F(McpClientServer, ADroppedConnectionFailsLaterCallsWithTheReason) {
  connect();
  loopback_->drop("server process exited with code 3");
  EXPECT_FALSE(client_->alive());
  auto r = client_->call_tool("echo", {{"text", "x"}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kUnavailable);
  EXPECT_NE(r.status().message().find("exited with code 3"), std::string::npos);
}

TEST_F(McpClientServer, ParallelCallsShareOneConnection) {
  connect();
  std::vector<std::thread> threads;
  std::atomic<int> ok{0};
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&, i] {
      auto r = client_->call_tool("echo", {{"text", std::to_string(i)}});
      if (r.ok() && r->text() == "echo: " + std::to_string(i)) ++ok;
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(ok.load(), 8);
}

// Answers initialize with a protocol version keel does not speak.
class OldServer final : public mcp::MessageHandler {
 public:
  std::optional<json> handle(const json& m, const Notify&) override {
    if (!m.contains("id")) return std::nullopt;
    return json{{"jsonrpc", "2.0"},
                {"id", m["id"]},
                {"result", {{"protocolVersion", "2023-01-01"}, {"capabilities", json::object()}, {"serverInfo", {{"name", "old"}}}}}};
  }
};

TEST(McpClientVersion, AServerSpeakingAnUnsupportedVersionIsRefusedByName) {
  McpServerConfig config;
  config.name = "old";
  auto client = mcp::connect_client(config, std::make_unique<test::LoopbackTransport>(std::make_unique<OldServer>()), {});
  ASSERT_FALSE(client.ok());
  EXPECT_EQ(client.status().code(), ErrorCode::kFailedPrecondition);
  EXPECT_NE(client.status().message().find("\"2023-01-01\""), std::string::npos) << client.status().message();
}

}  // namespace
}  // namespace keel
