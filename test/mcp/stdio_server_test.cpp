// serve_stdio: newline-delimited JSON-RPC on a pipe pair, requests on workers, errors as JSON-RPC.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "mcp_server/stdio_server.hpp"

namespace keel {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

// Answers ping at once, "slow" after it is cancelled or 5 s, and echoes anything else's params.
class FakeHandler final : public mcp::MessageHandler {
 public:
  std::optional<json> handle(const json& m, const Notify& notify) override {
    if (!m.contains("id")) {
      if (m.value("method", "") == "notifications/cancelled") cancelled_ = true;
      return std::nullopt;
    }
    std::string method = m.value("method", "");
    if (method == "slow") {
      auto until = std::chrono::steady_clock::now() + 5s;
      while (!cancelled_ && std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(5ms);
      return json{{"jsonrpc", "2.0"}, {"id", m["id"]}, {"result", {{"cancelled", cancelled_.load()}}}};
    }
    if (method == "notify") notify({{"jsonrpc", "2.0"}, {"method", "notifications/message"}});
    return json{{"jsonrpc", "2.0"}, {"id", m["id"]}, {"result", m.value("params", json::object())}};
  }

 private:
  std::atomic<bool> cancelled_{false};
};

class StdioServer : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(pipe2(to_server_, O_CLOEXEC), 0);
    ASSERT_EQ(pipe2(from_server_, O_CLOEXEC), 0);
    mcp::StdioServeOptions o;
    o.in_fd = to_server_[0];
    o.out_fd = from_server_[1];
    o.max_message_bytes = 1024;
    server_ = std::thread([this, o] { result_ = mcp::serve_stdio(handler_, o); });
  }
  void TearDown() override {
    if (to_server_[1] >= 0) close(to_server_[1]);
    if (server_.joinable()) server_.join();
    close(to_server_[0]);
    close(from_server_[0]);
    close(from_server_[1]);
  }
  void send(const std::string& line) {
    std::string data = line + "\n";
    ASSERT_EQ(write(to_server_[1], data.data(), data.size()), static_cast<ssize_t>(data.size()));
  }
  // The next line the server wrote, or "" after 5 s.
  std::string read_line() {
    auto deadline = std::chrono::steady_clock::now() + 5s;
    while (std::chrono::steady_clock::now() < deadline) {
      if (size_t nl = buffer_.find('\n'); nl != std::string::npos) {
        std::string line = buffer_.substr(0, nl);
        buffer_.erase(0, nl + 1);
        return line;
      }
      pollfd p{from_server_[0], POLLIN, 0};
      if (poll(&p, 1, 100) <= 0) continue;
      char buf[4096];
      ssize_t n = read(from_server_[0], buf, sizeof buf);
      if (n <= 0) break;
      buffer_.append(buf, static_cast<size_t>(n));
    }
    return "";
  }
  json read_json() { return json::parse(read_line(), nullptr, false); }

  FakeHandler handler_;
  int to_server_[2] = {-1, -1};
  int from_server_[2] = {-1, -1};
  std::thread server_;
  Status result_;
  std::string buffer_;
};

TEST_F(StdioServer, AnswersRequestsLineByLine) {
  send(R"({"jsonrpc":"2.0","id":1,"method":"echo","params":{"a":1}})");
  json r = read_json();
  EXPECT_EQ(r["id"], 1);
  EXPECT_EQ(r["result"], json({{"a", 1}}));
}

TEST_F(StdioServer, BadLinesGetJsonRpcErrors) {
  send("not json");
  json parse = read_json();
  EXPECT_EQ(parse["error"]["code"], -32700);
  EXPECT_TRUE(parse["id"].is_null());
  send(R"([{"jsonrpc":"2.0","id":1,"method":"echo"}])");
  EXPECT_NE(read_json()["error"]["message"].get<std::string>().find("batches"), std::string::npos);
  send(R"({"jsonrpc":"2.0","id":2,"method":"echo","params":{"x":")" + std::string(2000, 'x') + R"("}})");
  EXPECT_NE(read_json()["error"]["message"].get<std::string>().find("longer than 1024"), std::string::npos);
  send(R"({"jsonrpc":"2.0","id":3,"method":"echo"})");
  EXPECT_EQ(read_json()["id"], 3);  // still serving
}

TEST_F(StdioServer, PingIsAnsweredWhileASlowRequestRunsAndCancellationReachesIt) {
  send(R"({"jsonrpc":"2.0","id":1,"method":"slow"})");
  send(R"({"jsonrpc":"2.0","id":2,"method":"ping"})");
  json first = read_json();
  EXPECT_EQ(first["id"], 2);
  send(R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}})");
  json second = read_json();
  EXPECT_EQ(second["id"], 1);
  EXPECT_EQ(second["result"]["cancelled"], true);
}

TEST_F(StdioServer, NotificationsDuringARequestComeBeforeItsResponse) {
  send(R"({"jsonrpc":"2.0","id":7,"method":"notify"})");
  EXPECT_EQ(read_json()["method"], "notifications/message");
  EXPECT_EQ(read_json()["id"], 7);
}

TEST_F(StdioServer, EndOfInputEndsServingCleanly) {
  send(R"({"jsonrpc":"2.0","id":1,"method":"echo"})");
  EXPECT_EQ(read_json()["id"], 1);
  close(to_server_[1]);
  to_server_[1] = -1;
  server_.join();
  EXPECT_TRUE(result_.ok()) << result_.message();
}

}  // namespace
}  // namespace keel
