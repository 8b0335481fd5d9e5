// The Responses API with the client's function tools: calls handed back as function_call items
// and continued with function_call_output, by previous_response_id or with the whole history;
// keel's own tools running inside meanwhile; tool_choice on the first call; item_reference.
#include "api/responses_endpoint_fixture.hpp"

namespace keel::testing {
namespace {

using nlohmann::json;

class ResponsesClientToolsTest : public ResponsesEndpointFixture {};

TEST_F(ResponsesClientToolsTest, ClientToolLoopWithPreviousResponseId) {
  start_responses();
  mock_.push(mock_tool_calls({call("call_w", "get_weather", R"({"city":"Paris"})")}));
  mock_.push(mock_text("It is 18C in Paris."));
  auto r = create(with_weather(task("Weather in Paris?")));
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  const json first = json::parse(r->body);
  EXPECT_EQ(first["status"], "completed");
  EXPECT_EQ(first["tools"], json::array({kWeatherTool}));
  ASSERT_EQ(first["output"].size(), 1u) << first;
  const json fc = first["output"][0];
  EXPECT_EQ(fc["type"], "function_call");
  EXPECT_EQ(fc["call_id"], "call_w");
  EXPECT_EQ(fc["name"], "get_weather");
  EXPECT_EQ(fc["arguments"], R"({"city":"Paris"})");
  EXPECT_EQ(fc["status"], "completed");
  EXPECT_EQ(fc["id"].get<std::string>().rfind("fc_", 0), 0u);
  const std::string sent = mock_.request_bodies()[0];
  EXPECT_NE(sent.find("The weather in a city"), std::string::npos);  // offered to the model
  EXPECT_NE(sent.find("fs_list"), std::string::npos);                // next to keel's own

  json next =
      with_weather(task(json::parse(R"([{"type":"function_call_output","call_id":"call_w","output":"18C, sunny"}])")));
  next["previous_response_id"] = first["id"];
  r = create(next);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  const json second = json::parse(r->body);
  EXPECT_EQ(second["output"][0]["content"][0]["text"], "It is 18C in Paris.");
  EXPECT_EQ(second["keel"]["session_id"], first["keel"]["session_id"]);
  const std::vector<json> seen = conversation_seen(mock_.request_bodies(), 1);
  ASSERT_GE(seen.size(), 3u);
  EXPECT_EQ(seen[0], json::parse(R"({"role":"user","content":"Weather in Paris?"})"));
  EXPECT_EQ(seen[1]["tool_calls"][0]["id"], "call_w");
  EXPECT_EQ(seen[2]["role"], "tool");
  EXPECT_EQ(seen[2]["tool_call_id"], "call_w");
  EXPECT_EQ(seen[2]["content"], "18C, sunny");
}

TEST_F(ResponsesClientToolsTest, ClientToolLoopWithTheWholeHistory) {
  start_responses();
  mock_.push(mock_text("It is 18C in Paris."));
  json request = with_weather(task(json::parse(R"([
      {"role":"user","content":"Weather in Paris?"},
      {"type":"function_call","id":"fc_1","call_id":"call_w","name":"get_weather","arguments":"{\"city\":\"Paris\"}"},
      {"type":"function_call_output","call_id":"call_w","output":"18C, sunny"}])")));
  request["store"] = false;
  auto r = create(request);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  EXPECT_EQ(json::parse(r->body)["output"][0]["content"][0]["text"], "It is 18C in Paris.");
  const std::vector<json> seen = conversation_seen(mock_.request_bodies(), 0);
  ASSERT_GE(seen.size(), 3u);
  EXPECT_EQ(seen[1]["tool_calls"][0]["function"]["name"], "get_weather");
  EXPECT_EQ(seen[2]["tool_call_id"], "call_w");
  EXPECT_EQ(seen[2]["content"], "18C, sunny");

  request["input"] = json::parse(R"([{"role":"user","content":"hi"},
      {"type":"function_call_output","call_id":"call_x","output":"?"}])");
  r = create(request);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400) << r->body;
  EXPECT_EQ(json::parse(r->body)["error"]["param"], "input[1].call_id");
}

TEST_F(ResponsesClientToolsTest, KeelsOwnToolsRunInsideWhileAClientToolIsOffered) {
  start_responses();
  mock_.push(mock_tool_calls({call("call_l", "fs_list", R"({"path":"."})")}, "Let me look."));
  mock_.push(mock_text("There is one file: notes.txt."));
  auto r = create(with_weather(task("What is in the folder?")));
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  const json body = json::parse(r->body);
  ASSERT_EQ(body["output"].size(), 1u) << body;
  EXPECT_EQ(body["output"][0]["content"][0]["text"], "There is one file: notes.txt.");
  EXPECT_EQ(body["keel"]["tool_calls"], 1);
  ASSERT_EQ(mock_.request_count(), 2u);
  EXPECT_NE(model_tool_message(1).dump().find("notes.txt"), std::string::npos);
}

TEST_F(ResponsesClientToolsTest, AStreamHandsTheClientsCallsOverAsFunctionCallItems) {
  start_responses();
  mock_.push(mock_stream(reply("Checking.", {call("call_w", "get_weather", R"({"city":"Paris"})")})));
  auto r = create(with_weather(task("Weather in Paris?", true)));
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  std::vector<NamedEvent> events = parse_named_events(r->body);
  ASSERT_GE(events.size(), 8u) << r->body;
  std::vector<std::string> tail;
  for (size_t i = events.size() - 8; i < events.size(); ++i) tail.push_back(events[i].name);
  EXPECT_EQ(tail, (std::vector<std::string>{
                      "response.output_text.done", "response.content_part.done", "response.output_item.done",
                      "response.output_item.added", "response.function_call_arguments.delta",
                      "response.function_call_arguments.done", "response.output_item.done", "response.completed"}));
  const size_t n = events.size();
  EXPECT_EQ(events[n - 5].name, "response.output_item.added");
  EXPECT_EQ(events[n - 5].data["output_index"], 1);
  EXPECT_EQ(events[n - 5].data["item"]["type"], "function_call");
  EXPECT_EQ(events[n - 5].data["item"]["arguments"], "");
  EXPECT_EQ(events[n - 4].name, "response.function_call_arguments.delta");
  EXPECT_EQ(events[n - 4].data["delta"], R"({"city":"Paris"})");
  EXPECT_EQ(events[n - 3].name, "response.function_call_arguments.done");
  EXPECT_EQ(events[n - 3].data["arguments"], R"({"city":"Paris"})");
  EXPECT_EQ(events[n - 2].name, "response.output_item.done");
  EXPECT_EQ(events[n - 2].data["item"]["call_id"], "call_w");
  EXPECT_EQ(events[n - 6].name, "response.output_item.done");  // the message closed first
  EXPECT_EQ(events[n - 6].data["item"]["content"][0]["text"], "Checking.");
  const json completed = events.back().data["response"];
  ASSERT_EQ(completed["output"].size(), 2u);
  EXPECT_EQ(completed["output"][1]["name"], "get_weather");
}

TEST_F(ResponsesClientToolsTest, ToolChoiceAppliesToTheRunsFirstModelCallOnly) {
  start_responses();
  mock_.push(mock_tool_calls({call("call_l", "fs_list", R"({"path":"."})")}));
  mock_.push(mock_text("done"));
  json request = with_weather(task("List it"));
  request["tool_choice"] = "required";
  auto r = create(request);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  EXPECT_EQ(json::parse(r->body)["tool_choice"], "required");
  ASSERT_EQ(mock_.request_count(), 2u);
  EXPECT_EQ(json::parse(mock_.request_bodies()[0])["tool_choice"], "required");
  EXPECT_FALSE(json::parse(mock_.request_bodies()[1]).contains("tool_choice"));

  mock_.push(mock_tool_calls({call("call_w", "get_weather", R"({"city":"Oslo"})")}));
  request["tool_choice"] = {{"type", "function"}, {"name", "get_weather"}};
  r = create(request);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  EXPECT_EQ(json::parse(r->body)["tool_choice"], request["tool_choice"]);
  EXPECT_NE(json::parse(mock_.request_bodies()[2])["tool_choice"].dump().find("get_weather"), std::string::npos);
}

TEST_F(ResponsesClientToolsTest, AnItemReferenceBringsBackAStoredItem) {
  start_responses();
  mock_.push(mock_text("Paris."));
  mock_.push(mock_text("Lyon."));
  const json a = json::parse(create(task("Capital of France?"))->body);
  const std::string msg = a["output"][0]["id"];
  json request = task(json::parse(R"([{"role":"user","content":"Capital of France?"},
      {"type":"item_reference","id":")" +
                                  msg + R"("},{"role":"user","content":"Second city?"}])"));
  auto r = create(request);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  const std::vector<json> seen = conversation_seen(mock_.request_bodies(), 1);
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_EQ(seen[1], json::parse(R"({"role":"assistant","content":"Paris."})"));

  request["input"][1]["id"] = "msg_unknown";
  r = create(request);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 404) << r->body;
  EXPECT_EQ(json::parse(r->body)["error"]["param"], "input[1].id");
}

}  // namespace
}  // namespace keel::testing
