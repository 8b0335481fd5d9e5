// MCP servers in the configuration: both keel files' `mcpServers` and the workspace's .mcp.json,
// in order, with workspace ones marked for trust, and errors that name the file.
#include <gtest/gtest.h>

#include "keel/config.hpp"
#include "support/config_dirs.hpp"
#include "support/temp_dir.hpp"

namespace keel {
namespace {

class ConfigMcpTest : public testing::ConfigDirsTest {
 protected:
  ConfigMcpTest() {
    in.env = {{"TOKEN", "t0k"}};
  }
};

TEST_F(ConfigMcpTest, ServersComeFromBothFilesAndMcpJsonLaterOnesReplacingEarlier) {
  dir.write("home/.config/keel/config.yaml",
            "mcpServers:\n"
            "  fs: {command: npx, args: [-y, server-filesystem, /tmp], call_timeout_ms: 5000}\n"
            "  shared: {command: user-version}\n");
  dir.write("ws/keel.yaml", "mcpServers:\n  docs:\n    type: http\n    url: http://127.0.0.1:9/mcp\n"
                            "    headers: {Authorization: 'Bearer ${TOKEN}'}\n");
  dir.write("ws/.mcp.json", R"({"mcpServers": {"shared": {"command": "repo-version", "args": ["--port", "8080"]}}})");
  Result<KeelConfig> cfg = resolve();
  ASSERT_TRUE(cfg.ok()) << cfg.status().message();
  ASSERT_EQ(cfg->mcp_servers.size(), 3u);
  const McpServerConfig& fs = cfg->mcp_servers[0];
  EXPECT_EQ(fs.name, "fs");
  EXPECT_EQ(fs.args, (std::vector<std::string>{"-y", "server-filesystem", "/tmp"}));
  EXPECT_EQ(fs.call_timeout_ms, 5000);
  EXPECT_FALSE(fs.from_workspace);
  const McpServerConfig& shared = cfg->mcp_servers[1];
  EXPECT_EQ(shared.command, "repo-version");
  EXPECT_EQ(shared.args, (std::vector<std::string>{"--port", "8080"}));
  EXPECT_TRUE(shared.from_workspace);
  EXPECT_EQ(shared.source, in.workspace + "/.mcp.json");
  const McpServerConfig& docs = cfg->mcp_servers[2];
  EXPECT_EQ(docs.transport, McpTransportKind::kHttp);
  EXPECT_EQ(docs.headers.at("Authorization"), "Bearer t0k");
  EXPECT_TRUE(docs.from_workspace);
}

TEST_F(ConfigMcpTest, ErrorsNameTheFileAndServer) {
  dir.write("ws/keel.yaml", "mcpServers:\n  x: {command: c, typo_key: 1}\n");
  Result<KeelConfig> bad_key = resolve();
  ASSERT_FALSE(bad_key.ok());
  EXPECT_NE(bad_key.status().message().find(in.workspace + "/keel.yaml: mcpServers.x: unknown key 'typo_key'"),
            std::string::npos)
      << bad_key.status().message();
  dir.write("ws/keel.yaml", "mcpServers: [a, b]\n");
  EXPECT_FALSE(resolve().ok());
  dir.write("ws/keel.yaml", "");
  dir.write("ws/.mcp.json", "{\"mcpServers\": {\"y\": {}}}");
  Result<KeelConfig> no_command = resolve();
  ASSERT_FALSE(no_command.ok());
  EXPECT_NE(no_command.status().message().find(".mcp.json: mcpServers.y: a stdio server needs \"command\""),
            std::string::npos)
      << no_command.status().message();
}

}  // namespace
}  // namespace keel
