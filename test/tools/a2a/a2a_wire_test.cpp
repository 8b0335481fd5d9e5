// The A2A wire shapes: requests keel sends (v1.0 and v0.3), results and JSON-RPC errors it reads,
// and what the tool makes of a final answer.
#include "tools/a2a/a2a_wire.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tools/a2a/a2a_answer.hpp"

namespace keel::detail {
namespace {

using nlohmann::json;

TEST(A2aWireTest, SendParamsOfVersion1) {
  const json params = a2a_send_params(A2aProtocol::kV1, "hello", "m-1", "ctx-1", "");
  EXPECT_EQ(params, json::parse(R"({
    "message": {"messageId": "m-1", "role": "ROLE_USER", "parts": [{"text": "hello"}], "contextId": "ctx-1"},
    "configuration": {"returnImmediately": true}})"));
  const json continued = a2a_send_params(A2aProtocol::kV1, "yes", "m-2", "ctx-1", "task-9");
  EXPECT_EQ(continued["message"]["taskId"], "task-9");
  EXPECT_FALSE(a2a_send_params(A2aProtocol::kV1, "x", "m", "", "")["message"].contains("contextId"));
  EXPECT_EQ(a2a_method_name(A2aProtocol::kV1, A2aMethod::kSendMessage), "SendMessage");
  EXPECT_EQ(a2a_method_name(A2aProtocol::kV1, A2aMethod::kGetTask), "GetTask");
  EXPECT_EQ(a2a_method_name(A2aProtocol::kV1, A2aMethod::kCancelTask), "CancelTask");
}

TEST(A2aWireTest, SendParamsOfVersion03) {
  const json params = a2a_send_params(A2aProtocol::kV03, "hello", "m-1", "", "");
  EXPECT_EQ(params, json::parse(R"({
    "message": {"kind": "message", "messageId": "m-1", "role": "user", "parts": [{"kind": "text", "text": "hello"}]},
    "configuration": {"blocking": false}})"));
  EXPECT_EQ(a2a_method_name(A2aProtocol::kV03, A2aMethod::kSendMessage), "message/send");
  EXPECT_EQ(a2a_method_name(A2aProtocol::kV03, A2aMethod::kGetTask), "tasks/get");
  EXPECT_EQ(a2a_method_name(A2aProtocol::kV03, A2aMethod::kCancelTask), "tasks/cancel");
}

TEST(A2aWireTest, TaskStatesOfBothVersions) {
  EXPECT_EQ(parse_a2a_task_state("TASK_STATE_COMPLETED"), A2aTaskState::kCompleted);
  EXPECT_EQ(parse_a2a_task_state("TASK_STATE_INPUT_REQUIRED"), A2aTaskState::kInputRequired);
  EXPECT_EQ(parse_a2a_task_state("TASK_STATE_WORKING"), A2aTaskState::kWorking);
  EXPECT_EQ(parse_a2a_task_state("input-required"), A2aTaskState::kInputRequired);
  EXPECT_EQ(parse_a2a_task_state("auth-required"), A2aTaskState::kAuthRequired);
  EXPECT_EQ(parse_a2a_task_state("canceled"), A2aTaskState::kCanceled);
  EXPECT_EQ(parse_a2a_task_state("TASK_STATE_UNSPECIFIED"), A2aTaskState::kUnknown);
  EXPECT_EQ(parse_a2a_task_state("done"), A2aTaskState::kUnknown);
  EXPECT_TRUE(a2a_task_running(A2aTaskState::kSubmitted));
  EXPECT_FALSE(a2a_task_running(A2aTaskState::kInputRequired));
}

TEST(A2aWireTest, RequestEnvelope) {
  const json request = json::parse(a2a_rpc_request("GetTask", a2a_task_params("t-1"), 7));
  EXPECT_EQ(request, json::parse(R"({"jsonrpc": "2.0", "id": 7, "method": "GetTask", "params": {"id": "t-1"}})"));
}

TEST(A2aWireTest, JsonRpcErrorObjectsBecomeStatuses) {
  Result<json> missing =
      a2a_rpc_result(R"({"jsonrpc":"2.0","id":3,"error":{"code":-32001,"message":"Task not found: t-9"}})", 3,
                     "GetTask", "remote agent 'r'");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), ErrorCode::kNotFound);
  EXPECT_EQ(missing.status().message(),
            "remote agent 'r' answered GetTask with error -32001 (task not found): Task not found: t-9");

  Result<json> version = a2a_rpc_result(
      R"({"jsonrpc":"2.0","id":null,"error":{"code":-32009,"message":"no","data":[{"reason":"VERSION"}]}})", 4,
      "SendMessage", "remote agent 'r'");
  EXPECT_EQ(version.status().code(), ErrorCode::kFailedPrecondition);
  EXPECT_EQ(version.status().message(),
            "remote agent 'r' answered SendMessage with error -32009 (version not supported): no [data: "
            "[{\"reason\":\"VERSION\"}]]");

  EXPECT_EQ(a2a_rpc_result(R"({"jsonrpc":"2.0","id":1,"error":{"code":-32603}})", 1, "M", "a").status().code(),
            ErrorCode::kUnavailable);
  EXPECT_EQ(a2a_rpc_result(R"({"jsonrpc":"2.0","id":1,"error":"boom"})", 1, "M", "a").status().message(),
            "a answered M with error 0 (error)");
}

TEST(A2aWireTest, ResultsMustBeJsonRpcAnswersToTheRequest) {
  Result<json> ok = a2a_rpc_result(R"({"jsonrpc":"2.0","id":5,"result":{"id":"t"}})", 5, "GetTask", "a");
  ASSERT_TRUE(ok.ok()) << ok.status().to_string();
  EXPECT_EQ((*ok)["id"], "t");
  EXPECT_EQ(a2a_rpc_result(R"({"jsonrpc":"2.0","id":6,"result":{}})", 5, "GetTask", "a").status().message(),
            "a answered GetTask with the id of another request (6, expected 5)");
  EXPECT_EQ(a2a_rpc_result("<html>Bad gateway</html>", 5, "GetTask", "a").status().message(),
            "a answered GetTask with something that is not a JSON-RPC response: <html>Bad gateway</html>");
  EXPECT_EQ(a2a_rpc_result("", 5, "GetTask", "a").status().message(),
            "a answered GetTask with something that is not a JSON-RPC response: an empty body");
  EXPECT_EQ(a2a_rpc_result(R"({"jsonrpc":"2.0","id":5})", 5, "GetTask", "a").status().code(), ErrorCode::kUnavailable);
}

TEST(A2aWireTest, ACompletedTaskWithArtifacts) {
  Result<A2aReply> reply = parse_a2a_send_result(json::parse(R"({"task": {
      "id": "t-1", "contextId": "c-1",
      "status": {"state": "TASK_STATE_COMPLETED", "message": {"role": "ROLE_AGENT", "parts": [{"text": "done"}]}},
      "artifacts": [{"artifactId": "a", "parts": [{"text": "line one"}, {"data": {"n": 1}}]},
                    {"artifactId": "b", "parts": [{"url": "https://x/y.pdf", "filename": "y.pdf", "mediaType": "application/pdf"}]},
                    {"artifactId": "c", "parts": [{"raw": "AAEC", "mediaType": "image/png"}]}]}})"),
                                                 "a");
  ASSERT_TRUE(reply.ok()) << reply.status().to_string();
  EXPECT_TRUE(reply->is_task);
  EXPECT_EQ(reply->task_id, "t-1");
  EXPECT_EQ(reply->context_id, "c-1");
  EXPECT_EQ(reply->state, A2aTaskState::kCompleted);
  EXPECT_EQ(reply->status_text, "done");
  EXPECT_EQ(reply->answer_text,
            "line one\n{\"n\":1}\n[file y.pdf (application/pdf): https://x/y.pdf]\n[file (image/png), inline bytes not "
            "shown]");
}

TEST(A2aWireTest, MessagesTasksOfVersion03AndHistory) {
  Result<A2aReply> message = parse_a2a_send_result(
      json::parse(
          R"({"message": {"messageId": "m", "contextId": "c", "role": "ROLE_AGENT", "parts": [{"text": "hi"}]}})"),
      "a");
  ASSERT_TRUE(message.ok());
  EXPECT_FALSE(message->is_task);
  EXPECT_EQ(message->answer_text, "hi");
  EXPECT_EQ(message->context_id, "c");

  Result<A2aReply> legacy = parse_a2a_send_result(json::parse(R"({"kind": "task", "id": "t", "contextId": "c",
      "status": {"state": "input-required", "message": {"kind": "message", "role": "agent", "parts": [{"kind": "text", "text": "Which city?"}]}}})"),
                                                  "a");
  ASSERT_TRUE(legacy.ok());
  EXPECT_EQ(legacy->state, A2aTaskState::kInputRequired);
  EXPECT_EQ(legacy->status_text, "Which city?");

  Result<A2aReply> history = parse_a2a_task(json::parse(R"({"id": "t", "status": {"state": "TASK_STATE_COMPLETED"},
      "history": [{"role": "ROLE_USER", "parts": [{"text": "q"}]}, {"role": "ROLE_AGENT", "parts": [{"text": "from history"}]},
                  {"role": "ROLE_USER", "parts": [{"text": "thanks"}]}]})"),
                                            "a");
  ASSERT_TRUE(history.ok());
  EXPECT_EQ(history->answer_text, "from history");
}

TEST(A2aWireTest, MalformedResults) {
  EXPECT_EQ(parse_a2a_send_result(json::parse(R"({"status": "ok"})"), "a").status().message(),
            "a answered SendMessage with neither a task nor a message: {\"status\":\"ok\"}");
  EXPECT_EQ(parse_a2a_send_result(json::parse(R"({"task": {"status": {}}})"), "a").status().message(),
            "a answered with a task without an id: {\"status\":{}}");
  EXPECT_EQ(parse_a2a_send_result(json::parse("[1]"), "a").status().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(parse_a2a_task(json::parse("null"), "a").status().code(), ErrorCode::kInvalidArgument);
}

A2aReply a2a_task_in(A2aTaskState state, std::string status_text, std::string answer_text = "") {
  A2aReply r;
  r.is_task = true;
  r.task_id = "t-1";
  r.context_id = "c-1";
  r.state = state;
  r.status_text = std::move(status_text);
  r.answer_text = std::move(answer_text);
  return r;
}

TEST(A2aAnswerTest, CompletedTasksAndMessagesGiveTheTextAndTheIds) {
  Result<std::string> out =
      a2a_answer(a2a_task_in(A2aTaskState::kCompleted, "", "the result"), "researcher", "a2a_researcher", 1000);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(*out, "remote agent 'researcher' answered (task completed):\nthe result\n\ncontext_id: c-1\ntask_id: t-1");
  A2aReply message;
  message.answer_text = "hi";
  message.context_id = "c-2";
  EXPECT_EQ(*a2a_answer(message, "r", "a2a_r", 1000), "remote agent 'r' answered:\nhi\n\ncontext_id: c-2");
}

TEST(A2aAnswerTest, AQuestionIsReturnedWithHowToAnswerIt) {
  Result<std::string> out = a2a_answer(a2a_task_in(A2aTaskState::kInputRequired, "Which city?"), "r", "a2a_r", 1000);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(*out,
            "the remote agent asks: Which city?\n\nTo answer, call a2a_r again with the answer as message and this "
            "context_id.\n\ncontext_id: c-1\ntask_id: t-1");
}

TEST(A2aAnswerTest, FailedRejectedCanceledAndAuthRequiredAreErrors) {
  Result<std::string> failed = a2a_answer(a2a_task_in(A2aTaskState::kFailed, "disk full"), "r", "a2a_r", 1000);
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.status().message(),
            "remote agent 'r' ended the task failed (context_id c-1, task_id t-1): disk full");
  EXPECT_EQ(a2a_answer(a2a_task_in(A2aTaskState::kRejected, ""), "r", "a2a_r", 1000).status().message(),
            "remote agent 'r' ended the task rejected (context_id c-1, task_id t-1)");
  EXPECT_FALSE(a2a_answer(a2a_task_in(A2aTaskState::kCanceled, ""), "r", "a2a_r", 1000).ok());
  EXPECT_EQ(a2a_answer(a2a_task_in(A2aTaskState::kAuthRequired, ""), "r", "a2a_r", 1000).status().code(),
            ErrorCode::kUnauthenticated);
  A2aReply odd = a2a_task_in(A2aTaskState::kUnknown, "");
  odd.state_word = "TASK_STATE_PONDERING";
  EXPECT_EQ(a2a_answer(odd, "r", "a2a_r", 1000).status().message(),
            "remote agent 'r' answered with a task in state 'TASK_STATE_PONDERING', which keel does not know how to "
            "read (context_id c-1, task_id t-1)");
}

TEST(A2aAnswerTest, LongAnswersAreCutButTheIdsStay) {
  const std::string text(5000, 'x');
  Result<std::string> out = a2a_answer(a2a_task_in(A2aTaskState::kCompleted, "", text), "r", "a2a_r", 100);
  ASSERT_TRUE(out.ok());
  EXPECT_LT(out->size(), 300u);
  EXPECT_NE(out->find("[... the answer was cut at 100 of its 5000 bytes]"), std::string::npos) << *out;
  EXPECT_TRUE(out->ends_with("context_id: c-1\ntask_id: t-1")) << *out;
  // A cut never splits a character.
  const std::string accents = std::string(99, 'a') + "\xC3\xA9\xC3\xA9";
  Result<std::string> cut = a2a_answer(a2a_task_in(A2aTaskState::kCompleted, "", accents), "r", "a2a_r", 100);
  EXPECT_NE(cut->find(std::string(99, 'a') + "\n[..."), std::string::npos) << *cut;
}

}  // namespace
}  // namespace keel::detail
