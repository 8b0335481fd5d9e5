// keel's MCP client against the reference servers from npm (build/npm, installed by
// scripts/install-test-npm.sh): server-filesystem and server-everything over stdio, and
// server-everything over Streamable HTTP and the legacy HTTP+SSE transport.
// Skipped when the packages are missing, unless KEEL_REQUIRE_NPM is set (make test sets it).
#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <mutex>
#include <thread>
#include <vector>

#include "keel/mcp.hpp"
#include "support/temp_dir.hpp"

extern char** environ;

namespace keel {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

const fs::path kNpm = KEEL_NPM_DIR;

std::string node() { return (kNpm / "node_modules/.bin/node").string(); }
std::string package_main(const std::string& package) {
  return (kNpm / "node_modules/@modelcontextprotocol" / package / "dist/index.js").string();
}

#define REQUIRE_NPM()                                                                                   \
  do {                                                                                                  \
    if (!fs::exists(node())) {                                                                          \
      if (std::getenv("KEEL_REQUIRE_NPM") != nullptr) FAIL() << "missing " << node() << "; run scripts/install-test-npm.sh"; \
      GTEST_SKIP() << "npm test peers not installed (scripts/install-test-npm.sh)";                    \
    }                                                                                                   \
  } while (0)

std::vector<std::string> names(const std::vector<McpToolInfo>& tools) {
  std::vector<std::string> out;
  for (const auto& t : tools) out.push_back(t.name);
  return out;
}

bool has(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }

McpServerConfig stdio_server(const std::string& name, std::vector<std::string> args) {
  McpServerConfig c;
  c.name = name;
  c.command = node();
  c.args = std::move(args);
  c.startup_timeout_ms = 30000;  // node starting on a loaded 2-core machine
  c.call_timeout_ms = 30000;
  return c;
}

TEST(NpmMcpServers, FilesystemServerOverStdio) {
  REQUIRE_NPM();
  testing::TempDir dir;
  dir.write("hello.txt", "hello from a file\n");
  auto client = McpClient::connect(stdio_server("fs", {package_main("server-filesystem"), dir.path().string()}));
  ASSERT_TRUE(client.ok()) << client.status().message();
  auto tools = (*client)->list_tools();
  ASSERT_TRUE(tools.ok()) << tools.status().message();
  auto tool_names = names(*tools);
  EXPECT_TRUE(has(tool_names, "read_text_file")) << ::testing::PrintToString(tool_names);
  EXPECT_TRUE(has(tool_names, "write_file"));
  EXPECT_TRUE(has(tool_names, "list_directory"));

  auto read = (*client)->call_tool("read_text_file", {{"path", (dir.path() / "hello.txt").string()}});
  ASSERT_TRUE(read.ok()) << read.status().message();
  EXPECT_FALSE(read->is_error) << read->text();
  EXPECT_NE(read->text().find("hello from a file"), std::string::npos) << read->text();

  auto write = (*client)->call_tool("write_file", {{"path", (dir.path() / "new.txt").string()}, {"content", "written"}});
  ASSERT_TRUE(write.ok()) << write.status().message();
  EXPECT_FALSE(write->is_error) << write->text();
  EXPECT_TRUE(fs::exists(dir.path() / "new.txt"));

  auto listing = (*client)->call_tool("list_directory", {{"path", dir.path().string()}});
  ASSERT_TRUE(listing.ok());
  EXPECT_NE(listing->text().find("new.txt"), std::string::npos) << listing->text();

  // Outside its allowed directory the server refuses: an error result, not a transport failure.
  auto outside = (*client)->call_tool("read_text_file", {{"path", "/etc/hostname"}});
  ASSERT_TRUE(outside.ok()) << outside.status().message();
  EXPECT_TRUE(outside->is_error) << outside->text();
  (*client)->close();
}

void exercise_everything(McpClient& client) {
  auto tools = client.list_tools();
  ASSERT_TRUE(tools.ok()) << tools.status().message();
  auto tool_names = names(*tools);
  ASSERT_TRUE(has(tool_names, "echo")) << ::testing::PrintToString(tool_names);
  ASSERT_TRUE(has(tool_names, "get-sum"));

  auto echo = client.call_tool("echo", {{"message", "round trip"}});
  ASSERT_TRUE(echo.ok()) << echo.status().message();
  EXPECT_NE(echo->text().find("round trip"), std::string::npos) << echo->text();
  auto sum = client.call_tool("get-sum", {{"a", 2}, {"b", 40}});
  ASSERT_TRUE(sum.ok()) << sum.status().message();
  EXPECT_NE(sum->text().find("42"), std::string::npos) << sum->text();
  if (has(tool_names, "get-tiny-image")) {
    auto image = client.call_tool("get-tiny-image", json::object());
    ASSERT_TRUE(image.ok()) << image.status().message();
    EXPECT_NE(image->text().find("[image image/png"), std::string::npos) << image->text();
  }

  auto resources = client.list_resources();
  ASSERT_TRUE(resources.ok()) << resources.status().message();
  ASSERT_FALSE(resources->empty());
  std::string uri = (*resources)[0]["uri"].get<std::string>();
  auto read = client.read_resource(uri);
  ASSERT_TRUE(read.ok()) << read.status().message();
  ASSERT_TRUE((*read)["contents"].is_array());
  EXPECT_EQ((*read)["contents"][0]["uri"], uri);

  auto prompts = client.list_prompts();
  ASSERT_TRUE(prompts.ok()) << prompts.status().message();
  bool simple = false;
  for (const auto& p : *prompts) simple = simple || p.value("name", "") == "simple-prompt";
  ASSERT_TRUE(simple) << prompts->dump();
  auto prompt = client.get_prompt("simple-prompt", json::object());
  ASSERT_TRUE(prompt.ok()) << prompt.status().message();
  EXPECT_FALSE((*prompt)["messages"].empty());
  EXPECT_TRUE(client.ping().ok());
}

TEST(NpmMcpServers, EverythingServerOverStdio) {
  REQUIRE_NPM();
  auto client = McpClient::connect(stdio_server("everything", {package_main("server-everything"), "stdio"}));
  ASSERT_TRUE(client.ok()) << client.status().message();
  EXPECT_EQ((*client)->protocol_version(), "2025-11-25");
  exercise_everything(**client);
  (*client)->close();
}

int free_port() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  socklen_t len = sizeof addr;
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  close(fd);
  return ntohs(addr.sin_port);
}

bool port_open(int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bool ok = connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  close(fd);
  return ok;
}

// server-everything on a free port with the given transport, stopped at the end of the test.
class EverythingHttp {
 public:
  explicit EverythingHttp(const std::string& transport) : port_(free_port()) {
    std::vector<std::string> args = {node(), package_main("server-everything"), transport};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    std::vector<std::string> env = {"PORT=" + std::to_string(port_), "PATH=/usr/bin:/bin"};
    std::vector<char*> envp;
    for (auto& e : env) envp.push_back(e.data());
    envp.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
    if (posix_spawn(&pid_, argv[0], &actions, nullptr, argv.data(), envp.data()) != 0) pid_ = -1;
    posix_spawn_file_actions_destroy(&actions);
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (pid_ > 0 && !port_open(port_) && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }
  ~EverythingHttp() {
    if (pid_ > 0) {
      kill(pid_, SIGTERM);
      int status = 0;
      waitpid(pid_, &status, 0);
    }
  }
  bool ready() const { return pid_ > 0 && port_open(port_); }
  std::string url(const std::string& path) const { return "http://127.0.0.1:" + std::to_string(port_) + path; }

 private:
  int port_;
  pid_t pid_ = -1;
};

// server-everything started with `transport`, reached over `kind` at `path`, then exercised.
void exercise_everything_over_http(const std::string& transport, McpTransportKind kind, const std::string& path) {
  EverythingHttp server(transport);
  ASSERT_TRUE(server.ready());
  McpServerConfig c;
  c.name = "everything";
  c.transport = kind;
  c.url = server.url(path);
  c.startup_timeout_ms = 30000;
  c.call_timeout_ms = 30000;
  auto client = McpClient::connect(c);
  ASSERT_TRUE(client.ok()) << client.status().message();
  exercise_everything(**client);
  (*client)->close();
}

TEST(NpmMcpServers, EverythingServerOverStreamableHttp) {
  REQUIRE_NPM();
  exercise_everything_over_http("streamableHttp", McpTransportKind::kHttp, "/mcp");
}

TEST(NpmMcpServers, EverythingServerOverLegacySse) {
  REQUIRE_NPM();
  exercise_everything_over_http("sse", McpTransportKind::kSse, "/sse");
}

// The reference server's trigger-sampling-request tool, offered only to a client that declares
// sampling: it sends sampling/createMessage back to keel (in the tool call's response stream over
// HTTP) and checks the answer against the SDK's CreateMessageResultSchema. A refusal reaches the
// tool as JSON-RPC error -1, and its reason comes back in the tool's error.
void exercise_everything_sampling(const McpServerConfig& config) {
  std::mutex mu;
  std::vector<json> asked;
  bool refuse = false;
  McpClientHooks hooks;
  hooks.on_sampling = [&](std::string_view server, const json& params) -> Result<json> {
    std::lock_guard lock(mu);
    EXPECT_EQ(server, "everything");
    asked.push_back(params);
    if (refuse) return Status::PermissionDenied("MCP server 'everything' may not use keel's model: test refusal");
    return json{{"role", "assistant"},
                {"content", {{"type", "text"}, {"text", "Sampled by keel."}}},
                {"model", "keel-test-model"},
                {"stopReason", "endTurn"}};
  };
  auto client = McpClient::connect(config, hooks);
  ASSERT_TRUE(client.ok()) << client.status().message();
  auto tools = (*client)->list_tools();
  ASSERT_TRUE(tools.ok()) << tools.status().message();
  ASSERT_TRUE(has(names(*tools), "trigger-sampling-request")) << ::testing::PrintToString(names(*tools));

  auto sampled = (*client)->call_tool("trigger-sampling-request", {{"prompt", "Name a colour"}, {"maxTokens", 42}});
  ASSERT_TRUE(sampled.ok()) << sampled.status().message();
  EXPECT_FALSE(sampled->is_error) << sampled->text();
  EXPECT_NE(sampled->text().find("Sampled by keel."), std::string::npos) << sampled->text();
  EXPECT_NE(sampled->text().find("keel-test-model"), std::string::npos) << sampled->text();
  {
    std::lock_guard lock(mu);
    ASSERT_EQ(asked.size(), 1u);
    EXPECT_EQ(asked[0]["maxTokens"], 42);
    EXPECT_EQ(asked[0]["systemPrompt"], "You are a helpful test server.");
    EXPECT_NE(asked[0]["messages"][0]["content"]["text"].get<std::string>().find("Name a colour"), std::string::npos);
    refuse = true;
  }
  auto refused = (*client)->call_tool("trigger-sampling-request", {{"prompt", "again"}});
  ASSERT_TRUE(refused.ok()) << refused.status().message();
  EXPECT_TRUE(refused->is_error) << refused->text();
  EXPECT_NE(refused->text().find("test refusal"), std::string::npos) << refused->text();
  (*client)->close();
}

TEST(NpmMcpServers, EverythingServerSamplesKeelsModelOverStdio) {
  REQUIRE_NPM();
  exercise_everything_sampling(stdio_server("everything", {package_main("server-everything"), "stdio"}));
}

TEST(NpmMcpServers, EverythingServerSamplesKeelsModelOverStreamableHttp) {
  REQUIRE_NPM();
  EverythingHttp server("streamableHttp");
  ASSERT_TRUE(server.ready());
  McpServerConfig c;
  c.name = "everything";
  c.transport = McpTransportKind::kHttp;
  c.url = server.url("/mcp");
  c.startup_timeout_ms = 30000;
  c.call_timeout_ms = 30000;
  exercise_everything_sampling(c);
}

}  // namespace
}  // namespace keel
