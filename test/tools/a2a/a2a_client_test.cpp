// The A2A client's conversation with an agent, over a scripted HTTP exchange: the card, SendMessage,
// polling GetTask, CancelTask after a timeout or a stop, input-required follow-ups, errors.
#include "tools/a2a/a2a_client.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "tools/a2a/a2a_answer.hpp"

namespace keel::detail {
namespace {

using nlohmann::json;

constexpr const char* kA2aAgentUrl = "http://127.0.0.1:9999";
constexpr const char* kA2aRpcUrl = "http://127.0.0.1:9999/a2a/jsonrpc";

json a2a_v1_card(const std::string& rpc_url = kA2aRpcUrl) {
  return {{"name", "Echo"},
          {"description", "echoes"},
          {"version", "1.0.0"},
          {"supportedInterfaces",
           json::array({{{"url", rpc_url}, {"protocolBinding", "JSONRPC"}, {"protocolVersion", "1.0"}}})}};
}

json a2a_task_json(const std::string& id, const std::string& state, const std::string& text = "") {
  json t = {{"id", id}, {"contextId", "ctx-" + id}, {"status", {{"state", state}}}};
  if (!text.empty()) t["artifacts"] = json::array({{{"artifactId", "a"}, {"parts", json::array({{{"text", text}}})}}});
  return t;
}

// A scripted agent: the card, and an answer per JSON-RPC request; every request is recorded.
class A2aScriptedAgent {
 public:
  json card = a2a_v1_card();
  long card_status = 200;
  // method, params -> the whole JSON-RPC response body (use ok() / err() to build one).
  std::function<std::string(const std::string&, const json&, int64_t)> answer;
  long rpc_status = 200;

  struct Seen {
    A2aHttpCall call;
    json body;  // the parsed request (POST)
  };
  std::vector<Seen> seen() const {
    std::lock_guard lock(mutex_);
    return seen_;
  }
  std::vector<std::string> methods() const {
    std::vector<std::string> out;
    for (const Seen& s : seen()) out.push_back(s.call.method == "GET" ? "GET card" : s.body.value("method", ""));
    return out;
  }

  A2aHttp http() {
    return [this](const A2aHttpCall& call) -> Result<A2aHttpAnswer> {
      json body = call.method == "POST" ? json::parse(call.body, nullptr, false) : json();
      {
        std::lock_guard lock(mutex_);
        seen_.push_back({call, body});
      }
      A2aHttpAnswer a;
      if (call.method == "GET") {
        a.status = card_status;
        a.body = card.dump();
        return a;
      }
      a.status = rpc_status;
      a.body = answer(body["method"], body["params"], body["id"].get<int64_t>());
      return a;
    };
  }

  static std::string ok(int64_t id, const json& result) {
    return json{{"jsonrpc", "2.0"}, {"id", id}, {"result", result}}.dump();
  }
  static std::string err(int64_t id, int code, const std::string& message) {
    return json{{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}}.dump();
  }

 private:
  mutable std::mutex mutex_;
  std::vector<Seen> seen_;
};

A2aClientOptions a2a_client_options(int64_t timeout_ms = 5000, std::string token = "") {
  A2aClientOptions o;
  o.agent.name = "echo";
  o.agent.url = kA2aAgentUrl;
  o.agent.timeout_ms = timeout_ms;
  o.agent.token_env = token.empty() ? "" : "ECHO_TOKEN";
  o.token = std::move(token);
  o.poll_initial_ms = 5;
  o.poll_max_ms = 20;
  o.cancel_timeout_ms = 1000;
  return o;
}

bool a2a_has_header(const A2aHttpCall& call, const std::string& line) {
  return std::find(call.headers.begin(), call.headers.end(), line) != call.headers.end();
}

TEST(A2aClientTest, ACompletedTaskInOneRequest) {
  A2aScriptedAgent agent;
  agent.answer = [](const std::string& method, const json& params, int64_t id) {
    EXPECT_EQ(method, "SendMessage");
    return A2aScriptedAgent::ok(
        id, {{"task", a2a_task_json("t1", "TASK_STATE_COMPLETED",
                                    "echo: " + params["message"]["parts"][0]["text"].get<std::string>())}});
  };
  A2aClient client(a2a_client_options(5000, "s3cret"), agent.http());
  Result<A2aReply> reply = client.ask("hello", "", {});
  ASSERT_TRUE(reply.ok()) << reply.status().to_string();
  EXPECT_EQ(reply->answer_text, "echo: hello");
  EXPECT_EQ(reply->task_id, "t1");
  EXPECT_EQ(reply->context_id, "ctx-t1");
  EXPECT_EQ(agent.methods(), (std::vector<std::string>{"GET card", "SendMessage"}));
  const auto seen = agent.seen();
  EXPECT_EQ(seen[0].call.url, "http://127.0.0.1:9999/.well-known/agent-card.json");
  EXPECT_EQ(seen[1].call.url, kA2aRpcUrl);
  for (const auto& s : seen) {
    EXPECT_TRUE(a2a_has_header(s.call, "A2A-Version: 1.0"));
    EXPECT_TRUE(a2a_has_header(s.call, "Authorization: Bearer s3cret"));
    EXPECT_GT(s.call.timeout_ms, 0);
    EXPECT_LE(s.call.timeout_ms, 5000);
  }
  EXPECT_TRUE(a2a_has_header(seen[1].call, "Content-Type: application/json"));
  EXPECT_EQ(seen[1].body["params"]["message"]["role"], "ROLE_USER");
  EXPECT_EQ(seen[1].body["params"]["message"]["messageId"].get<std::string>().size(), 32u);

  // The card is read once.
  ASSERT_TRUE(client.ask("again", "", {}).ok());
  EXPECT_EQ(agent.methods(), (std::vector<std::string>{"GET card", "SendMessage", "SendMessage"}));
}

TEST(A2aClientTest, NoTokenNoAuthorizationHeader) {
  A2aScriptedAgent agent;
  agent.answer = [](const std::string&, const json&, int64_t id) {
    return A2aScriptedAgent::ok(
        id, {{"message", {{"messageId", "m"}, {"role", "ROLE_AGENT"}, {"parts", json::array({{{"text", "hi"}}})}}}});
  };
  A2aClient client(a2a_client_options(), agent.http());
  Result<A2aReply> reply = client.ask("x", "", {});
  ASSERT_TRUE(reply.ok());
  EXPECT_FALSE(reply->is_task);
  for (const auto& s : agent.seen()) {
    for (const std::string& h : s.call.headers) EXPECT_FALSE(h.starts_with("Authorization")) << h;
  }
}

TEST(A2aClientTest, AWorkingTaskIsPolledUntilItIsFinal) {
  A2aScriptedAgent agent;
  int polls = 0;
  agent.answer = [&](const std::string& method, const json& params, int64_t id) {
    if (method == "SendMessage")
      return A2aScriptedAgent::ok(id, {{"task", a2a_task_json("t2", "TASK_STATE_SUBMITTED")}});
    EXPECT_EQ(method, "GetTask");
    EXPECT_EQ(params["id"], "t2");
    return A2aScriptedAgent::ok(id, ++polls < 3 ? a2a_task_json("t2", "TASK_STATE_WORKING")
                                                : a2a_task_json("t2", "TASK_STATE_COMPLETED", "late"));
  };
  A2aClient client(a2a_client_options(), agent.http());
  Result<A2aReply> reply = client.ask("x", "", {});
  ASSERT_TRUE(reply.ok()) << reply.status().to_string();
  EXPECT_EQ(reply->answer_text, "late");
  EXPECT_EQ(agent.methods(), (std::vector<std::string>{"GET card", "SendMessage", "GetTask", "GetTask", "GetTask"}));
}

TEST(A2aClientTest, ATaskThatEndsFailedIsAnErrorNamingTheAgentAndTheState) {
  A2aScriptedAgent agent;
  agent.answer = [](const std::string& method, const json&, int64_t id) {
    if (method == "SendMessage") return A2aScriptedAgent::ok(id, {{"task", a2a_task_json("t3", "TASK_STATE_WORKING")}});
    json failed = a2a_task_json("t3", "TASK_STATE_FAILED");
    failed["status"]["message"] = {{"role", "ROLE_AGENT"}, {"parts", json::array({{{"text", "out of credits"}}})}};
    return A2aScriptedAgent::ok(id, failed);
  };
  A2aClient client(a2a_client_options(), agent.http());
  Result<A2aReply> reply = client.ask("x", "", {});
  ASSERT_TRUE(reply.ok()) << reply.status().to_string();
  Result<std::string> out = a2a_answer(*reply, "echo", "a2a_echo", 1000);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().message(),
            "remote agent 'echo' ended the task failed (context_id ctx-t3, task_id t3): out of credits");
}

TEST(A2aClientTest, ATimeoutCancelsTheTask) {
  A2aScriptedAgent agent;
  agent.answer = [](const std::string& method, const json& params, int64_t id) {
    if (method == "CancelTask") {
      EXPECT_EQ(params["id"], "t4");
      return A2aScriptedAgent::ok(id, a2a_task_json("t4", "TASK_STATE_CANCELED"));
    }
    return A2aScriptedAgent::ok(id, method == "SendMessage" ? json{{"task", a2a_task_json("t4", "TASK_STATE_WORKING")}}
                                                            : a2a_task_json("t4", "TASK_STATE_WORKING"));
  };
  A2aClient client(a2a_client_options(150), agent.http());
  const auto start = std::chrono::steady_clock::now();
  Result<A2aReply> reply = client.ask("x", "", {});
  const auto took = std::chrono::steady_clock::now() - start;
  ASSERT_FALSE(reply.ok());
  EXPECT_EQ(reply.status().code(), ErrorCode::kDeadlineExceeded);
  EXPECT_EQ(
      reply.status().message(),
      "remote agent 'echo' did not finish within timeout_ms 150 (task t4 was working); keel asked it to cancel the "
      "task (CancelTask)");
  const std::vector<std::string> methods = agent.methods();
  ASSERT_GE(methods.size(), 4u);
  EXPECT_EQ(methods.back(), "CancelTask");
  EXPECT_EQ(std::count(methods.begin(), methods.end(), "CancelTask"), 1);
  EXPECT_LT(took, std::chrono::seconds(2));
}

TEST(A2aClientTest, AStopCancelsTheTask) {
  A2aScriptedAgent agent;
  agent.answer = [](const std::string& method, const json&, int64_t id) {
    if (method == "SendMessage") return A2aScriptedAgent::ok(id, {{"task", a2a_task_json("t5", "TASK_STATE_WORKING")}});
    return A2aScriptedAgent::ok(
        id, a2a_task_json("t5", method == "CancelTask" ? "TASK_STATE_CANCELED" : "TASK_STATE_WORKING"));
  };
  A2aClient client(a2a_client_options(60000), agent.http());
  std::stop_source stop;
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    stop.request_stop();
  });
  Result<A2aReply> reply = client.ask("x", "", stop.get_token());
  stopper.join();
  ASSERT_FALSE(reply.ok());
  EXPECT_EQ(reply.status().code(), ErrorCode::kCancelled);
  EXPECT_EQ(agent.methods().back(), "CancelTask");
  EXPECT_FALSE(agent.seen().back().call.stop.stop_possible()) << "the cancel request must not be stopped too";
}

TEST(A2aClientTest, JsonRpcAndHttpErrors) {
  A2aScriptedAgent agent;
  agent.answer = [](const std::string&, const json&, int64_t id) {
    return A2aScriptedAgent::err(id, -32602, "parts missing");
  };
  A2aClient client(a2a_client_options(), agent.http());
  Result<A2aReply> invalid = client.ask("x", "", {});
  ASSERT_FALSE(invalid.ok());
  EXPECT_EQ(invalid.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(invalid.status().message(),
            "remote agent 'echo' answered SendMessage with error -32602 (invalid params): parts missing");

  agent.rpc_status = 500;  // a JSON-RPC error with an HTTP error status: the JSON-RPC message wins
  agent.answer = [](const std::string&, const json&, int64_t id) { return A2aScriptedAgent::err(id, -32603, "boom"); };
  EXPECT_EQ(client.ask("x", "", {}).status().message(),
            "remote agent 'echo' answered SendMessage with error -32603 (internal error): boom");

  agent.rpc_status = 401;
  agent.answer = [](const std::string&, const json&, int64_t) { return std::string("unauthorized"); };
  Result<A2aReply> refused = client.ask("x", "", {});
  EXPECT_EQ(refused.status().code(), ErrorCode::kUnauthenticated);
  EXPECT_EQ(refused.status().message(),
            "remote agent 'echo' answered SendMessage with HTTP 401 (unauthorized); it may need a token: name the "
            "variable holding it with token_env in a2a_agents");
}

TEST(A2aClientTest, ACardOnAnotherOriginIsRefusedBeforeAnyMessageIsSent) {
  A2aScriptedAgent agent;
  agent.card = a2a_v1_card("http://collector.example/rpc");
  agent.answer = [](const std::string&, const json&, int64_t id) { return A2aScriptedAgent::ok(id, json::object()); };
  A2aClient client(a2a_client_options(5000, "s3cret"), agent.http());
  Result<A2aReply> reply = client.ask("x", "", {});
  ASSERT_FALSE(reply.ok());
  EXPECT_EQ(reply.status().code(), ErrorCode::kPermissionDenied);
  EXPECT_NE(reply.status().message().find("http://collector.example/rpc"), std::string::npos)
      << reply.status().message();
  EXPECT_EQ(agent.methods(), (std::vector<std::string>{"GET card"}));
}

TEST(A2aClientTest, CardErrorsAreRetriedAtTheNextCall) {
  A2aScriptedAgent agent;
  agent.card_status = 404;
  agent.answer = [](const std::string&, const json&, int64_t id) {
    return A2aScriptedAgent::ok(id, {{"task", a2a_task_json("t6", "TASK_STATE_COMPLETED", "ok")}});
  };
  A2aClient client(a2a_client_options(), agent.http());
  Result<A2aReply> missing = client.ask("x", "", {});
  EXPECT_EQ(missing.status().code(), ErrorCode::kNotFound);
  EXPECT_NE(missing.status().message().find("agent card request with HTTP 404"), std::string::npos)
      << missing.status().message();
  agent.card = json::array();
  agent.card_status = 200;
  Result<A2aReply> malformed = client.ask("x", "", {});
  EXPECT_EQ(malformed.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(malformed.status().message().find("is not a JSON object"), std::string::npos)
      << malformed.status().message();
  agent.card = a2a_v1_card();
  EXPECT_TRUE(client.ask("x", "", {}).ok());
}

TEST(A2aClientTest, AnAnswerToAQuestionContinuesTheTask) {
  A2aScriptedAgent agent;
  agent.answer = [](const std::string&, const json& params, int64_t id) {
    const json& message = params["message"];
    if (!message.contains("taskId")) {
      json asking = a2a_task_json("t7", "TASK_STATE_INPUT_REQUIRED");
      asking["status"]["message"] = {{"role", "ROLE_AGENT"}, {"parts", json::array({{{"text", "Which city?"}}})}};
      return A2aScriptedAgent::ok(id, {{"task", asking}});
    }
    return A2aScriptedAgent::ok(
        id, {{"task", a2a_task_json(message["taskId"], "TASK_STATE_COMPLETED",
                                    "sunny in " + message["parts"][0]["text"].get<std::string>())}});
  };
  A2aClient client(a2a_client_options(), agent.http());
  Result<A2aReply> question = client.ask("weather?", "", {});
  ASSERT_TRUE(question.ok());
  EXPECT_EQ(question->state, A2aTaskState::kInputRequired);
  EXPECT_EQ(question->status_text, "Which city?");
  Result<A2aReply> answer = client.ask("Paris", question->context_id, {});
  ASSERT_TRUE(answer.ok()) << answer.status().to_string();
  EXPECT_EQ(answer->answer_text, "sunny in Paris");
  const json sent = agent.seen().back().body["params"]["message"];
  EXPECT_EQ(sent["contextId"], "ctx-t7");
  EXPECT_EQ(sent["taskId"], "t7");
}

TEST(A2aClientTest, AMissingTokenFailsEveryCallWithoutARequest) {
  A2aScriptedAgent agent;
  A2aClientOptions o = a2a_client_options();
  o.token_problem = "its token_env ECHO_TOKEN is not set";
  A2aClient client(o, agent.http());
  Result<A2aReply> reply = client.ask("x", "", {});
  EXPECT_EQ(reply.status().code(), ErrorCode::kFailedPrecondition);
  EXPECT_EQ(reply.status().message(), "remote agent 'echo': its token_env ECHO_TOKEN is not set");
  EXPECT_TRUE(agent.seen().empty());
}

TEST(A2aClientTest, AVersion03AgentGetsTheOldMethods) {
  A2aScriptedAgent agent;
  agent.card = {{"name", "Old"}, {"url", std::string(kA2aAgentUrl) + "/"}, {"protocolVersion", "0.3.0"}};
  agent.answer = [](const std::string& method, const json&, int64_t id) {
    if (method == "message/send")
      return A2aScriptedAgent::ok(id, {{"kind", "task"}, {"id", "t8"}, {"status", {{"state", "working"}}}});
    return A2aScriptedAgent::ok(
        id, {{"kind", "task"},
             {"id", "t8"},
             {"contextId", "c8"},
             {"status", {{"state", "completed"}}},
             {"artifacts", json::array({{{"parts", json::array({{{"kind", "text"}, {"text", "old but fine"}}})}}})}});
  };
  A2aClient client(a2a_client_options(), agent.http());
  Result<A2aReply> reply = client.ask("x", "", {});
  ASSERT_TRUE(reply.ok()) << reply.status().to_string();
  EXPECT_EQ(reply->answer_text, "old but fine");
  EXPECT_EQ(agent.methods(), (std::vector<std::string>{"GET card", "message/send", "tasks/get"}));
  EXPECT_EQ(agent.seen()[1].body["params"]["message"]["kind"], "message");
}

}  // namespace
}  // namespace keel::detail
