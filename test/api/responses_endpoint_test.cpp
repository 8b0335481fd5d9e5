// The Responses API (/v1/responses) over real sockets: whole and streamed responses (the events,
// their order and sequence numbers), retrieve, input_items, delete, cancel, previous_response_id
// continuing keel's session (and branching), store:false, error shapes, idempotency, and text that
// streams while the model writes it. The client's tools: responses_client_tools_test.cpp.
#include <chrono>
#include <thread>

#include "api/responses_endpoint_fixture.hpp"

namespace keel::testing {
namespace {

using nlohmann::json;

class ResponsesTest : public ResponsesEndpointFixture {
 protected:
  // Creates a background response whose model writes for about 10 s; its creation's reply (null,
  // with the test failed, when it was not created).
  json create_long_background_response() {
    mock_.push(mock_slow_stream(reply(std::string(400, 'x')), 100));
    json request = task("Write a lot");
    request["background"] = true;
    auto r = create(request);
    if (!r || r->status != 200) {
      ADD_FAILURE() << "the background response was not created: " << (r ? r->body : "no reply");
      return nullptr;
    }
    return json::parse(r->body);
  }
  // Waits (up to 3 s) until the mock model has been called.
  void wait_for_the_model() {
    for (int i = 0; i < 300 && mock_.request_count() == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
};

TEST_F(ResponsesTest, CreatesAWholeResponse) {
  start_responses();
  mock_.push(mock_text("Hello there."));
  json request = task("Say hello");
  request["metadata"] = {{"ticket", "7"}};
  request["instructions"] = "Be brief.";
  auto r = create(request);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  EXPECT_EQ(r->header("content-type"), "application/json");
  json body = json::parse(r->body);
  const std::string id = body["id"];
  ASSERT_EQ(id.rfind("resp_", 0), 0u) << id;
  EXPECT_EQ(id.size(), 5u + 32u);
  EXPECT_EQ(body["object"], "response");
  EXPECT_EQ(body["created_at"], kCreated);
  EXPECT_EQ(body["status"], "completed");
  EXPECT_EQ(body["model"], "default");
  EXPECT_EQ(body["error"], nullptr);
  EXPECT_EQ(body["incomplete_details"], nullptr);
  EXPECT_EQ(body["previous_response_id"], nullptr);
  EXPECT_EQ(body["instructions"], "Be brief.");
  EXPECT_EQ(body["metadata"], json::parse(R"({"ticket":"7"})"));
  EXPECT_EQ(body["store"], true);
  EXPECT_EQ(body["tool_choice"], "auto");
  EXPECT_EQ(body["tools"], json::array());
  EXPECT_EQ(body["text"], json::parse(R"({"format":{"type":"text"}})"));
  EXPECT_EQ(body["parallel_tool_calls"], true);
  EXPECT_FALSE(body.contains("output_text"));  // the SDKs compute it
  ASSERT_EQ(body["output"].size(), 1u);
  const json item = body["output"][0];
  const std::string msg_id = item["id"];
  EXPECT_EQ(msg_id.rfind("msg_", 0), 0u);
  EXPECT_EQ(item, json::parse(R"({"id":")" + msg_id + R"(","type":"message","status":"completed","role":"assistant",
      "content":[{"type":"output_text","text":"Hello there.","annotations":[],"logprobs":[]}]})"));
  EXPECT_EQ(body["usage"], json::parse(R"({"input_tokens":10,"input_tokens_details":{"cached_tokens":0},
      "output_tokens":5,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":15})"));
  EXPECT_EQ(body["keel"]["rounds"], 1);
  const std::string run = body["keel"]["run_id"];
  EXPECT_EQ(run, "r_" + id.substr(5));
  auto stored = store_->get_run(run);
  ASSERT_TRUE(stored.ok());
  EXPECT_EQ(stored->answer, "Hello there.");
  // The task reached the model; the instructions did not (keel writes its own system prompt).
  EXPECT_EQ(conversation_seen(mock_.request_bodies(), 0),
            std::vector<json>{json::parse(R"({"role":"user","content":"Say hello"})")});
  EXPECT_EQ(mock_.request_bodies()[0].find("Be brief."), std::string::npos);
}

TEST_F(ResponsesTest, StreamsTheStandardEventsInOrder) {
  start_responses();
  const std::string text = "Hello from the stream.";
  mock_.push(mock_stream(reply(text, {}, {12, 6})));
  auto r = create(task("Stream a greeting", true));
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  EXPECT_EQ(r->header("content-type"), "text/event-stream");
  std::vector<NamedEvent> events = parse_named_events(r->body);
  ASSERT_GE(events.size(), 9u) << r->body;
  std::vector<std::string> types;
  std::string deltas;
  for (size_t i = 0; i < events.size(); ++i) {
    const std::string type = events[i].data["type"];
    EXPECT_EQ(events[i].name, type);
    EXPECT_EQ(events[i].data["sequence_number"], static_cast<int>(i)) << type;
    if (type == "response.output_text.delta") {
      deltas += events[i].data["delta"].get<std::string>();
      if (types.back() == type) continue;  // a run of deltas counts once
    }
    types.push_back(type);
  }
  EXPECT_EQ(types, (std::vector<std::string>{"response.created", "response.in_progress", "response.output_item.added",
                                             "response.content_part.added", "response.output_text.delta",
                                             "response.output_text.done", "response.content_part.done",
                                             "response.output_item.done", "response.completed"}));
  EXPECT_EQ(deltas, text);
  const json created = events[0].data["response"];
  EXPECT_EQ(created["status"], "in_progress");
  EXPECT_EQ(created["output"], json::array());
  EXPECT_EQ(created["usage"], nullptr);
  const std::string id = created["id"];
  const json added = events[2].data;
  EXPECT_EQ(added["output_index"], 0);
  EXPECT_EQ(added["item"]["status"], "in_progress");
  EXPECT_EQ(added["item"]["content"], json::array());
  const std::string item_id = added["item"]["id"];
  EXPECT_EQ(events[3].data["item_id"], item_id);
  EXPECT_EQ(events[3].data["part"]["text"], "");
  EXPECT_GT(events.size(), 10u) << "the text came as the model's pieces, not in one delta";
  const json& done_text = events[events.size() - 4].data;
  EXPECT_EQ(done_text["text"], text);
  EXPECT_EQ(done_text["item_id"], item_id);
  const json completed = events.back().data["response"];
  EXPECT_EQ(completed["id"], id);
  EXPECT_EQ(completed["status"], "completed");
  EXPECT_EQ(completed["output"][0]["content"][0]["text"], text);
  EXPECT_EQ(completed["output"][0]["id"], item_id);
  EXPECT_EQ(completed["usage"]["input_tokens"], 12);
  EXPECT_EQ(completed["usage"]["output_tokens"], 6);
  EXPECT_EQ(completed["usage"]["total_tokens"], 18);
  // What was streamed is what is kept.
  auto got = on_response("GET", id);
  ASSERT_TRUE(got);
  ASSERT_EQ(got->status, 200) << got->body;
  EXPECT_EQ(json::parse(got->body), completed);
}

TEST_F(ResponsesTest, RetrievesListsInputItemsAndDeletes) {
  start_responses();
  mock_.push(mock_text("Four."));
  json request = task(json::parse(R"([{"role":"developer","content":"Answer in words."},
      {"role":"user","content":[{"type":"input_text","text":"Two plus two?"}]}])"));
  auto r = create(request);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  const json answered = json::parse(r->body);
  const std::string id = answered["id"];

  auto got = on_response("GET", id);
  ASSERT_TRUE(got);
  ASSERT_EQ(got->status, 200) << got->body;
  EXPECT_EQ(json::parse(got->body), answered);

  auto items = on_response("GET", id + "/input_items");
  ASSERT_TRUE(items);
  ASSERT_EQ(items->status, 200) << items->body;
  json list = json::parse(items->body);
  EXPECT_EQ(list["object"], "list");
  EXPECT_EQ(list["has_more"], false);
  ASSERT_EQ(list["data"].size(), 2u);  // newest first
  EXPECT_EQ(list["data"][0]["role"], "user");
  EXPECT_EQ(list["data"][0]["content"], json::parse(R"([{"type":"input_text","text":"Two plus two?"}])"));
  EXPECT_EQ(list["data"][1]["role"], "developer");
  EXPECT_EQ(list["first_id"], list["data"][0]["id"]);
  EXPECT_EQ(list["last_id"], list["data"][1]["id"]);
  auto page = on_response("GET", id + "/input_items?order=asc&limit=1");
  ASSERT_TRUE(page);
  list = json::parse(page->body);
  ASSERT_EQ(list["data"].size(), 1u);
  EXPECT_EQ(list["data"][0]["role"], "developer");
  EXPECT_EQ(list["has_more"], true);

  auto cancel = on_response("POST", id + "/cancel");
  ASSERT_TRUE(cancel);
  EXPECT_EQ(cancel->status, 400) << cancel->body;
  EXPECT_EQ(json::parse(cancel->body)["error"]["type"], "invalid_request_error");

  auto deleted = on_response("DELETE", id);
  ASSERT_TRUE(deleted);
  ASSERT_EQ(deleted->status, 200) << deleted->body;
  EXPECT_EQ(json::parse(deleted->body), json({{"id", id}, {"object", "response.deleted"}, {"deleted", true}}));
  auto gone = on_response("GET", id);
  ASSERT_TRUE(gone);
  EXPECT_EQ(gone->status, 404);
  EXPECT_EQ(json::parse(gone->body)["error"]["param"], "response_id");
}

TEST_F(ResponsesTest, PreviousResponseIdContinuesTheSession) {
  start_responses();
  mock_.push(mock_text("Paris."));
  mock_.push(mock_text("About two million."));
  auto first = create(task("Capital of France?"));
  ASSERT_TRUE(first);
  ASSERT_EQ(first->status, 200) << first->body;
  const json a = json::parse(first->body);
  json request = task("How many people live there?");
  request["previous_response_id"] = a["id"];
  auto second = create(request);
  ASSERT_TRUE(second);
  ASSERT_EQ(second->status, 200) << second->body;
  const json b = json::parse(second->body);
  EXPECT_EQ(b["previous_response_id"], a["id"]);
  EXPECT_EQ(b["keel"]["session_id"], a["keel"]["session_id"]);
  EXPECT_EQ(conversation_seen(mock_.request_bodies(), 1),
            (std::vector<json>{json::parse(R"({"role":"user","content":"Capital of France?"})"),
                               json::parse(R"({"role":"assistant","content":"Paris."})"),
                               json::parse(R"({"role":"user","content":"How many people live there?"})")}));
}

TEST_F(ResponsesTest, ASecondContinuationOfTheSameResponseBranchesOff) {
  start_responses();
  mock_.push(mock_text("Paris."));
  mock_.push(mock_text("Two million."));
  mock_.push(mock_text("The Seine."));
  const json a = json::parse(create(task("Capital of France?"))->body);
  json request = task("Population?");
  request["previous_response_id"] = a["id"];
  ASSERT_EQ(create(request)->status, 200);
  request["input"] = "Its river?";
  auto third = create(request);
  ASSERT_TRUE(third);
  ASSERT_EQ(third->status, 200) << third->body;
  EXPECT_NE(json::parse(third->body)["keel"]["session_id"], a["keel"]["session_id"]);
  EXPECT_EQ(conversation_seen(mock_.request_bodies(), 2),
            (std::vector<json>{json::parse(R"({"role":"user","content":"Capital of France?"})"),
                               json::parse(R"({"role":"assistant","content":"Paris."})"),
                               json::parse(R"({"role":"user","content":"Its river?"})")}));
}

TEST_F(ResponsesTest, StoreFalseKeepsNothing) {
  start_responses();
  mock_.push(mock_text("Not kept."));
  json request = task("Say something");
  request["store"] = false;
  auto r = create(request);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  const json body = json::parse(r->body);
  EXPECT_EQ(body["store"], false);
  const std::string id = body["id"];
  auto got = on_response("GET", id);
  ASSERT_TRUE(got);
  EXPECT_EQ(got->status, 404) << got->body;
  request = task("Go on");
  request["previous_response_id"] = id;
  auto next = create(request);
  ASSERT_TRUE(next);
  EXPECT_EQ(next->status, 404) << next->body;
  const json error = json::parse(next->body)["error"];
  EXPECT_EQ(error["param"], "previous_response_id");
  EXPECT_EQ(error["code"], "not_found");
  EXPECT_NE(error["message"].get<std::string>().find("not found"), std::string::npos);
  EXPECT_EQ(mock_.request_count(), 1u);
}

TEST_F(ResponsesTest, ErrorsAreOpenAiShaped) {
  start_responses();
  auto expect_error = [&](const json& request, int status, const std::string& param, const std::string& code) {
    auto r = create(request);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, status) << request << r->body;
    const json error = json::parse(r->body)["error"];
    EXPECT_EQ(error["param"], param.empty() ? json(nullptr) : json(param)) << error;
    EXPECT_EQ(error["code"], code) << error;
    EXPECT_EQ(error["type"], "invalid_request_error") << error;
    EXPECT_FALSE(error["message"].get<std::string>().empty());
  };
  json request = task("hi");
  request["model"] = "gpt-4o";
  expect_error(request, 404, "model", "model_not_found");
  request = task("hi");
  request["tools"] = json::parse(R"([{"type":"web_search"}])");
  expect_error(request, 400, "tools[0].type", "unsupported_value");
  expect_error(task(json::parse(R"([{"role":"user","content":[{"type":"input_image","image_url":"x"}]}])")), 400,
               "input[0].content[0].type", "unsupported_value");
  request = task("hi");
  request["tool_choice"] = {{"type", "function"}, {"name", "nope"}};
  expect_error(request, 400, "tool_choice.name", "invalid_value");
  request = task("hi");
  request["conversation"] = "conv_1";
  expect_error(request, 400, "conversation", "unsupported_parameter");
  expect_error(json{{"model", "default"}}, 400, "input", "missing_required_parameter");
  expect_error(task(json::parse(R"([{"role":"assistant","content":"hi"}])")), 400, "input", "invalid_value");
  request = task("hi");
  request["previous_response_id"] = "resp_0123456789abcdef0123456789abcdef";
  expect_error(request, 404, "previous_response_id", "not_found");
  auto r = create_raw("{not json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
  auto got = on_response("GET", "resp_nope");
  ASSERT_TRUE(got);
  EXPECT_EQ(got->status, 404);
  EXPECT_EQ(json::parse(got->body)["error"]["param"], "response_id");
  EXPECT_EQ(mock_.request_count(), 0u);
}

TEST_F(ResponsesTest, AFailedRunIsAnErrorClientsDoNotRetry) {
  start_responses();
  mock_.push(mock_error(500, "backend exploded"));
  auto r = create(task("hi"));
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 400) << r->body;
  EXPECT_EQ(r->header("x-should-retry"), "false");
  const json error = json::parse(r->body)["error"];
  EXPECT_EQ(error["type"], "run_failed");
  EXPECT_EQ(error["code"], "backend");
  EXPECT_EQ(error["param"], nullptr);
  EXPECT_NE(error["message"].get<std::string>().find("backend exploded"), std::string::npos) << error;
}

TEST_F(ResponsesTest, ARetryWithTheSameIdempotencyKeyGetsTheFirstResponse) {
  start_responses();
  mock_.push(mock_error(500, "backend exploded"));
  const std::string body = task("hi").dump();
  const std::string headers = "Content-Type: application/json\r\nIdempotency-Key: k-7\r\n";
  auto first = raw_http(http_->port(), "POST", "/v1/responses", headers, body, 20000);
  auto again = raw_http(http_->port(), "POST", "/v1/responses", headers, body, 20000);
  ASSERT_TRUE(first && again);
  EXPECT_EQ(first->status, 400);
  EXPECT_EQ(again->status, 400);
  EXPECT_EQ(again->body, first->body);
  EXPECT_EQ(again->header("idempotent-replayed"), "true");
  EXPECT_EQ(mock_.request_count(), 1u);  // the failed run was not run again
}

TEST_F(ResponsesTest, AFailedStreamEndsWithResponseFailed) {
  start_responses();
  mock_.push(mock_error(500, "backend exploded"));
  auto r = create(task("hi", true));
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  std::vector<NamedEvent> events = parse_named_events(r->body);
  ASSERT_EQ(events.size(), 3u) << r->body;
  EXPECT_EQ(events[0].name, "response.created");
  EXPECT_EQ(events[1].name, "response.in_progress");
  EXPECT_EQ(events[2].name, "response.failed");
  EXPECT_EQ(events[2].data["sequence_number"], 2);
  const json response = events[2].data["response"];
  EXPECT_EQ(response["status"], "failed");
  EXPECT_EQ(response["error"]["code"], "backend");
  EXPECT_NE(response["error"]["message"].get<std::string>().find("backend exploded"), std::string::npos);
  auto got = on_response("GET", response["id"]);
  ASSERT_TRUE(got);
  EXPECT_EQ(json::parse(got->body)["status"], "failed");
}

TEST_F(ResponsesTest, TextReachesTheClientWhileTheModelIsStillWriting) {
  start_responses();
  mock_.push(mock_slow_stream(reply("one two three four five six seven eight"), 120));  // ~10 pieces, ~1.2 s
  const TimedStream stream = post_and_time_chunks(http_->port(), "/v1/responses", task("Count", true).dump());
  ASSERT_FALSE(stream.chunks.empty());
  std::optional<TimedStream::Clock::time_point> first_text;
  for (const TimedStream::Chunk& c : stream.chunks) {
    if (c.text.find("response.output_text.delta") != std::string::npos) {
      first_text = c.at;
      break;
    }
  }
  ASSERT_TRUE(first_text) << stream.all();
  EXPECT_GT(std::chrono::duration_cast<std::chrono::milliseconds>(stream.chunks.back().at - *first_text).count(), 600)
      << stream.all();
}

TEST_F(ResponsesTest, ALaterRoundsTextContinuesTheSameMessage) {
  start_responses();
  mock_.push(mock_stream(reply("Let me look.", {call("call_l", "fs_list", R"({"path":"."})")})));
  mock_.push(mock_stream(reply("One file.")));
  auto r = create(task("What is here?", true));
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  EXPECT_NE(r->body.find(": keel tool fs_list"), std::string::npos);
  std::vector<NamedEvent> events = parse_named_events(r->body);
  int added = 0;
  for (const NamedEvent& e : events) added += e.name == "response.output_item.added" ? 1 : 0;
  EXPECT_EQ(added, 1);
  EXPECT_EQ(events.back().data["response"]["output"][0]["content"][0]["text"], "Let me look.\n\nOne file.");
}

TEST_F(ResponsesTest, ABackgroundResponseCanBeCancelled) {
  start_responses();
  const json started = create_long_background_response();
  ASSERT_TRUE(started.is_object());
  EXPECT_EQ(started["status"], "in_progress");
  EXPECT_EQ(started["background"], true);
  const std::string id = started["id"];
  auto got = on_response("GET", id);
  ASSERT_TRUE(got);
  EXPECT_EQ(json::parse(got->body)["status"], "in_progress");
  wait_for_the_model();
  const auto t0 = std::chrono::steady_clock::now();
  auto cancelled = on_response("POST", id + "/cancel");
  ASSERT_TRUE(cancelled);
  ASSERT_EQ(cancelled->status, 200) << cancelled->body;
  EXPECT_EQ(json::parse(cancelled->body)["status"], "cancelled");
  std::string status;
  while (std::chrono::steady_clock::now() - t0 < std::chrono::seconds(20)) {
    got = on_response("GET", id);
    if (got && got->status == 200) status = json::parse(got->body)["status"];
    if (status != "in_progress") break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(status, "cancelled");
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(7));
}

TEST_F(ResponsesTest, ABackgroundRunStopsWhenTheServerGoesAway) {
  start_responses();
  ASSERT_TRUE(create_long_background_response().is_object());
  wait_for_the_model();
  const auto t0 = std::chrono::steady_clock::now();
  http_.reset();
  workers_.reset();  // waits for the run
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(7));
}

TEST_F(ResponsesTest, AStructuredAnswerIsValidatedJson) {
  start_responses();
  mock_.push(mock_text("Sure: Paris."));
  mock_.push(mock_text(R"({"city":"Paris"})"));
  json request = task("Where?");
  request["text"] = json::parse(R"({"format":{"type":"json_schema","name":"place","strict":true,
      "schema":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"],
      "additionalProperties":false}}})");
  auto r = create(request);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  const json body = json::parse(r->body);
  EXPECT_EQ(body["output"][0]["content"][0]["text"], R"({"city":"Paris"})");
  EXPECT_EQ(body["text"]["format"]["type"], "json_schema");
  EXPECT_EQ(mock_.request_count(), 2u);
}

}  // namespace
}  // namespace keel::testing
