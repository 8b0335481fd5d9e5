// keel_openai_test_server: keel's OpenAI-compatible, Anthropic Messages and AG-UI endpoints on a
// scripted mock model, for tests that drive them with real clients (test/api/openai_client_test.sh,
// test/api/anthropic_client_test.sh, test/api/agui_client_test.sh).
//
//   keel_openai_test_server        prints "listening http://127.0.0.1:PORT", serves until stdin ends
//
// Profiles "default" and "fast"; every request needs "Authorization: Bearer keel-test-token" (on
// /v1 "x-api-key: keel-test-token" also does). GET /test/session-messages?session=ID lists what
// the store holds for a session ({"messages":[{"role","content"}]}), so a test can check it.
// The mock model answers from the conversation it is sent, so any request order works:
//   - a conversation whose last user message mentions "earlier": "Earlier you asked: " and the
//     conversation's first user message (shows that the history reached the model)
//   - a conversation that holds a tool result: "The folder holds notes.txt."
//   - a task that mentions "folder": the text "Let me look at the folder." and an fs_list call
//     (a round whose text must never reach the client)
//   - a task that mentions "fail": an HTTP 500 from the model (the run fails)
//   - a task that mentions "slowly": a long text streamed a piece every 200 ms (about 15 s)
//   - a conversation that holds a tool result saying "sunny": "It is sunny in Paris."
//   - a task that mentions "weather" in a request offering get_weather (the client's tool): a
//     get_weather call, which keel hands back to the client
//   - a task that mentions "JSON": {"city":"Paris","sunny":true}
//   - anything else: "Hello from keel."
// Each model call reports 7 prompt and 3 completion tokens.
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "api/agui_endpoint.hpp"
#include "api/anthropic_endpoint.hpp"
#include "api/openai_endpoint.hpp"
#include "api/responses_endpoint.hpp"
#include "keel/store/sqlite_store.hpp"
#include "server/http_server.hpp"
#include "support/mock_llm_server.hpp"
#include "support/temp_dir.hpp"
#include "support/test_agent_factory.hpp"
#include "base/thread_pool.hpp"

namespace {

using nlohmann::json;

keel::testing::MockResponse answer(const std::string& request_body) {
  json body = json::parse(request_body, nullptr, false);
  keel::ModelReply reply;
  reply.usage.prompt_tokens = 7;
  reply.usage.completion_tokens = 3;
  bool has_tool_result = false;
  bool has_weather = false;
  std::string task;
  std::string last_user;
  if (body.is_object() && body.contains("messages") && body["messages"].is_array()) {
    for (const json& m : body["messages"]) {
      const std::string role = m.value("role", "");
      if (role == "tool") has_tool_result = true;
      if (role == "tool" && m.contains("content") && m["content"].is_string() &&
          m["content"].get<std::string>().find("sunny") != std::string::npos) {
        has_weather = true;
      }
      if (role == "user" && m.contains("content") && m["content"].is_string()) {
        if (task.empty()) task = m["content"].get<std::string>();
        last_user = m["content"].get<std::string>();
      }
    }
  }
  const bool offers_weather = request_body.find("get_weather") != std::string::npos;
  const bool stream = body.is_object() && body.value("stream", false);
  if (last_user.find("earlier") != std::string::npos) {
    reply.text = "Earlier you asked: " + task;
    return stream ? keel::testing::mock_stream(reply, 3) : keel::testing::mock_completion(reply);
  }
  if (task.find("fail") != std::string::npos) {
    return keel::testing::mock_error(500, "the scripted model fails this task");
  }
  if (task.find("slowly") != std::string::npos) {
    reply.text.clear();
    for (int i = 0; i < 60; ++i) reply.text += "word ";
    return keel::testing::mock_slow_stream(reply, 200);
  }
  if (has_weather) {
    reply.text = "It is sunny in Paris.";
  } else if (offers_weather && task.find("weather") != std::string::npos) {
    keel::ToolCall call;  // the client's tool: handed back to the client to run
    call.id = "call_weather";
    call.name = "get_weather";
    call.arguments = R"({"city":"Paris"})";
    reply.tool_calls.push_back(call);
  } else if (task.find("JSON") != std::string::npos) {
    reply.text = R"({"city":"Paris","sunny":true})";
  } else if (has_tool_result) {
    reply.text = "The folder holds notes.txt.";
  } else if (task.find("folder") != std::string::npos) {
    reply.text = "Let me look at the folder.";
    keel::ToolCall call;
    call.id = "call_list";
    call.name = "fs_list";
    call.arguments = R"({"path":"."})";
    reply.tool_calls.push_back(call);
  } else {
    reply.text = "Hello from keel.";
  }
  return stream ? keel::testing::mock_stream(reply, 3) : keel::testing::mock_completion(reply);
}

// GET /test/session-messages?session=ID: the stored messages of a session.
void session_messages(keel::Store& store, const keel::server::HttpRequest& request,
                      keel::server::HttpResponder& out) {
  auto id = request.query.find("session");
  if (id == request.query.end()) {
    keel::server::respond_json(out, 400, json{{"error", "session= is missing"}}.dump());
    return;
  }
  auto stored = store.load_messages(id->second);
  if (!stored.ok()) {
    keel::server::respond_json(out, 404, json{{"error", stored.status().to_string()}}.dump());
    return;
  }
  json messages = json::array();
  for (const keel::StoredMessage& m : *stored) {
    messages.push_back({{"role", keel::role_name(m.message.role)}, {"content", m.message.content}});
  }
  keel::server::respond_json(out, 200, json{{"messages", messages}}.dump());
}

int serve() {
  keel::testing::TempDir workspace;
  workspace.write("notes.txt", "remember the milk\n");
  keel::StoreOptions store_options;
  store_options.path = ":memory:";
  auto store = keel::open_sqlite_store(store_options);
  if (!store.ok()) {
    std::cerr << "cannot open the store: " << store.status().to_string() << "\n";
    return 1;
  }
  keel::testing::MockLlmServer mock;
  if (!mock.running()) {
    std::cerr << "the mock model could not listen on 127.0.0.1\n";
    return 1;
  }
  mock.set_responder(answer);

  keel::testing::TestAgentFactoryOptions factory_options;
  factory_options.base_url = mock.base_url();
  factory_options.workspace = workspace.path().string();
  factory_options.store = store->get();
  keel::api::ProfileInfo first;
  first.name = "default";
  first.model = "mock-model";
  first.description = "the scripted mock model";
  first.max_rounds = 4;
  keel::api::ProfileInfo second = first;
  second.name = "fast";
  factory_options.profiles = {first, second};
  keel::testing::TestAgentFactory factory(std::move(factory_options));

  keel::detail::ThreadPool::Options pool;
  pool.threads = 2;
  pool.max_threads = 4;
  keel::detail::ThreadPool workers(pool);
  keel::server::HttpServer http;
  keel::api::ApiAccess access;
  access.token = "keel-test-token";
  keel::api::install_access_guard(http, access);
  // How many model calls were made: lets a client test check that a failed run is not re-run.
  http.route("GET", "/test/model-calls", [&mock](const keel::server::HttpRequest&,
                                                  std::shared_ptr<keel::server::HttpResponder> out) {
    keel::server::respond_json(*out, 200, json{{"count", mock.request_count()}}.dump());
  });
  http.route("GET", "/test/session-messages", [&store](const keel::server::HttpRequest& request,
                                                        std::shared_ptr<keel::server::HttpResponder> out) {
    session_messages(**store, request, *out);
  });
  keel::Status mounted = keel::api::mount_openai_endpoint(http, factory, workers, access);
  if (mounted.ok()) mounted = keel::api::mount_responses_endpoint(http, factory, workers, **store, access);
  if (mounted.ok()) mounted = keel::api::mount_anthropic_endpoint(http, factory, workers, access);
  keel::api::AguiEndpointOptions agui;
  agui.workspaces = {workspace.path().string()};
  if (mounted.ok()) mounted = keel::api::mount_agui_endpoint(http, factory, workers, **store, access, agui);
  keel::Status started = mounted.ok() ? http.start() : mounted;
  if (!started.ok()) {
    std::cerr << "the endpoint could not start: " << started.to_string() << "\n";
    return 1;
  }
  std::cout << "listening http://127.0.0.1:" << http.port() << std::endl;
  std::string line;
  while (std::getline(std::cin, line)) {
  }
  http.stop();
  return 0;
}

}  // namespace

int main() {
  try {
    return serve();
  } catch (const std::exception& e) {
    std::cerr << "keel_openai_test_server: " << e.what() << "\n";
    return 1;
  }
}
