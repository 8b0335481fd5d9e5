// End-to-end tests of `keel trace`: the span tree of a run and its OTLP/JSON export.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "cli/store_cli_fixture.hpp"

namespace keel {
namespace {

using nlohmann::json;
using testing::CliRun;
using testing::lines_of;

constexpr int64_t kStartUs = 1'700'000'000'000'000;

class TraceE2eTest : public testing::StoreCliTest {
 protected:
  void SetUp() override {
    StoreCliTest::SetUp();
    sid_ = new_session("traced", workspace());
    rid_ = new_run(sid_, "do it");
    // run ─┬─ model (round 1)
    //      ├─ fs_read (tool) ── child (a nested step)
    //      └─ model (round 2, error)
    // plus a span whose parent was never recorded (a crash) and one recorded out of order.
    span("run-" + rid_, "", "run", "run", 0, 50'000, "ok", R"({"rounds":2,"prompt_tokens":30,"completion_tokens":9})");
    span("model-1", "run-" + rid_, "model", "mock", 1'000, 12'345, "ok",
         R"({"round":1,"prompt_tokens":10,"completion_tokens":5,"finish_reason":"tool_calls","temperature":0.5})");
    span("model-2", "run-" + rid_, "model", "mock", 30'000, 1'000, "error",
         R"({"round":2,"error":"unavailable: 503"})");
    span("tool-1", "run-" + rid_, "tool", "fs_read", 20'000, 2'500, "ok",
         R"({"call_id":"c1","bytes":12,"cached":false})");
    span("child-1", "tool-1", "step", "resolve path", 20'100, 100, "ok", "");
    span("lost-1", "never-recorded", "tool", "shell", 40'000, 5'000, "timeout", R"({"call_id":"c9"})");
  }

  void span(std::string id, std::string parent, std::string kind, std::string name, int64_t offset_us,
            int64_t duration_us, std::string status, std::string attributes) {
    SpanRecord s;
    s.trace_id = rid_;
    s.span_id = std::move(id);
    s.parent_span_id = std::move(parent);
    s.session_id = sid_;
    s.run_id = rid_;
    s.kind = std::move(kind);
    s.name = std::move(name);
    s.start_us = kStartUs + offset_us;
    s.duration_us = duration_us;
    s.status = std::move(status);
    s.attributes = std::move(attributes);
    Status st = store_->record_span(s);
    EXPECT_TRUE(st.ok()) << st.to_string();
  }

  // Leading spaces of a line.
  static size_t indent(const std::string& line) { return line.find_first_not_of(' '); }

  std::string sid_, rid_;
};

TEST_F(TraceE2eTest, TreeIndentsChildrenUnderParentsByStartTime) {
  CliRun r = keel({"trace", rid_});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto lines = lines_of(r.out);
  ASSERT_EQ(lines.size(), 7u) << r.out;
  EXPECT_NE(lines[0].find(rid_), std::string::npos);
  EXPECT_NE(lines[0].find("6 spans"), std::string::npos) << lines[0];
  // Roots by start: the run, then the orphan.
  EXPECT_EQ(lines[1].rfind("run  run  50.0 ms  ok", 0), 0u) << lines[1];
  EXPECT_EQ(lines[2], "  mock  model  12.3 ms  ok  round=1 tokens=10+5") << r.out;
  EXPECT_EQ(lines[3].rfind("  fs_read  tool  2.5 ms  ok  call_id=c1", 0), 0u) << lines[3];
  EXPECT_EQ(lines[4].rfind("    resolve path  step  0.1 ms  ok", 0), 0u) << lines[4];
  EXPECT_EQ(lines[5].rfind("  mock  model  1.0 ms  error  round=2", 0), 0u) << lines[5];
  EXPECT_NE(lines[5].find("error=unavailable: 503"), std::string::npos) << lines[5];
  EXPECT_EQ(indent(lines[6]), 0u) << "orphan at top level: " << lines[6];
  EXPECT_NE(lines[6].find("shell  tool  5.0 ms  timeout"), std::string::npos) << lines[6];
  EXPECT_NE(lines[6].find("never-recorded missing"), std::string::npos) << lines[6];

  CliRun by_session = keel({"trace", sid_});
  EXPECT_EQ(by_session.exit_code, 0) << by_session.err;
  EXPECT_EQ(by_session.out, r.out) << "a session id means its latest run";
}

TEST_F(TraceE2eTest, OtlpJsonHasTheCollectorShape) {
  CliRun r = keel({"trace", rid_, "--otlp"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json doc = json::parse(r.out);
  ASSERT_EQ(doc["resourceSpans"].size(), 1u);
  const json& rs = doc["resourceSpans"][0];
  bool service = false;
  for (const json& a : rs["resource"]["attributes"]) {
    if (a["key"] == "service.name") service = a["value"]["stringValue"] == "keel";
  }
  EXPECT_TRUE(service) << rs["resource"];
  ASSERT_EQ(rs["scopeSpans"].size(), 1u);
  EXPECT_EQ(rs["scopeSpans"][0]["scope"]["name"], "keel");
  const json& spans = rs["scopeSpans"][0]["spans"];
  ASSERT_EQ(spans.size(), 6u);

  const std::regex trace_hex("^[0-9a-f]{32}$"), span_hex("^[0-9a-f]{16}$");
  std::set<std::string> span_ids, trace_ids;
  std::map<std::string, json> by_keel_id;
  for (const json& s : spans) {
    ASSERT_TRUE(std::regex_match(s["traceId"].get<std::string>(), trace_hex)) << s;
    ASSERT_TRUE(std::regex_match(s["spanId"].get<std::string>(), span_hex)) << s;
    trace_ids.insert(s["traceId"].get<std::string>());
    span_ids.insert(s["spanId"].get<std::string>());
    ASSERT_TRUE(s["startTimeUnixNano"].is_string()) << s;
    ASSERT_TRUE(s["endTimeUnixNano"].is_string()) << s;
    EXPECT_LE(std::stoll(s["startTimeUnixNano"].get<std::string>()),
              std::stoll(s["endTimeUnixNano"].get<std::string>()));
    ASSERT_TRUE(s["kind"].is_number_integer()) << s;
    ASSERT_TRUE(s["attributes"].is_array());
    std::map<std::string, json> attrs;
    for (const json& a : s["attributes"]) attrs[a["key"].get<std::string>()] = a["value"];
    by_keel_id[attrs["keel.span_id"]["stringValue"].get<std::string>()] = s;
    EXPECT_EQ(attrs["keel.trace_id"]["stringValue"], rid_);
  }
  EXPECT_EQ(trace_ids.size(), 1u);
  EXPECT_EQ(span_ids.size(), 6u) << "span ids are distinct";
  for (const json& s : spans) {
    if (s.contains("parentSpanId")) {
      EXPECT_TRUE(span_ids.count(s["parentSpanId"].get<std::string>())) << s;
    }
  }

  const json& root = by_keel_id["run-" + rid_];
  EXPECT_FALSE(root.contains("parentSpanId"));
  EXPECT_EQ(root["name"], "run");
  EXPECT_EQ(root["kind"], 1);
  EXPECT_EQ(root["startTimeUnixNano"], std::to_string(kStartUs * 1000));
  EXPECT_EQ(root["endTimeUnixNano"], std::to_string((kStartUs + 50'000) * 1000));
  EXPECT_EQ(root["status"]["code"], 1);

  const json& model = by_keel_id["model-1"];
  EXPECT_EQ(model["kind"], 3) << "model calls are CLIENT spans";
  EXPECT_EQ(model["parentSpanId"], root["spanId"]);
  std::map<std::string, json> attrs;
  for (const json& a : model["attributes"]) attrs[a["key"].get<std::string>()] = a["value"];
  // keel's short names go out under the GenAI conventions' names, or under keel.*.
  EXPECT_EQ(attrs["keel.round"], json({{"intValue", "1"}}));
  EXPECT_EQ(attrs["gen_ai.response.finish_reasons"], json::parse(R"({"arrayValue":{"values":[{"stringValue":"tool_calls"}]}})"));
  EXPECT_EQ(attrs["keel.temperature"], json({{"doubleValue", 0.5}}));
  EXPECT_EQ(attrs["gen_ai.operation.name"], json({{"stringValue", "chat"}}));

  EXPECT_EQ(by_keel_id["child-1"]["parentSpanId"], by_keel_id["tool-1"]["spanId"]);
  std::map<std::string, json> tool_attrs;
  for (const json& a : by_keel_id["tool-1"]["attributes"]) tool_attrs[a["key"].get<std::string>()] = a["value"];
  EXPECT_EQ(tool_attrs["keel.cached"], json({{"boolValue", false}}));
  EXPECT_EQ(tool_attrs["gen_ai.tool.call.id"], json({{"stringValue", "c1"}}));
  EXPECT_EQ(tool_attrs["gen_ai.operation.name"], json({{"stringValue", "execute_tool"}}));
  EXPECT_EQ(by_keel_id["model-2"]["status"]["code"], 2);
  EXPECT_NE(by_keel_id["model-2"]["status"]["message"].get<std::string>().find("503"), std::string::npos);
  const json& orphan = by_keel_id["lost-1"];
  EXPECT_FALSE(orphan.contains("parentSpanId")) << "a missing parent is not linked";
  EXPECT_EQ(orphan["status"]["code"], 2);

  CliRun again = keel({"trace", rid_, "--otlp"});
  EXPECT_EQ(again.out, r.out) << "ids are derived deterministically";
}

TEST_F(TraceE2eTest, UnknownIdsAndRunlessSessions) {
  CliRun no_run = keel({"trace", "r_0123456789abcdef"});
  EXPECT_EQ(no_run.exit_code, 1);
  EXPECT_EQ(no_run.err.find("keel: "), 0u) << no_run.err;
  CliRun no_session = keel({"trace", "s_0123456789abcdef"});
  EXPECT_EQ(no_session.exit_code, 1);
  EXPECT_NE(no_session.err.find("no session"), std::string::npos) << no_session.err;
  std::string empty = new_session("no runs yet", workspace());
  EXPECT_EQ(keel({"trace", empty}).exit_code, 1);
  EXPECT_EQ(keel({"trace", "x_1"}).exit_code, 2);
}

TEST_F(TraceE2eTest, RunWithoutSpansPrintsAnEmptyExport) {
  clock_ += 1000;
  std::string rid = new_run(sid_, "second task");
  CliRun r = keel({"trace", rid, "--otlp"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(json::parse(r.out)["resourceSpans"][0]["scopeSpans"][0]["spans"].size(), 0u);
  CliRun latest = keel({"trace", sid_});
  EXPECT_EQ(latest.exit_code, 0);
  EXPECT_NE(latest.out.find(rid), std::string::npos) << "the latest run is the new one";
  EXPECT_NE(latest.err.find("no spans"), std::string::npos);
}

}  // namespace
}  // namespace keel
