// The OpenAI-compatible endpoint over real sockets: the model list, whole and streamed answers,
// runs with tool rounds (whose text must not reach the client), the client's history reaching
// the model, approvals, sampling, a failing model and a client that goes away.
#include <gtest/gtest.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "api/openai_endpoint_fixture.hpp"

namespace keel::testing {
namespace {

using nlohmann::json;

class OpenAiEndpointTest : public OpenAiEndpointFixture {};

TEST_F(OpenAiEndpointTest, ModelsListsTheProfiles) {
  start();
  auto r = raw_http(http_->port(), "GET", "/v1/models");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->header("content-type"), "application/json");
  EXPECT_EQ(json::parse(r->body), json::parse(R"({"object":"list","data":[
      {"id":"default","object":"model","created":1700000000,"owned_by":"keel"},
      {"id":"fast","object":"model","created":1700000000,"owned_by":"keel"}]})"));

  r = raw_http(http_->port(), "GET", "/v1/models/fast");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(json::parse(r->body), json::parse(R"({"id":"fast","object":"model","created":1700000000,"owned_by":"keel"})"));

  r = raw_http(http_->port(), "GET", "/v1/models/gpt-4o");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 404);
  EXPECT_EQ(json::parse(r->body)["error"]["code"], "model_not_found");
}

TEST_F(OpenAiEndpointTest, AnswersAWholeCompletion) {
  start();
  mock_.push(mock_text("Hello there."));
  auto r = post(ask("Say hello"));
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  EXPECT_EQ(r->header("content-type"), "application/json");
  json body = json::parse(r->body);
  const std::string id = body["id"];
  EXPECT_EQ(id.rfind("chatcmpl-", 0), 0u);
  EXPECT_EQ(id.size(), 9u + 24u);
  const std::string session = body["keel"]["session_id"];
  const std::string run = body["keel"]["run_id"];
  EXPECT_EQ(session.rfind("s_", 0), 0u) << session;
  EXPECT_EQ(run.rfind("r_", 0), 0u) << run;
  body.erase("id");
  body["keel"].erase("session_id");
  body["keel"].erase("run_id");
  EXPECT_EQ(body, json::parse(R"({
      "object":"chat.completion","created":1700000000,"model":"default",
      "choices":[{"index":0,"message":{"role":"assistant","content":"Hello there.","refusal":null},
                  "logprobs":null,"finish_reason":"stop"}],
      "usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15},
      "keel":{"rounds":1,"tool_calls":0}})"));
  // The run was stored under the ids the answer names.
  auto stored = store_->get_run(run);
  ASSERT_TRUE(stored.ok()) << stored.status().to_string();
  EXPECT_EQ(stored->session_id, session);
  EXPECT_EQ(stored->answer, "Hello there.");
  // The task reached the model as the last message.
  EXPECT_EQ(model_messages(0).back(), json::parse(R"({"role":"user","content":"Say hello"})"));
}

TEST_F(OpenAiEndpointTest, ToolRoundsRunInsideKeelAndTheFinalAnswerIsReturned) {
  start();
  mock_.push(mock_tool_calls({call("call_1", "fs_list", R"({"path":"."})")}, "Let me look."));
  mock_.push(mock_text("There is one file: notes.txt."));
  auto r = post(ask("What is in the folder?"));
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  json body = json::parse(r->body);
  EXPECT_EQ(body["choices"][0]["message"]["content"], "There is one file: notes.txt.");
  EXPECT_EQ(body["usage"], json::parse(R"({"prompt_tokens":20,"completion_tokens":10,"total_tokens":30})"));
  EXPECT_EQ(body["keel"]["tool_calls"], 1);
  EXPECT_EQ(body["keel"]["rounds"], 2);
  ASSERT_EQ(mock_.request_count(), 2u);
  const json tool = model_tool_message(1);
  EXPECT_EQ(tool["role"], "tool");
  EXPECT_EQ(tool["tool_call_id"], "call_1");
  EXPECT_NE(tool["content"].get<std::string>().find("notes.txt"), std::string::npos) << tool;
}

TEST_F(OpenAiEndpointTest, StreamsRoleContentStopUsageAndDone) {
  start();
  const std::string text = "Hello from the stream.";
  mock_.push(mock_stream(reply(text, {}, {12, 6})));
  json request = ask("Stream a greeting", true);
  request["stream_options"] = {{"include_usage", true}};
  auto r = post(request);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  EXPECT_EQ(r->header("content-type"), "text/event-stream");
  std::vector<ChunkEvent> events = parse_sse(r->body);
  ASSERT_GE(events.size(), 5u) << r->body;

  json first = json::parse(events[0].text);
  const std::string id = first["id"];
  EXPECT_EQ(id.rfind("chatcmpl-", 0), 0u);
  json expected_first = json::parse(R"({"object":"chat.completion.chunk","created":1700000000,
      "model":"default","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,
      "finish_reason":null}],"usage":null})");
  expected_first["id"] = id;
  EXPECT_EQ(first, expected_first);

  std::string content;
  size_t i = 1;
  for (; i < events.size() && !events[i].comment && events[i].text.find("\"content\"") != std::string::npos; ++i) {
    json chunk = json::parse(events[i].text);
    EXPECT_EQ(chunk["id"], id);
    EXPECT_EQ(chunk["choices"][0]["finish_reason"], nullptr);
    EXPECT_EQ(chunk["usage"], nullptr);
    content += chunk["choices"][0]["delta"]["content"].get<std::string>();
  }
  EXPECT_EQ(content, text);
  EXPECT_GT(i, 2u) << "the answer came as the model's pieces, not as one chunk";
  ASSERT_EQ(events.size(), i + 3) << r->body;

  json stop = json::parse(events[i].text);
  EXPECT_EQ(stop["choices"], json::parse(R"([{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}])"));
  EXPECT_EQ(stop["keel"]["tool_calls"], 0);
  json expected_usage = json::parse(R"({"object":"chat.completion.chunk",
      "created":1700000000,"model":"default","choices":[],
      "usage":{"prompt_tokens":12,"completion_tokens":6,"total_tokens":18}})");
  expected_usage["id"] = id;
  EXPECT_EQ(json::parse(events[i + 1].text), expected_usage);
  EXPECT_EQ(events[i + 2].text, "[DONE]");
  EXPECT_FALSE(events[i + 2].comment);
}

TEST_F(OpenAiEndpointTest, StreamShowsEachRoundsTextAsTheModelWritesIt) {
  start();
  mock_.push(mock_stream(reply("EARLIER ROUND TEXT", {call("call_1", "fs_list", R"({"path":"."})")})));
  mock_.push(mock_stream(reply("Final: notes.txt")));
  auto r = post(ask("List the folder", true));
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  std::vector<ChunkEvent> events = parse_sse(r->body);
  ASSERT_GE(events.size(), 6u) << r->body;
  EXPECT_EQ(json::parse(events[0].text)["choices"][0]["delta"]["role"], "assistant");
  std::string content;
  size_t comment_at = 0;
  size_t i = 1;
  for (; i < events.size(); ++i) {
    if (events[i].comment) {
      EXPECT_EQ(events[i].text, "keel tool fs_list");
      comment_at = content.size();
      continue;
    }
    if (events[i].text.find("\"content\"") == std::string::npos) break;
    content += json::parse(events[i].text)["choices"][0]["delta"]["content"].get<std::string>();
  }
  // The tool round's text went out before its tool ran; the answer follows after a blank line.
  EXPECT_EQ(content, "EARLIER ROUND TEXT\n\nFinal: notes.txt");
  EXPECT_EQ(comment_at, std::string("EARLIER ROUND TEXT").size());
  ASSERT_EQ(events.size(), i + 2) << r->body;
  json stop = json::parse(events[i].text);
  EXPECT_EQ(stop["choices"][0]["finish_reason"], "stop");
  EXPECT_FALSE(stop.contains("usage"));  // no include_usage: no usage fields, no usage chunk
  EXPECT_EQ(stop["keel"]["tool_calls"], 1);
  EXPECT_EQ(events[i + 1].text, "[DONE]");
}

TEST_F(OpenAiEndpointTest, TheClientsHistoryReachesTheModel) {
  start();
  mock_.push(mock_text("It says: remember the milk."));
  json request = json::parse(R"({"model":"fast","messages":[
      {"role":"system","content":"CLIENT SYSTEM PROMPT"},
      {"role":"user","content":"What is in the folder?"},
      {"role":"assistant","content":null,"tool_calls":[
          {"id":"call_a","type":"function","function":{"name":"fs_list","arguments":"{\"path\":\".\"}"}}]},
      {"role":"tool","tool_call_id":"call_a","content":"notes.txt"},
      {"role":"assistant","content":[{"type":"text","text":"One file: notes.txt."}]},
      {"role":"user","content":[{"type":"text","text":"Read"},{"type":"text","text":"it"}]}]})");
  auto r = post(request);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  EXPECT_EQ(json::parse(r->body)["model"], "fast");
  json sent = model_messages(0);
  ASSERT_EQ(sent.size(), 6u) << sent.dump(1);
  EXPECT_EQ(sent[0]["role"], "system");
  EXPECT_EQ(sent.dump().find("CLIENT SYSTEM PROMPT"), std::string::npos);  // keel writes its own
  EXPECT_EQ(sent[1], json::parse(R"({"role":"user","content":"What is in the folder?"})"));
  EXPECT_EQ(sent[2]["role"], "assistant");
  ASSERT_EQ(sent[2]["tool_calls"].size(), 1u);
  EXPECT_EQ(sent[2]["tool_calls"][0]["id"], "call_a");
  EXPECT_EQ(sent[2]["tool_calls"][0]["function"]["name"], "fs_list");
  EXPECT_EQ(json::parse(sent[2]["tool_calls"][0]["function"]["arguments"].get<std::string>()), json::parse(R"({"path":"."})"));
  EXPECT_EQ(sent[3]["role"], "tool");
  EXPECT_EQ(sent[3]["tool_call_id"], "call_a");
  EXPECT_EQ(sent[3]["content"], "notes.txt");
  EXPECT_EQ(sent[4]["role"], "assistant");
  EXPECT_EQ(sent[4]["content"], "One file: notes.txt.");
  EXPECT_EQ(sent[5], json::parse(R"({"role":"user","content":"Read\nit"})"));
}

TEST_F(OpenAiEndpointTest, CallsNeedingApprovalAreDeniedWithAMessageTheModelSees) {
  ApprovalPolicy confirm_everything;
  confirm_everything.override_mode = ApprovalMode::kConfirm;
  confirm_everything.override_source = "test";
  start({}, confirm_everything);
  mock_.push(mock_tool_calls({call("call_1", "fs_list", R"({"path":"."})")}));
  mock_.push(mock_text("I could not look."));
  auto r = post(ask("List the folder"));
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  EXPECT_EQ(json::parse(r->body)["choices"][0]["message"]["content"], "I could not look.");
  const json tool = model_tool_message(1);
  EXPECT_EQ(tool["role"], "tool");
  EXPECT_NE(tool["content"].get<std::string>().find("approvals are not possible over the OpenAI-compatible /v1 endpoint"),
            std::string::npos)
      << tool;
}

TEST_F(OpenAiEndpointTest, SamplingSettingsArePassedOn) {
  start();
  mock_.push(mock_text("ok"));
  json request = ask("hi");
  request["temperature"] = 0.25;
  request["top_p"] = 0.5;
  request["seed"] = 7;
  request["max_tokens"] = 10;
  request["max_completion_tokens"] = 77;
  request["user"] = "someone";  // accepted and ignored
  auto r = post(request);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  json sent = json::parse(mock_.request_bodies().at(0));
  EXPECT_EQ(sent["temperature"], 0.25);
  EXPECT_EQ(sent["top_p"], 0.5);
  EXPECT_EQ(sent["seed"], 7);
  EXPECT_EQ(sent["max_tokens"], 77);
}

TEST_F(OpenAiEndpointTest, AFailedRunIsAnErrorClientsDoNotRetry) {
  start();
  mock_.push(mock_error(500, "backend exploded"));
  auto r = post(ask("hi"));
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 400) << r->body;  // 5xx, 409 and 422 are retried by one official client or another
  EXPECT_EQ(r->header("x-should-retry"), "false");
  json error = json::parse(r->body)["error"];
  EXPECT_EQ(error["type"], "run_failed");
  EXPECT_EQ(error["code"], "backend");
  EXPECT_EQ(error["param"], nullptr);
  EXPECT_NE(error["message"].get<std::string>().find("backend exploded"), std::string::npos) << error;
}

TEST_F(OpenAiEndpointTest, AFailingModelEndsAStreamWithAnErrorEvent) {
  start();
  mock_.push(mock_error(500, "backend exploded"));
  auto r = post(ask("hi", true));
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  std::vector<ChunkEvent> events = parse_sse(r->body);
  ASSERT_EQ(events.size(), 3u) << r->body;
  EXPECT_EQ(json::parse(events[0].text)["choices"][0]["delta"]["role"], "assistant");
  json error = json::parse(events[1].text)["error"];
  EXPECT_EQ(error["type"], "run_failed");
  EXPECT_EQ(error["code"], "backend");
  EXPECT_NE(error["message"].get<std::string>().find("backend exploded"), std::string::npos) << error;
  EXPECT_EQ(events[2].text, "[DONE]");
}

TEST_F(OpenAiEndpointTest, AClientThatLeavesStopsItsRun) {
  start();
  std::string long_text(400, 'x');
  mock_.push(mock_slow_stream(reply(long_text), 100));  // 100 pieces, about 10 s in all
  {
    RawHttpClient client(http_->port());
    ASSERT_TRUE(client.ok());
    std::string body = ask("Write a lot", true).dump();
    std::string request = "POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n";
    request.append("Content-Length: ").append(std::to_string(body.size())).append("\r\n\r\n").append(body);
    ASSERT_TRUE(client.send(request));
    auto head = client.read_head(10000);
    ASSERT_TRUE(head);
    EXPECT_EQ(head->status, 200);
    for (int i = 0; i < 200 && mock_.request_count() == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    ASSERT_EQ(mock_.request_count(), 1u);
  }  // the client disconnects mid-run
  const auto started = std::chrono::steady_clock::now();
  std::string state;
  while (std::chrono::steady_clock::now() - started < std::chrono::seconds(20)) {
    auto sessions = store_->list_sessions(SessionFilter{});
    if (sessions.ok() && !sessions->empty()) {
      auto run = store_->latest_run(sessions->front().id);
      if (run.ok()) state = std::string(run_state_name(run->state));
      if (state != "running") break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(state, "aborted");
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(7))
      << "the run should stop well before the model's 10 s stream ends";
}

TEST_F(OpenAiEndpointTest, AnswersCarryCorsHeadersAndPreflightsAreAnswered) {
  api::ApiAccess access;
  access.cors_origins = {"http://app.example"};
  start(access);
  mock_.push(mock_text("hi"));
  auto r = post(ask("hi"), "Origin: http://app.example\r\n");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->header("access-control-allow-origin"), "http://app.example");
  r = post(R"({"model":"default"})", "Origin: http://app.example\r\n");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
  EXPECT_EQ(r->header("access-control-allow-origin"), "http://app.example");
  r = raw_http(http_->port(), "OPTIONS", "/v1/chat/completions",
               "Origin: http://app.example\r\nAccess-Control-Request-Method: POST\r\n");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 204);
  EXPECT_EQ(r->header("access-control-allow-origin"), "http://app.example");
  EXPECT_NE(r->header("access-control-allow-headers").find("Authorization"), std::string::npos);
}

}  // namespace
}  // namespace keel::testing
