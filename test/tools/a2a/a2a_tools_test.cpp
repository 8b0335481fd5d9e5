// register_a2a_tools() against a small A2A server on 127.0.0.1 (real HTTP through the net layer):
// the tool's spec and description from the card, the headers that reach the server, an
// unreachable agent at start-up, bounded answers and option errors.
#include "keel/a2a_tools.hpp"

#include <gtest/gtest.h>

#include <mutex>
#include <nlohmann/json.hpp>

#include "keel/tool_registry.hpp"
#include "support/test_http_socket.hpp"

namespace keel::testing {
namespace {

using nlohmann::json;

// Serves a v1.0 card whose JSON-RPC endpoint is /rpc, and answers each request with `result`.
class TinyA2aServer {
 public:
  TinyA2aServer() {
    listener_.start([this](TestHttpConnection& c) { serve(c); });
  }
  ~TinyA2aServer() { listener_.stop(); }

  std::string url() const { return "http://127.0.0.1:" + std::to_string(listener_.port()); }
  std::vector<TestHttpRequest> requests() const {
    std::lock_guard lock(mutex_);
    return requests_;
  }

  std::function<json(const std::string& method, const json& params)> result = [](const std::string&,
                                                                                 const json& params) {
    const std::string text = params["message"]["parts"][0]["text"];
    return json{{"task",
                 {{"id", "task-1"},
                  {"contextId", "ctx-1"},
                  {"status", {{"state", "TASK_STATE_COMPLETED"}}},
                  {"artifacts",
                   json::array({{{"artifactId", "a1"}, {"parts", json::array({{{"text", "echo: " + text}}})}}})}}}};
  };

 private:
  void serve(TestHttpConnection& c) {
    TestHttpRequest request;
    while (c.read_request(request)) {
      {
        std::lock_guard lock(mutex_);
        requests_.push_back(request);
      }
      std::string body;
      if (request.method == "GET" && request.target == "/.well-known/agent-card.json") {
        body =
            json{{"name", "Echo"},
                 {"description", "Repeats what it is told."},
                 {"version", "1.0.0"},
                 {"supportedInterfaces",
                  json::array({{{"url", url() + "/rpc"}, {"protocolBinding", "JSONRPC"}, {"protocolVersion", "1.0"}}})},
                 {"skills", json::array({{{"id", "echo"}, {"name", "echo"}, {"description", "says it back"}}})}}
                .dump();
      } else if (request.method == "POST" && request.target == "/rpc") {
        const json rpc = json::parse(request.body);
        body = json{{"jsonrpc", "2.0"}, {"id", rpc["id"]}, {"result", result(rpc["method"], rpc["params"])}}.dump();
      } else {
        c.send("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n");
        continue;
      }
      c.send("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
             "\r\n\r\n" + body);
    }
  }

  mutable std::mutex mutex_;
  std::vector<TestHttpRequest> requests_;
  TestHttpListener listener_;  // last: stopped before the members above go away
};

A2aToolOptions a2a_one_agent(const std::string& url, const std::string& name = "echo") {
  A2aToolOptions o;
  A2aAgentConfig agent;
  agent.name = name;
  agent.url = url;
  agent.timeout_ms = 10000;
  agent.source = "/home/u/.config/keel/config.yaml";
  o.agents.push_back(agent);
  return o;
}

Result<std::string> a2a_call(ToolRegistry& registry, const std::string& tool, const json& args) {
  Tool* t = registry.find(tool);
  if (t == nullptr) return Status::NotFound(tool);
  KEEL_TRY(registry.validate_arguments(tool, args));
  return t->execute(args, ToolContext{});
}

TEST(A2aToolsTest, OneToolPerAgentDescribedByItsCard) {
  TinyA2aServer server;
  A2aToolOptions o = a2a_one_agent(server.url());
  o.agents[0].token_env = "ECHO_TOKEN";
  o.env = {{"ECHO_TOKEN", "tok-123"}};
  ToolRegistry registry;
  ASSERT_TRUE(register_a2a_tools(registry, o).ok());
  ASSERT_EQ(registry.size(), 1u);
  const ToolSpec& spec = registry.find("a2a_echo")->spec();
  EXPECT_EQ(spec.risk, Risk::kMedium);
  EXPECT_FALSE(spec.read_only || spec.cacheable || spec.concurrency_safe);
  EXPECT_GT(spec.timeout_ms, 10000) << "the call's own timeout must fire first";
  EXPECT_NE(spec.description.find("Repeats what it is told"), std::string::npos) << spec.description;
  EXPECT_NE(spec.description.find("echo (says it back)"), std::string::npos) << spec.description;
  EXPECT_EQ(json::parse(spec.parameters_schema)["required"], json::array({"message"}));

  Result<std::string> out = a2a_call(registry, "a2a_echo", {{"message", "hello there"}});
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  EXPECT_EQ(*out,
            "remote agent 'echo' answered (task completed):\necho: hello there\n\ncontext_id: ctx-1\ntask_id: task-1");

  const std::vector<TestHttpRequest> seen = server.requests();
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0].method, "GET");
  EXPECT_EQ(seen[1].method, "POST");
  EXPECT_EQ(seen[1].target, "/rpc");
  for (const TestHttpRequest& r : seen) {
    EXPECT_EQ(r.headers.at("authorization"), "Bearer tok-123");
    EXPECT_EQ(r.headers.at("a2a-version"), "1.0");
  }
  EXPECT_EQ(seen[1].headers.at("content-type"), "application/json");
  const json sent = json::parse(seen[1].body);
  EXPECT_EQ(sent["method"], "SendMessage");
  EXPECT_EQ(sent["params"]["message"]["parts"][0]["text"], "hello there");

  EXPECT_FALSE(registry.validate_arguments("a2a_echo", json{{"message", "x"}, {"extra", 1}}).ok());
  EXPECT_FALSE(registry.validate_arguments("a2a_echo", json{{"context_id", "c"}}).ok());
}

TEST(A2aToolsTest, AnUnreachableAgentDoesNotStopStartUp) {
  int closed_port = 0;
  {
    TestHttpListener gone;
    gone.start([](TestHttpConnection&) {});
    closed_port = gone.port();
  }
  A2aToolOptions o = a2a_one_agent("http://127.0.0.1:" + std::to_string(closed_port), "gone");
  o.card_timeout_ms = 2000;
  ToolRegistry registry;
  ASSERT_TRUE(register_a2a_tools(registry, o).ok());
  const ToolSpec& spec = registry.find("a2a_gone")->spec();
  EXPECT_NE(spec.description.find("could not be read at start-up"), std::string::npos) << spec.description;
  Result<std::string> out = a2a_call(registry, "a2a_gone", {{"message", "hi"}});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), ErrorCode::kUnavailable);
  EXPECT_TRUE(out.status().message().starts_with("remote agent 'gone': its agent card")) << out.status().message();
}

TEST(A2aToolsTest, AMissingTokenIsReportedWhenCalled) {
  TinyA2aServer server;
  A2aToolOptions o = a2a_one_agent(server.url());
  o.agents[0].token_env = "ECHO_TOKEN";  // not in o.env
  ToolRegistry registry;
  ASSERT_TRUE(register_a2a_tools(registry, o).ok());
  Result<std::string> out = a2a_call(registry, "a2a_echo", {{"message", "hi"}});
  EXPECT_EQ(out.status().code(), ErrorCode::kFailedPrecondition);
  EXPECT_EQ(out.status().message(),
            "remote agent 'echo': its token_env ECHO_TOKEN is not set (or empty); export it, or drop token_env");
  EXPECT_TRUE(server.requests().empty()) << "nothing is sent without the token";
}

TEST(A2aToolsTest, AnswersAreBounded) {
  TinyA2aServer server;
  server.result = [](const std::string&, const json&) {
    return json{
        {"message",
         {{"messageId", "m"}, {"role", "ROLE_AGENT"}, {"parts", json::array({{{"text", std::string(20000, 'y')}}})}}}};
  };
  A2aToolOptions o = a2a_one_agent(server.url());
  o.max_output_bytes = 1000;
  ToolRegistry registry;
  ASSERT_TRUE(register_a2a_tools(registry, o).ok());
  Result<std::string> out = a2a_call(registry, "a2a_echo", {{"message", "long please"}});
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  EXPECT_LT(out->size(), 1200u);
  EXPECT_NE(out->find("cut at 1000 of its 20000 bytes"), std::string::npos);

  o.max_response_bytes = 5000;
  ToolRegistry small;
  ASSERT_TRUE(register_a2a_tools(small, o).ok());
  Result<std::string> refused = a2a_call(small, "a2a_echo", {{"message", "long please"}});
  EXPECT_EQ(refused.status().code(), ErrorCode::kResourceExhausted);
  EXPECT_NE(refused.status().message().find("larger than 5000 bytes"), std::string::npos) << refused.status().message();
}

TEST(A2aToolsTest, InvalidAgentsAndOptions) {
  ToolRegistry registry;
  A2aToolOptions o = a2a_one_agent("ftp://x");
  o.fetch_cards = false;
  Status s = register_a2a_tools(registry, o);
  EXPECT_EQ(s.message(),
            "a2a_agents 'echo' (/home/u/.config/keel/config.yaml): url must start with http:// or https://, e.g. "
            "http://127.0.0.1:9999, got 'ftp://x'");
  o = a2a_one_agent("http://127.0.0.1:1");
  o.fetch_cards = false;
  o.agents.push_back(o.agents[0]);
  EXPECT_NE(register_a2a_tools(registry, o).message().find("the name is used twice"), std::string::npos);
  o.agents.pop_back();
  o.poll_initial_ms = 0;
  EXPECT_EQ(register_a2a_tools(registry, o).code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(registry.size(), 0u);
  o.poll_initial_ms = 100;
  ASSERT_TRUE(register_a2a_tools(registry, o).ok());
  EXPECT_NE(registry.find("a2a_echo")->spec().description.find("http://127.0.0.1:1"), std::string::npos);
}

}  // namespace
}  // namespace keel::testing
