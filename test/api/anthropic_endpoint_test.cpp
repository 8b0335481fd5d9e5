// The /v1/messages endpoint over real sockets: whole and streamed messages (the exact events and
// usage), keel's own tool rounds inside a run, the client's tools handed back as tool_use blocks
// and continued with tool_result blocks, tool_choice on the first model call only, and text that
// streams while the model is still writing.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "api/anthropic_endpoint_fixture.hpp"

namespace keel::testing {
namespace anthropic_endpoint_test {

using nlohmann::json;

class AnthropicEndpointTest : public AnthropicEndpointFixture {};

TEST_F(AnthropicEndpointTest, AnswersAWholeMessage) {
  start();
  mock_.push(mock_completion(reply("Hello there.", {}, {12, 4})));
  json request = ask("Say hello");
  request["system"] = json::array({{{"type", "text"}, {"text", "You are a pirate."}, {"cache_control", {{"type", "ephemeral"}}}}});
  request["temperature"] = 0.25;
  request["top_k"] = 7;
  request["stop_sequences"] = {"END"};
  request["metadata"] = {{"user_id", "u-1"}};
  auto r = post(request, "anthropic-beta: prompt-caching-2024-07-31\r\n");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  EXPECT_EQ(r->header("content-type"), "application/json");
  json body = json::parse(r->body);
  const std::string id = body["id"];
  EXPECT_EQ(id.rfind("msg_", 0), 0u) << id;
  EXPECT_EQ(id.size(), 4u + 24u);
  const std::string run = body["keel"]["run_id"];
  EXPECT_EQ(run.rfind("r_", 0), 0u) << run;
  body.erase("id");
  body["keel"].erase("session_id");
  body["keel"].erase("run_id");
  EXPECT_EQ(body, json::parse(R"({
      "type":"message","role":"assistant","model":"default",
      "content":[{"type":"text","text":"Hello there."}],
      "stop_reason":"end_turn","stop_sequence":null,
      "usage":{"input_tokens":12,"output_tokens":4},
      "keel":{"rounds":1,"tool_calls":0}})"));
  // The model got the task last, the client's settings, and not the client's system text.
  json sent = model_request(0);
  EXPECT_EQ(sent["messages"].back(), json::parse(R"({"role":"user","content":"Say hello"})"));
  EXPECT_EQ(sent["max_tokens"], 1024);
  EXPECT_EQ(sent["temperature"], 0.25);
  EXPECT_EQ(sent["stop"], json::array({"END"}));
  EXPECT_EQ(sent.dump().find("pirate"), std::string::npos);
  auto stored = store_->get_run(run);
  ASSERT_TRUE(stored.ok()) << stored.status().to_string();
  EXPECT_EQ(stored->answer, "Hello there.");
}

TEST_F(AnthropicEndpointTest, StreamsTheStandardEvents) {
  start();
  mock_.push(mock_stream(reply("Hello there, friend.", {}, {12, 4}), 5));
  auto r = post(ask("Say hello", true));
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  EXPECT_EQ(r->header("content-type"), "text/event-stream");
  std::vector<NamedEvent> events = parse_named_events(r->body);
  ASSERT_GE(events.size(), 6u) << r->body;
  std::vector<std::string> expected = {"message_start", "content_block_start"};
  for (size_t i = 2; i + 4 < events.size(); ++i) expected.push_back("content_block_delta");
  expected.insert(expected.end(), {"content_block_delta", "content_block_stop", "message_delta", "message_stop"});
  EXPECT_EQ(event_names(events), expected) << r->body;
  EXPECT_GE(expected.size(), 8u) << "the model's pieces arrive as several deltas";

  json start_message = events[0].data["message"];
  const std::string id = start_message["id"];
  EXPECT_EQ(id.rfind("msg_", 0), 0u);
  start_message.erase("id");
  EXPECT_EQ(events[0].data["type"], "message_start");
  EXPECT_EQ(start_message, json::parse(R"({"type":"message","role":"assistant","model":"default","content":[],
      "stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":0,"output_tokens":0}})"));
  EXPECT_EQ(events[1].data, json::parse(R"({"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}})"));
  for (size_t i = 2; i + 3 < events.size(); ++i) {
    EXPECT_EQ(events[i].data["type"], "content_block_delta");
    EXPECT_EQ(events[i].data["index"], 0);
  }
  EXPECT_EQ(streamed_text(events), "Hello there, friend.");
  EXPECT_EQ(events[events.size() - 3].data, json::parse(R"({"type":"content_block_stop","index":0})"));
  EXPECT_EQ(events[events.size() - 2].data, json::parse(R"({"type":"message_delta",
      "delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"input_tokens":12,"output_tokens":4}})"));
  EXPECT_EQ(events.back().data, json::parse(R"({"type":"message_stop"})"));
}

TEST_F(AnthropicEndpointTest, KeelsOwnToolsRunInsideAndTheirRoundsTextStreamsInOneBlock) {
  start();
  mock_.push(mock_stream(reply("Let me look.", {call("call_1", "fs_list", R"({"path":"."})")}, {10, 5})));
  mock_.push(mock_stream(reply("It holds notes.txt.", {}, {20, 6})));
  auto r = post(ask("What is in the folder?", true));
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  std::vector<NamedEvent> events = parse_named_events(r->body);
  EXPECT_EQ(streamed_text(events), "Let me look.\n\nIt holds notes.txt.");
  int text_blocks = 0, pings = 0;
  for (const NamedEvent& e : events) {
    if (e.name == "content_block_start") ++text_blocks;
    if (e.name == "ping") ++pings;
  }
  EXPECT_EQ(text_blocks, 1);
  EXPECT_EQ(pings, 1) << "one ping while fs_list ran";
  EXPECT_EQ(events[events.size() - 2].data["usage"], json::parse(R"({"input_tokens":30,"output_tokens":11})"));
  EXPECT_EQ(events[events.size() - 2].data["delta"]["stop_reason"], "end_turn");
  // The tool ran in keel: its result reached the model.
  std::vector<json> results = model_tool_messages(1);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_NE(results[0]["content"].get<std::string>().find("notes.txt"), std::string::npos);

  // The whole form answers with the final text.
  mock_.push(mock_completion(reply("Let me look.", {call("call_2", "fs_list", R"({"path":"."})")})));
  mock_.push(mock_completion(reply("It holds notes.txt.")));
  r = post(ask("What is in the folder?"));
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  json body = json::parse(r->body);
  EXPECT_EQ(body["content"], json::parse(R"([{"type":"text","text":"It holds notes.txt."}])"));
  EXPECT_EQ(body["keel"]["tool_calls"], 1);
}

TEST_F(AnthropicEndpointTest, TheClientsToolCallsComeBackAndItsResultsContinueTheRun) {
  start();
  mock_.push(mock_completion(reply("Checking.", {call("toolu_01abc", "get_weather", R"({"city":"Paris"})")}, {11, 3})));
  json request = ask("Weather in Paris?");
  request["tools"] = json::array({weather_tool()});
  auto r = post(request);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  json first = json::parse(r->body);
  EXPECT_EQ(first["stop_reason"], "tool_use");
  EXPECT_EQ(first["content"], json::parse(R"([{"type":"text","text":"Checking."},
      {"type":"tool_use","id":"toolu_01abc","name":"get_weather","input":{"city":"Paris"}}])"));
  EXPECT_EQ(first["usage"], json::parse(R"({"input_tokens":11,"output_tokens":3})"));
  // The model saw the client's tool beside keel's own, with the client's schema.
  std::vector<std::string> offered = model_tool_names(0);
  EXPECT_NE(std::find(offered.begin(), offered.end(), "get_weather"), offered.end());
  EXPECT_NE(std::find(offered.begin(), offered.end(), "fs_list"), offered.end());
  const json sent_request = model_request(0);  // kept: a range over a temporary's member would dangle
  for (const json& t : sent_request["tools"]) {
    if (t["function"]["name"] == "get_weather") {
      EXPECT_EQ(t["function"]["parameters"], weather_tool()["input_schema"]);
    }
  }
  ASSERT_EQ(mock_.request_count(), 1u) << "the run ended handing the call over";

  // The client runs the tool and sends the conversation again with the result.
  mock_.push(mock_completion(reply("It is sunny in Paris.", {}, {30, 6})));
  request["messages"].push_back({{"role", "assistant"}, {"content", first["content"]}});
  request["messages"].push_back(
      {{"role", "user"},
       {"content", json::array({{{"type", "tool_result"}, {"tool_use_id", "toolu_01abc"},
                                 {"content", json::array({{{"type", "text"}, {"text", "sunny, 21 C"}}})}}})}});
  r = post(request);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  json second = json::parse(r->body);
  EXPECT_EQ(second["stop_reason"], "end_turn");
  EXPECT_EQ(second["content"], json::parse(R"([{"type":"text","text":"It is sunny in Paris."}])"));
  // The model saw its call and the client's result, and no new user message after them.
  json sent = model_request(1);
  std::vector<json> results = model_tool_messages(1);
  ASSERT_EQ(results.size(), 1u) << sent.dump();
  EXPECT_EQ(results[0]["tool_call_id"], "toolu_01abc");
  EXPECT_EQ(results[0]["content"], "sunny, 21 C");
  bool call_seen = false;
  for (const json& m : sent["messages"]) {
    if (m.value("role", "") == "assistant" && m.contains("tool_calls")) {
      call_seen = m["tool_calls"][0]["id"] == "toolu_01abc" && m["tool_calls"][0]["function"]["name"] == "get_weather";
    }
  }
  EXPECT_TRUE(call_seen) << sent.dump();
}

TEST_F(AnthropicEndpointTest, AStreamedToolCallIsAToolUseBlock) {
  start();
  mock_.push(mock_stream(reply("Checking.", {call("toolu_02", "get_weather", R"({"city":"Oslo"})")}, {11, 3})));
  json request = ask("Weather in Oslo?", true);
  request["tools"] = json::array({weather_tool()});
  auto r = post(request);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  std::vector<NamedEvent> events = parse_named_events(r->body);
  EXPECT_EQ(streamed_text(events), "Checking.");
  ASSERT_GE(events.size(), 7u);
  const size_t n = events.size();
  EXPECT_EQ(events[n - 6].data, json::parse(R"({"type":"content_block_stop","index":0})"));
  EXPECT_EQ(events[n - 5].data, json::parse(R"({"type":"content_block_start","index":1,
      "content_block":{"type":"tool_use","id":"toolu_02","name":"get_weather","input":{}}})"));
  EXPECT_EQ(events[n - 4].name, "content_block_delta");
  EXPECT_EQ(events[n - 4].data["index"], 1);
  EXPECT_EQ(events[n - 4].data["delta"]["type"], "input_json_delta");
  EXPECT_EQ(json::parse(events[n - 4].data["delta"].value("partial_json", "null")), json::parse(R"({"city":"Oslo"})"));
  EXPECT_EQ(events[n - 3].data, json::parse(R"({"type":"content_block_stop","index":1})"));
  EXPECT_EQ(events[n - 2].data["delta"]["stop_reason"], "tool_use");
  EXPECT_EQ(events[n - 2].data["usage"], json::parse(R"({"input_tokens":11,"output_tokens":3})"));
  EXPECT_EQ(events[n - 1].name, "message_stop");
}

TEST_F(AnthropicEndpointTest, KeelRunsItsOwnCallsOfARoundAndHandsOverOnlyTheClients) {
  start();
  mock_.push(mock_completion(reply("", {call("call_own", "fs_list", R"({"path":"."})"),
                                        call("toolu_03", "get_weather", R"({"city":"Rome"})")})));
  json request = ask("List the folder and get the weather in Rome");
  request["tools"] = json::array({weather_tool()});
  auto r = post(request);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  json body = json::parse(r->body);
  EXPECT_EQ(body["stop_reason"], "tool_use");
  EXPECT_EQ(body["content"], json::parse(R"([{"type":"tool_use","id":"toolu_03","name":"get_weather","input":{"city":"Rome"}}])"));
  EXPECT_EQ(body["keel"]["tool_calls"], 1) << "keel ran its own call";
  EXPECT_EQ(mock_.request_count(), 1u);
}

TEST_F(AnthropicEndpointTest, ToolChoiceGoesWithTheFirstModelCallOnly) {
  start();
  mock_.push(mock_completion(reply("", {call("call_1", "fs_list", R"({"path":"."})")})));
  mock_.push(mock_completion(reply("Done.")));
  json request = ask("Look around");
  request["tools"] = json::array({weather_tool()});
  request["tool_choice"] = {{"type", "tool"}, {"name", "get_weather"}};
  auto r = post(request);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  ASSERT_EQ(mock_.request_count(), 2u);
  EXPECT_EQ(model_request(0)["tool_choice"], json::parse(R"({"type":"function","function":{"name":"get_weather"}})"));
  EXPECT_FALSE(model_request(1).contains("tool_choice")) << model_request(1).dump();

  mock_.push(mock_completion(reply("Fine.")));
  request["tool_choice"] = {{"type", "any"}};
  r = post(request);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  EXPECT_EQ(model_request(2)["tool_choice"], "required");

  mock_.push(mock_completion(reply("Fine.")));
  request["tool_choice"] = {{"type", "none"}};
  r = post(request);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  EXPECT_EQ(model_request(3)["tool_choice"], "none");

  mock_.push(mock_completion(reply("Fine.")));
  request["tool_choice"] = {{"type", "auto"}};
  r = post(request);
  ASSERT_TRUE(r);
  EXPECT_FALSE(model_request(4).contains("tool_choice"));
}

TEST_F(AnthropicEndpointTest, AReplyCutAtTheTokenLimitStopsWithMaxTokens) {
  start();
  ModelReply cut = reply("Once upon a");
  cut.finish_reason = "length";
  mock_.push(mock_completion(cut));
  auto r = post(ask("Tell a story"));
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  EXPECT_EQ(json::parse(r->body)["stop_reason"], "max_tokens");
}

// A model that streams slowly: the first text reaches the client while the model still writes.
TEST_F(AnthropicEndpointTest, TextStreamsLiveWhileTheModelWrites) {
  start();
  mock_.push(mock_slow_stream(reply("one two three four five six", {}, {9, 6}), 150));
  const TimedStream stream = post_and_time_chunks(http_->port(), "/v1/messages", ask("Count", true).dump());
  ASSERT_FALSE(stream.chunks.empty());
  const std::string all = stream.all();
  std::vector<std::pair<double, std::string>> arrivals;  // ms since the head, the event name
  for (const TimedStream::Chunk& c : stream.chunks) {
    const double at = std::chrono::duration<double, std::milli>(c.at - stream.head_at).count();
    for (const NamedEvent& e : parse_named_events(c.text)) arrivals.emplace_back(at, e.name);
  }
  EXPECT_EQ(streamed_text(parse_named_events(all)), "one two three four five six");
  double first_delta = -1, stop = -1;
  int spaced_deltas = 0;  // deltas that came well after the one before
  double last_delta_at = -1;
  for (const auto& [at, name] : arrivals) {
    if (name == "content_block_delta") {
      if (first_delta < 0) first_delta = at;
      if (last_delta_at >= 0 && at - last_delta_at > 50.0) ++spaced_deltas;
      last_delta_at = at;
    }
    if (name == "message_stop") stop = at;
  }
  ASSERT_GE(first_delta, 0);
  ASSERT_GE(stop, 0);
  // 7 text pieces and 3 more chunks at 150 ms each: the model writes for about 1.3 s after its
  // first piece. Held to the end, the first delta would come with message_stop.
  EXPECT_GT(stop - first_delta, 500.0) << "first delta at " << first_delta << " ms, message_stop at " << stop << " ms";
  EXPECT_GE(spaced_deltas, 3) << "the deltas arrived one by one as the model wrote them";
}

}  // namespace anthropic_endpoint_test
}  // namespace keel::testing
