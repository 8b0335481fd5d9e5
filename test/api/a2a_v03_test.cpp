// keel's A2A 1.0 answers rewritten for 0.3 clients (api/a2a_v03.hpp): method names, the kind of
// each object, states, roles, parts, and the `final` flag of a stream's status updates.
#include "api/a2a_v03.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace keel::testing {
namespace {

using nlohmann::json;

TEST(A2aV03, MethodsMapToTheirV1NamesAndNothingElseDoes) {
  EXPECT_EQ(api::a2a::v1_method_of_v03("message/send"), "SendMessage");
  EXPECT_EQ(api::a2a::v1_method_of_v03("message/stream"), "SendStreamingMessage");
  EXPECT_EQ(api::a2a::v1_method_of_v03("tasks/get"), "GetTask");
  EXPECT_EQ(api::a2a::v1_method_of_v03("tasks/cancel"), "CancelTask");
  EXPECT_EQ(api::a2a::v1_method_of_v03("tasks/resubscribe"), "");
  EXPECT_EQ(api::a2a::v1_method_of_v03("SendMessage"), "");
  EXPECT_TRUE(api::a2a::is_v03_version("0.3.0"));
  EXPECT_FALSE(api::a2a::is_v03_version("1.0"));
}

TEST(A2aV03, NonBlockingIsReturnImmediately) {
  const json p = api::a2a::v1_params_from_v03(json::parse(R"({"message":{},"configuration":{"blocking":false}})"));
  EXPECT_EQ(p["configuration"]["returnImmediately"], true);
  const json q = api::a2a::v1_params_from_v03(json::parse(R"({"message":{},"configuration":{"blocking":true}})"));
  EXPECT_FALSE(q["configuration"].contains("returnImmediately"));
}

TEST(A2aV03, ASendMessageTaskLosesItsWrapperAndGainsKinds) {
  const json v1 = json::parse(R"({"task":{"id":"r_1","contextId":"s_1",
      "status":{"state":"TASK_STATE_INPUT_REQUIRED","message":{"messageId":"m1","role":"ROLE_AGENT","parts":[{"text":"ok?"}]}},
      "artifacts":[{"artifactId":"a","parts":[{"text":"x"},{"data":{"n":1}}]}],
      "history":[{"messageId":"m0","role":"ROLE_USER","parts":[{"text":"hi"}]}]}})");
  const json t = api::a2a::v03_result("SendMessage", v1);
  EXPECT_EQ(t["kind"], "task");
  EXPECT_EQ(t["id"], "r_1");
  EXPECT_EQ(t["status"]["state"], "input-required");
  EXPECT_EQ(t["status"]["message"]["kind"], "message");
  EXPECT_EQ(t["status"]["message"]["role"], "agent");
  EXPECT_EQ(t["status"]["message"]["parts"][0], json::parse(R"({"kind":"text","text":"ok?"})"));
  EXPECT_EQ(t["artifacts"][0]["parts"][1], json::parse(R"({"kind":"data","data":{"n":1}})"));
  EXPECT_EQ(t["history"][0]["role"], "user");
  EXPECT_EQ(api::a2a::v03_result("GetTask", v1["task"])["status"]["state"], "input-required");
  const json m = api::a2a::v03_result("SendMessage", json::parse(R"({"message":{"messageId":"m","role":"ROLE_AGENT","parts":[]}})"));
  EXPECT_EQ(m["kind"], "message");
}

TEST(A2aV03, StreamUpdatesCarryKindAndFinal) {
  const json working = api::a2a::v03_stream_event(
      json::parse(R"({"statusUpdate":{"taskId":"r","contextId":"s","status":{"state":"TASK_STATE_WORKING"}}})"));
  EXPECT_EQ(working["kind"], "status-update");
  EXPECT_EQ(working["status"]["state"], "working");
  EXPECT_EQ(working["final"], false);
  for (const char* state : {"TASK_STATE_COMPLETED", "TASK_STATE_CANCELED", "TASK_STATE_INPUT_REQUIRED"}) {
    json v1 = {{"statusUpdate", {{"taskId", "r"}, {"contextId", "s"}, {"status", {{"state", state}}}}}};
    EXPECT_EQ(api::a2a::v03_stream_event(v1)["final"], true) << state;
  }
  EXPECT_EQ(api::a2a::v03_stream_event(json::parse(R"({"statusUpdate":{"status":{"state":"TASK_STATE_CANCELED"}}})"))["status"]["state"],
            "canceled");
  const json piece = api::a2a::v03_stream_event(
      json::parse(R"({"artifactUpdate":{"taskId":"r","contextId":"s","artifact":{"artifactId":"a","parts":[{"text":"do"}]},"append":true}})"));
  EXPECT_EQ(piece["kind"], "artifact-update");
  EXPECT_EQ(piece["artifact"]["parts"][0]["kind"], "text");
  EXPECT_EQ(piece["append"], true);
  EXPECT_EQ(api::a2a::v03_stream_event(json::parse(R"({"task":{"id":"r","status":{"state":"TASK_STATE_SUBMITTED"}}})"))["status"]["state"],
            "submitted");
}

}  // namespace
}  // namespace keel::testing
