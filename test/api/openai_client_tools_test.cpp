// The chat endpoint as a drop-in model backend: the client's own function tools handed back as
// tool_calls and continued with its results, tool_choice, structured output (response_format),
// and text that streams as the model writes it.
#include <chrono>
#include <thread>

#include "api/openai_endpoint_fixture.hpp"

namespace keel::testing {
namespace {

using nlohmann::json;

const json kClientWeatherTool = json::parse(R"({"type":"function","function":{"name":"get_weather",
    "description":"The weather in a city","parameters":{"type":"object","properties":{"city":{"type":"string"}},
    "required":["city"]}}})");

json ask_with_client_tool(std::string text, bool stream = false) {
  json request = {{"model", "default"}, {"messages", json::array({{{"role", "user"}, {"content", std::move(text)}}})}};
  if (stream) request["stream"] = true;
  request["tools"] = json::array({kClientWeatherTool});
  return request;
}

class OpenAiClientToolsTest : public OpenAiEndpointFixture {};

TEST_F(OpenAiClientToolsTest, TheClientsToolCallIsHandedBackAsToolCalls) {
  start();
  mock_.push(mock_tool_calls({call("call_w", "get_weather", R"({"city":"Paris"})")}));
  auto r = post(ask_with_client_tool("Weather in Paris?"));
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  const json choice = json::parse(r->body)["choices"][0];
  EXPECT_EQ(choice["finish_reason"], "tool_calls");
  EXPECT_EQ(choice["message"]["content"], nullptr);
  ASSERT_EQ(choice["message"]["tool_calls"].size(), 1u);
  EXPECT_EQ(choice["message"]["tool_calls"][0], json::parse(R"({"id":"call_w","type":"function",
      "function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}})"));
  ASSERT_EQ(mock_.request_count(), 1u);
  const std::string sent = mock_.request_bodies()[0];  // tools as the profile offers them (native or in the prompt)
  EXPECT_NE(sent.find("get_weather"), std::string::npos);
  EXPECT_NE(sent.find("The weather in a city"), std::string::npos);
  EXPECT_NE(sent.find("fs_list"), std::string::npos);  // keel's own stay offered
}

TEST_F(OpenAiClientToolsTest, TheClientsResultsContinueTheRun) {
  start();
  mock_.push(mock_text("It is 18C in Paris."));
  json request = ask_with_client_tool("unused");
  request["messages"] = json::parse(R"([
      {"role":"user","content":"Weather in Paris?"},
      {"role":"assistant","content":null,"tool_calls":[{"id":"call_w","type":"function",
          "function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]},
      {"role":"tool","tool_call_id":"call_w","content":"18C, sunny"}])");
  auto r = post(request);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  EXPECT_EQ(json::parse(r->body)["choices"][0]["message"]["content"], "It is 18C in Paris.");
  EXPECT_EQ(json::parse(r->body)["choices"][0]["finish_reason"], "stop");
  const json sent = model_messages(0);
  EXPECT_EQ(sent.back()["role"], "tool");
  EXPECT_EQ(sent.back()["content"], "18C, sunny");
}

TEST_F(OpenAiClientToolsTest, KeelsOwnCallsOfTheRoundRunAndOnlyTheClientsAreHandedBack) {
  start();
  mock_.push(mock_tool_calls({call("call_l", "fs_list", R"({"path":"."})"), call("call_w", "get_weather", R"({"city":"Oslo"})")},
                             "Looking."));
  auto r = post(ask_with_client_tool("List the folder and get the weather"));
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  const json body = json::parse(r->body);
  const json message = body["choices"][0]["message"];
  EXPECT_EQ(message["content"], "Looking.");
  ASSERT_EQ(message["tool_calls"].size(), 1u);
  EXPECT_EQ(message["tool_calls"][0]["id"], "call_w");
  EXPECT_EQ(body["keel"]["tool_calls"], 1);  // the one keel ran
  EXPECT_EQ(mock_.request_count(), 1u);  // the run stopped for the client: no model call after keel's tool
  auto run = store_->latest_run(body["keel"]["session_id"].get<std::string>());
  ASSERT_TRUE(run.ok());
  auto stored = store_->load_messages(body["keel"]["session_id"].get<std::string>());
  ASSERT_TRUE(stored.ok());
  EXPECT_EQ(stored->back().message.role, Role::kTool);  // fs_list's result is kept with the session
  EXPECT_EQ(stored->back().message.tool_call_id, "call_l");
}

TEST_F(OpenAiClientToolsTest, AStreamHandsTheCallsOverInOneToolCallsChunk) {
  start();
  mock_.push(mock_stream(reply("Checking.", {call("call_w", "get_weather", R"({"city":"Rome"})")})));
  auto r = post(ask_with_client_tool("Weather in Rome?", true));
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  std::vector<ChunkEvent> events = parse_sse(r->body);
  ASSERT_GE(events.size(), 4u) << r->body;
  std::string content;
  json tool_calls;
  json finish = nullptr;
  for (const ChunkEvent& e : events) {
    if (e.comment || e.text == "[DONE]") continue;
    const json choice = json::parse(e.text)["choices"][0];
    if (choice["delta"].contains("content")) content += choice["delta"]["content"].get<std::string>();
    if (choice["delta"].contains("tool_calls")) tool_calls = choice["delta"]["tool_calls"];
    if (!choice["finish_reason"].is_null()) finish = choice["finish_reason"];
  }
  EXPECT_EQ(content, "Checking.");
  ASSERT_EQ(tool_calls.size(), 1u);
  EXPECT_EQ(tool_calls[0]["index"], 0);
  EXPECT_EQ(tool_calls[0]["id"], "call_w");
  EXPECT_EQ(tool_calls[0]["function"]["name"], "get_weather");
  EXPECT_EQ(finish, "tool_calls");
  EXPECT_EQ(events.back().text, "[DONE]");
}

TEST_F(OpenAiClientToolsTest, ToolChoiceAppliesToTheRunsFirstModelCallOnly) {
  start();
  mock_.push(mock_tool_calls({call("call_l", "fs_list", R"({"path":"."})")}));
  mock_.push(mock_text("done"));
  json request = ask_with_client_tool("List it");
  request["tool_choice"] = "required";
  auto r = post(request);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  ASSERT_EQ(mock_.request_count(), 2u);
  EXPECT_EQ(json::parse(mock_.request_bodies()[0])["tool_choice"], "required");
  EXPECT_FALSE(json::parse(mock_.request_bodies()[1]).contains("tool_choice"));
}

TEST_F(OpenAiClientToolsTest, AnInvalidStructuredAnswerGetsOneCorrectionThenIsValidJson) {
  start();
  mock_.push(mock_text("Sure! Paris is at 48.8N."));
  mock_.push(mock_text("```json\n{\"city\": \"Paris\", \"lat\": 48.8}\n```"));
  json request = ask("Where is Paris?");
  request["response_format"] = json::parse(R"({"type":"json_schema","json_schema":{"name":"place","strict":true,
      "schema":{"type":"object","properties":{"city":{"type":"string"},"lat":{"type":"number"}},
      "required":["city","lat"],"additionalProperties":false}}})");
  auto r = post(request);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  const std::string content = json::parse(r->body)["choices"][0]["message"]["content"];
  EXPECT_EQ(json::parse(content), json::parse(R"({"city":"Paris","lat":48.8})"));
  ASSERT_EQ(mock_.request_count(), 2u);
  const std::string second = mock_.request_bodies()[1];
  EXPECT_NE(second.find("could not be used: the answer is not JSON"), std::string::npos) << second;
  EXPECT_NE(mock_.request_bodies()[0].find("matches this JSON Schema"), std::string::npos);
}

TEST_F(OpenAiClientToolsTest, AStructuredAnswerThatStaysInvalidIsAnErrorNotAnObject) {
  start();
  mock_.push(mock_text(R"({"city": 7})"));
  mock_.push(mock_text(R"({"city": 8})"));
  json request = ask("Where is Paris?");
  request["response_format"] = json::parse(R"({"type":"json_schema","json_schema":{"name":"place",
      "schema":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}})");
  auto r = post(request);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400) << r->body;
  EXPECT_EQ(r->header("x-should-retry"), "false");
  const json error = json::parse(r->body)["error"];
  EXPECT_EQ(error["code"], "invalid_answer");
  EXPECT_NE(error["message"].get<std::string>().find("/city"), std::string::npos) << error;
  EXPECT_EQ(mock_.request_count(), 2u);
}

TEST_F(OpenAiClientToolsTest, JsonModeAcceptsAnObjectOnly) {
  start();
  mock_.push(mock_text("[1,2]"));
  mock_.push(mock_text(R"({"n":2})"));
  json request = ask("Give me an object");
  request["response_format"] = json::parse(R"({"type":"json_object"})");
  auto r = post(request);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  EXPECT_EQ(json::parse(r->body)["choices"][0]["message"]["content"], R"({"n":2})");
}

TEST_F(OpenAiClientToolsTest, TextReachesTheClientWhileTheModelIsStillWriting) {
  start();
  mock_.push(mock_slow_stream(reply("one two three four five six seven eight"), 120));  // ~10 pieces, ~1.2 s
  const TimedStream stream = post_and_time_chunks(http_->port(), "/v1/chat/completions", ask("Count", true).dump());
  ASSERT_FALSE(stream.chunks.empty());
  using Clock = TimedStream::Clock;
  const std::string all = stream.all();
  const Clock::time_point last = stream.chunks.back().at;
  std::optional<Clock::time_point> first_text;
  for (const TimedStream::Chunk& c : stream.chunks) {
    if (c.text.find("\"content\":\"one") != std::string::npos) {
      first_text = c.at;
      break;
    }
  }
  ASSERT_TRUE(first_text) << all;
  // The first words arrive while the model still writes the rest (about a second more)...
  EXPECT_GT(std::chrono::duration_cast<std::chrono::milliseconds>(last - *first_text).count(), 600) << all;
  // ...and within 50 ms of the model sending them (its chunk 0 is the role, chunk 1 the first words).
  const std::vector<Clock::time_point> produced = mock_.chunk_times();
  ASSERT_GE(produced.size(), 2u);
  EXPECT_LT(std::chrono::duration_cast<std::chrono::milliseconds>(*first_text - produced[1]).count(), 50);
}

}  // namespace
}  // namespace keel::testing

namespace keel::testing {
namespace {

using nlohmann::json;

class OpenAiIdempotencyTest : public OpenAiEndpointFixture {};

TEST_F(OpenAiIdempotencyTest, ARetryWithTheSameKeyGetsTheFirstAnswerWithoutARun) {
  start();
  mock_.push(mock_tool_calls({call("call_l", "fs_list", R"({"path":"."})")}));
  mock_.push(mock_text("The folder holds notes.txt."));
  const std::string body = ask("List the folder").dump();
  auto first = post(std::string_view(body), "Idempotency-Key: run-1\r\n");
  ASSERT_TRUE(first);
  ASSERT_EQ(first->status, 200) << first->body;
  auto again = post(std::string_view(body), "Idempotency-Key: run-1\r\n");
  ASSERT_TRUE(again);
  EXPECT_EQ(again->status, 200);
  EXPECT_EQ(again->body, first->body);
  EXPECT_EQ(again->header("idempotent-replayed"), "true");
  EXPECT_EQ(mock_.request_count(), 2u);  // one run: its two model calls, none for the retry

  const std::string other_body = ask("Something else").dump();
  auto other = post(std::string_view(other_body), "Idempotency-Key: run-1\r\n");
  ASSERT_TRUE(other);
  EXPECT_EQ(other->status, 400);
  EXPECT_EQ(json::parse(other->body)["error"]["code"], "idempotency_key_reused");
  EXPECT_EQ(mock_.request_count(), 2u);
}

TEST_F(OpenAiIdempotencyTest, AStreamIsReplayedWholeAndAFailedRunIsNotRunAgain) {
  start();
  mock_.push(mock_error(500, "backend exploded"));
  const std::string body = ask("hi", true).dump();
  auto first = post(std::string_view(body), "Idempotency-Key: s-1\r\n");
  ASSERT_TRUE(first);
  auto again = post(std::string_view(body), "Idempotency-Key: s-1\r\n");
  ASSERT_TRUE(again);
  EXPECT_EQ(again->body, first->body);
  EXPECT_NE(again->body.find("run_failed"), std::string::npos) << again->body;
  EXPECT_EQ(mock_.request_count(), 1u);
}

}  // namespace
}  // namespace keel::testing
