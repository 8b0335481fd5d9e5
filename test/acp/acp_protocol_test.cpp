// The ACP host below the official library's view (test/acp/acp_sdk_test.mjs drives the happy
// paths with it): JSON-RPC framing and errors of JsonRpcPeer, requests this side sends, prompt
// content, and keel's answers to malformed ACP messages, each over a pipe.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <future>
#include <nlohmann/json.hpp>
#include <thread>

#include "acp/acp_server.hpp"
#include "acp/json_rpc_peer.hpp"
#include "acp/prompt_content.hpp"
#include "support/scoped_env.hpp"
#include "support/temp_dir.hpp"

namespace keel::acp {
namespace {

using nlohmann::json;

// Two pipes: what the test writes is the peer's input; what the peer writes the test reads.
struct Wire {
  int to_peer[2] = {-1, -1};
  int from_peer[2] = {-1, -1};
  std::string pending;
  Wire() {
    EXPECT_EQ(::pipe(to_peer), 0);
    EXPECT_EQ(::pipe(from_peer), 0);
  }
  ~Wire() {
    for (int fd : {to_peer[0], to_peer[1], from_peer[0], from_peer[1]})
      if (fd >= 0) ::close(fd);
  }
  void send(const std::string& line) {
    const std::string l = line + "\n";
    ASSERT_EQ(::write(to_peer[1], l.data(), l.size()), static_cast<ssize_t>(l.size()));
  }
  void close_input() {
    ::close(to_peer[1]);
    to_peer[1] = -1;
  }
  // The next line the peer wrote, as JSON (blocks; a test that hangs here failed to answer).
  json next() {
    for (;;) {
      if (size_t nl = pending.find('\n'); nl != std::string::npos) {
        json j = json::parse(pending.substr(0, nl));
        pending.erase(0, nl + 1);
        return j;
      }
      char buf[4096];
      ssize_t n = ::read(from_peer[0], buf, sizeof(buf));
      if (n <= 0) return json();
      pending.append(buf, static_cast<size_t>(n));
    }
  }
};

class EchoHandler : public RpcHandler {
 public:
  explicit EchoHandler(JsonRpcPeer& peer) : peer_(peer) {}
  void on_request(const json& id, const std::string& method, const json& params) override {
    peer_.respond(id, {{"method", method}, {"params", params}});
  }
  void on_notification(const std::string& method, const json&) override { notified.push_back(method); }
  std::vector<std::string> notified;

 private:
  JsonRpcPeer& peer_;
};

TEST(JsonRpcPeer, AnswersRequestsAndTheProtocolsErrors) {
  Wire w;
  JsonRpcPeer peer(w.to_peer[0], w.from_peer[1]);
  EchoHandler handler(peer);
  std::thread serving([&] { EXPECT_TRUE(peer.serve(handler).ok()); });
  w.send(R"({"jsonrpc":"2.0","id":"a","method":"hello","params":{"x":1}})");
  json r = w.next();
  EXPECT_EQ(r["id"], "a");
  EXPECT_EQ(r["result"]["params"]["x"], 1);
  w.send("this is not json");
  r = w.next();
  EXPECT_EQ(r["error"]["code"], kParseError);
  EXPECT_TRUE(r["id"].is_null());
  w.send(R"({"id":3,"method":"hello"})");  // no "jsonrpc": "2.0"
  r = w.next();
  EXPECT_EQ(r["error"]["code"], kInvalidRequest);
  EXPECT_EQ(r["id"], 3);
  w.send(R"({"jsonrpc":"2.0","id":{"no":1},"method":"hello"})");  // an id must be a string or integer
  EXPECT_EQ(w.next()["error"]["code"], kInvalidRequest);
  w.send(R"({"jsonrpc":"2.0","method":"note"})");  // a notification: no answer
  w.send("");                                          // a blank line: ignored
  w.send(R"({"jsonrpc":"2.0","id":4,"method":"last"})");
  r = w.next();
  EXPECT_EQ(r["id"], 4);  // nothing was written for the notification or the blank line
  w.close_input();
  serving.join();
  EXPECT_EQ(handler.notified, std::vector<std::string>{"note"});
}

TEST(JsonRpcPeer, RequestsWaitForTheirAnswerAndEndCleanly) {
  Wire w;
  JsonRpcPeer peer(w.to_peer[0], w.from_peer[1]);
  EchoHandler handler(peer);
  std::thread serving([&] { (void)peer.serve(handler); });
  auto asked = std::async(std::launch::async, [&] {
    return peer.request("session/request_permission", {{"q", 1}}, {}, std::chrono::seconds(10));
  });
  json out = w.next();
  EXPECT_EQ(out["method"], "session/request_permission");
  w.send(json({{"jsonrpc", "2.0"}, {"id", out["id"]}, {"result", {{"answer", "yes"}}}}).dump());
  Result<json> got = asked.get();
  ASSERT_TRUE(got.ok()) << got.status().message();
  EXPECT_EQ((*got)["answer"], "yes");

  // An error answer names its code.
  auto refused = std::async(std::launch::async, [&] { return peer.request("fs/read_text_file", json::object(), {}, std::chrono::seconds(10)); });
  out = w.next();
  w.send(json({{"jsonrpc", "2.0"}, {"id", out["id"]}, {"error", {{"code", -32000}, {"message", "no"}}}}).dump());
  Result<json> error = refused.get();
  ASSERT_FALSE(error.ok());
  EXPECT_NE(error.status().message().find("-32000"), std::string::npos) << error.status().message();

  // A stop ends the wait; so does a timeout.
  std::stop_source stop;
  auto stopped = std::async(std::launch::async, [&] { return peer.request("x", json::object(), stop.get_token(), std::chrono::seconds(10)); });
  (void)w.next();
  stop.request_stop();
  EXPECT_EQ(stopped.get().status().code(), ErrorCode::kCancelled);
  Result<json> late = peer.request("y", json::object(), {}, std::chrono::milliseconds(50));
  EXPECT_EQ(late.status().code(), ErrorCode::kDeadlineExceeded);
  (void)w.next();

  // The input ends while a request waits: it fails at once instead of waiting out its timeout.
  auto orphan = std::async(std::launch::async, [&] { return peer.request("z", json::object(), {}, std::chrono::seconds(30)); });
  (void)w.next();
  w.close_input();
  EXPECT_EQ(orphan.get().status().code(), ErrorCode::kUnavailable);
  serving.join();
}

TEST(AcpPromptContent, ReadsTextLinksAndEmbeddedResources) {
  Result<std::string> t = prompt_text(json::parse(R"([{"type":"text","text":"fix the bug"},
      {"type":"resource_link","uri":"file:///w/a.cpp","name":"a.cpp"},
      {"type":"resource","resource":{"uri":"file:///w/b.txt","text":"hello"}}])"));
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(*t, "fix the bug\n\n[a.cpp](file:///w/a.cpp)\n\nfile:///w/b.txt:\n```\nhello\n```");
  for (const char* bad : {R"([])", R"("text")", R"([{"type":"image","data":"AA","mimeType":"image/png"}])",
                          R"([{"type":"resource","resource":{"uri":"x","blob":"AA"}}])", R"([{"type":"video"}])",
                          R"([{"text":"no type"}])"}) {
    Result<std::string> r = prompt_text(json::parse(bad));
    EXPECT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().code(), ErrorCode::kInvalidArgument) << bad;
  }
}

// keel's ACP agent on a pipe, with the rules model and a store in a temporary KEEL_HOME.
class AcpServerTest : public ::testing::Test {
 protected:
  AcpServerTest()
      : home_("KEEL_HOME", (dir_.path() / "home").string()),
        xdg_("XDG_CONFIG_HOME", (dir_.path() / "config").string()),
        key_("OPENAI_API_KEY", std::nullopt) {
    dir_.write("ws/.keep", "");
    options_.inputs.model = "rules";
    serving_ = std::thread([this] { served_ = serve_acp(options_, w_.to_peer[0], w_.from_peer[1]); });
  }
  ~AcpServerTest() override {
    w_.close_input();
    serving_.join();
  }
  json call(int id, const std::string& method, const json& params) {
    w_.send(json({{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}}).dump());
    for (;;) {
      json r = w_.next();
      if (r.is_null() || r.value("id", json()) == id) return r;  // session/update notifications pass by
    }
  }
  std::string ws() const { return (dir_.path() / "ws").string(); }

  testing::TempDir dir_;
  testing::ScopedEnv home_, xdg_, key_;
  Wire w_;
  AcpServerOptions options_;
  Status served_ = Status::Ok();
  std::thread serving_;
};

TEST_F(AcpServerTest, MalformedMessagesGetTheProtocolsErrorsAndTheSessionSurvives) {
  EXPECT_EQ(call(1, "initialize", json::object())["error"]["code"], kInvalidParams);  // no protocolVersion
  EXPECT_EQ(call(2, "initialize", {{"protocolVersion", 1}})["result"]["protocolVersion"], 1);
  EXPECT_EQ(call(3, "session/new", {{"cwd", "relative/path"}, {"mcpServers", json::array()}})["error"]["code"], kInvalidParams);
  EXPECT_EQ(call(4, "session/new", {{"cwd", ws() + "/missing"}, {"mcpServers", json::array()}})["error"]["code"], kInvalidParams);
  EXPECT_EQ(call(5, "session/new", {{"cwd", ws()}, {"mcpServers", "none"}})["error"]["code"], kInvalidParams);
  EXPECT_EQ(call(6, "authenticate", {{"methodId", "x"}})["error"]["code"], kInvalidParams);
  EXPECT_EQ(call(7, "session/prompt", json::array())["error"]["code"], kInvalidParams);  // params not an object
  json created = call(8, "session/new", {{"cwd", ws()}, {"mcpServers", json::array()}});
  ASSERT_TRUE(created["result"]["sessionId"].is_string()) << created.dump();
  const std::string sid = created["result"]["sessionId"];
  EXPECT_EQ(call(9, "session/prompt", {{"prompt", json::array({{{"type", "text"}, {"text", "hi"}}})}})["error"]["code"],
            kInvalidParams);  // no sessionId
  EXPECT_EQ(call(10, "session/prompt", {{"sessionId", sid}, {"prompt", json::array()}})["error"]["code"], kInvalidParams);
  EXPECT_EQ(call(11, "session/prompt", {{"sessionId", sid}, {"prompt", "hi"}})["error"]["code"], kInvalidParams);
  EXPECT_EQ(call(12, "session/set_mode", {{"sessionId", sid}, {"modeId", "x"}})["error"]["code"], kMethodNotFound);
  w_.send(R"({"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s_unknown"}})");  // ignored
  w_.send(R"({"jsonrpc":"2.0","method":"unknown/notification","params":{}})");                  // ignored
  // After all of that the session still takes a turn (the rules model answers the date).
  json turn = call(13, "session/prompt", {{"sessionId", sid}, {"prompt", json::array({{{"type", "text"}, {"text", "what time is it"}}})}});
  EXPECT_EQ(turn["result"]["stopReason"], "end_turn") << turn.dump();
}

TEST_F(AcpServerTest, APlanShowsAsPlanUpdatesWithEveryStepsStatus) {
  dir_.write("ws/sales.csv", "region,amount\nnorth,10\nsouth,32\n");
  ASSERT_EQ(call(1, "initialize", {{"protocolVersion", 1}})["result"]["protocolVersion"], 1);
  const std::string sid = call(2, "session/new", {{"cwd", ws()}, {"mcpServers", json::array()}})["result"]["sessionId"];
  // The rules model answers a column question with a plan: read, parse, aggregate.
  w_.send(json({{"jsonrpc", "2.0"}, {"id", 3}, {"method", "session/prompt"},
                {"params", {{"sessionId", sid}, {"prompt", json::array({{{"type", "text"}, {"text", "sum the amount column of sales.csv"}}})}}}})
              .dump());
  std::vector<json> plans;
  json answer;
  std::string text;
  for (json m = w_.next(); !m.is_null(); m = w_.next()) {
    if (m.value("id", json()) == 3) {
      answer = m;
      break;
    }
    const json update = m["params"]["update"];
    if (update["sessionUpdate"] == "plan") plans.push_back(update);
    if (update["sessionUpdate"] == "agent_message_chunk") text += update["content"]["text"].get<std::string>();
  }
  EXPECT_EQ(answer["result"]["stopReason"], "end_turn") << answer.dump();
  ASSERT_FALSE(plans.empty());
  const json& last = plans.back()["entries"];
  ASSERT_GE(last.size(), 2u) << last.dump();
  for (const json& entry : last) {
    EXPECT_EQ(entry["status"], "completed") << last.dump();
    EXPECT_EQ(entry["priority"], "medium");
    EXPECT_FALSE(entry["content"].get<std::string>().empty());
  }
  EXPECT_EQ(plans.front()["entries"][0]["status"] == "completed", false) << "the first update shows work still to do";
  EXPECT_NE(text.find("42"), std::string::npos) << text;
}

}  // namespace
}  // namespace keel::acp
