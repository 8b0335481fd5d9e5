// The JSON text the core writes without a document (core/parsing/json/codec_text.hpp): byte for
// byte what nlohmann's dump() writes for the same values, built here independently as documents;
// ill-formed UTF-8 comes out as U+FFFD; HostedMachine's text and document forms agree.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/parsing/json/codec_text.hpp"
#include "keel/core/hosted_machine.hpp"
#include "keel/core/json_codec.hpp"

namespace keel::detail {
namespace {

using nlohmann::json;

// Every kind of character a string may hold: quotes, backslashes, the short escapes, other control
// bytes, DEL, a slash, two- to four-byte UTF-8.
const std::string kAwkward = "q\"b\\s/\b\f\n\r\t\x01\x1f\x7f é → 𝄞 end";

Message full_message() {
  Message m;
  m.role = Role::kAssistant;
  m.content = kAwkward;
  m.name = "reader";
  m.reasoning = "think " + kAwkward;
  m.tool_call_id = "call_9";
  m.metadata = {{"status", "ok"}, {"round", "3"}, {"a\"key", kAwkward}};
  m.tool_calls = {ToolCall{"c1", "fs_read", R"({"path":"a b"})"}, ToolCall{"c2", "now", "{}"}};
  return m;
}

json calls_json(const std::vector<ToolCall>& calls) {
  json out = json::array();
  for (const ToolCall& c : calls) out.push_back({{"id", c.id}, {"name", c.name}, {"arguments", c.arguments}});
  return out;
}

TEST(DecisionText, AMessageIsWhatADocumentOfItDumps) {
  const Message m = full_message();
  json expected = {
      {"role", "assistant"},      {"content", m.content},           {"name", m.name},
      {"reasoning", m.reasoning}, {"tool_call_id", m.tool_call_id}, {"tool_calls", calls_json(m.tool_calls)},
      {"metadata", m.metadata}};
  std::string text;
  append_message_json(text, m);
  EXPECT_EQ(text, expected.dump());

  Message bare;
  bare.role = Role::kUser;
  text.clear();
  append_message_json(text, bare);
  EXPECT_EQ(text, R"({"content":"","role":"user"})") << "unset optional fields are left out";
}

TEST(DecisionText, ARequestWithEverySettingIsWhatADocumentOfItDumps) {
  std::vector<Message> history = {full_message()};
  std::vector<Message> appended(1);
  appended[0].role = Role::kUser;
  appended[0].content = "go on";
  ToolSpec tool;
  tool.name = "fs_read";
  tool.description = "reads " + kAwkward;
  tool.parameters_schema = R"({"type":"object", "properties": {"path": {"type": "string"}}, "required": ["path"]})";
  ToolSpec broken;
  broken.name = "odd";
  broken.parameters_schema = "[not an object";
  std::vector<ToolSpec> tools = {tool, broken};
  ModelRequest r;
  r.history = history;
  r.appended = appended;
  r.tools = tools;
  r.round = 7;
  r.final_round = true;
  r.tool_choice = "required";
  r.response_schema = R"({"type":"object"})";
  r.sampling.temperature = 0.7;
  r.sampling.max_tokens = 512;
  r.sampling.top_p = 1.0;
  r.sampling.seed = -42;
  r.sampling.top_k = 40;
  r.sampling.min_p = 1e-7;
  r.sampling.repeat_penalty = 1e21;
  r.sampling.stop = {"</s>", kAwkward};

  json tools_doc = json::array();
  tools_doc.push_back(
      {{"name", "fs_read"}, {"description", tool.description}, {"parameters", json::parse(tool.parameters_schema)}});
  tools_doc.push_back({{"name", "odd"}, {"description", ""}, {"parameters", {{"type", "object"}}}});
  json expected = {{"messages", {json::parse([&] {
                      std::string t;
                      append_message_json(t, history[0]);
                      return t;
                    }())}},
                   {"tools", tools_doc},
                   {"tools_enabled", true},
                   {"round", 7},
                   {"final_round", true},
                   {"sampling",
                    {{"temperature", 0.7},
                     {"max_tokens", 512},
                     {"top_p", 1.0},
                     {"seed", -42},
                     {"top_k", 40},
                     {"min_p", 1e-7},
                     {"repeat_penalty", 1e21},
                     {"stop", r.sampling.stop}}},
                   {"tool_choice", "required"},
                   {"response_schema", r.response_schema},
                   {"messages_from", 1}};
  expected["messages"].push_back({{"role", "user"}, {"content", "go on"}});
  // The first message (already held by the host) is left out.
  expected["messages"].erase(0);
  std::string text;
  append_model_request_json(text, r, 1, tools_json_text(r.tools));
  EXPECT_EQ(text, expected.dump());

  r.tools_enabled = false;
  r.sampling = {};
  text.clear();
  append_model_request_json(text, r, 0, "ignored");
  json plain = json::parse(text);
  EXPECT_EQ(plain["tools"], json::array()) << "tools disabled: none are sent";
  EXPECT_EQ(plain["sampling"], json::object());
  EXPECT_EQ(plain["messages"].size(), 2u);
  EXPECT_EQ(plain.dump(), text);
}

TEST(DecisionText, ADecisionWithEveryPartIsWhatADocumentOfItDumps) {
  Decision d;
  RunTools run;
  run.calls = {ToolCall{"c1", "fs_read", R"({"path":"a"})"}};
  run.budget_left.max_tokens = 1000;
  run.budget_left.max_cost = 0.25;
  d.action = run;
  d.guards = {GuardEvent{GuardKind::kRepairedCall, kAwkward, "fs_read", "c1"}};
  PlanStepUpdate step;
  step.index = 2;
  step.state = PlanStepState::kFailed;
  step.tool = "fs_read";
  step.save_as = "page";
  step.detail = "no such file";
  d.plan_steps = {step};
  d.gate_decisions = {
      GateDecision{ToolCall{"c0", "shell", R"({"cmd":"ls"})"}, Risk::kHigh, ApprovalVerdict::kDeny, "denied by rule"}};
  d.planner = PlannerOutcome{"1. read", ""};

  json expected = {
      {"action", "run_tools"},
      {"calls", calls_json(run.calls)},
      {"budget_left", {{"max_tokens", 1000}, {"max_cost", 0.25}}},
      {"guards", {{{"kind", "repaired_call"}, {"detail", kAwkward}, {"tool", "fs_read"}, {"call_id", "c1"}}}},
      {"plan_steps",
       {{{"index", 2}, {"state", "failed"}, {"tool", "fs_read"}, {"save_as", "page"}, {"detail", "no such file"}}}},
      {"gate_decisions",
       {{{"call", calls_json({ToolCall{"c0", "shell", R"({"cmd":"ls"})"}})[0]},
         {"risk", "high"},
         {"verdict", "deny"},
         {"reason", "denied by rule"}}}},
      {"planner", {{"plan", "1. read"}, {"skipped", ""}}}};
  SortedJsonObject object;
  add_decision_members(object, d);
  std::string text;
  object.append_to(text);
  EXPECT_EQ(text, expected.dump());

  d = Decision{};
  d.action = Fail{FailureKind::kBackend, "down"};
  EXPECT_EQ(decision_to_json(d).dump(),
            json({{"action", "fail"}, {"kind", "backend"}, {"reason", "down"}, {"guards", json::array()}}).dump());
}

TEST(DecisionText, IllFormedUtf8BecomesReplacementCharacters) {
  Message m;
  m.role = Role::kTool;
  m.content =
      "a\xff"
      "b\xc3(c";  // a byte that starts nothing; a lead byte without its continuation
  m.metadata = {{"k\xfe", "v"}};
  std::string text;
  append_message_json(text, m);
  json back = json::parse(text, nullptr, false);
  ASSERT_FALSE(back.is_discarded()) << text;
  EXPECT_EQ(back["content"],
            "a\xef\xbf\xbd"
            "b\xef\xbf\xbd(c");
  EXPECT_TRUE(back["metadata"].contains("k\xef\xbf\xbd"));

  // A document event holding such bytes is read the same way, never an exception.
  auto machine = HostedMachine::create({{"task", "t"}});
  ASSERT_TRUE(machine.ok());
  machine->start();
  json event = {{"type", "model_replied"}, {"reply", {{"text", "bad \xff byte"}}}};
  json d;
  ASSERT_NO_THROW(d = machine->step(event));
  EXPECT_EQ(d["answer"], "bad \xef\xbf\xbd byte");
  auto read = event_from_json(event);
  ASSERT_TRUE(read.ok());
  EXPECT_EQ(std::get<ModelReplied>(*read).reply.text, "bad \xef\xbf\xbd byte");
}

TEST(DecisionText, AMachinesTextAndDocumentDecisionsAgree) {
  const json spec = {{"tools",
                      {{{"name", "fs_read"},
                        {"read_only", true},
                        {"parameters", {{"type", "object"}, {"properties", {{"path", {{"type", "string"}}}}}}}}}},
                     {"task", "read " + kAwkward},
                     {"incremental_requests", true}};
  auto by_text = HostedMachine::create(spec);
  auto by_document = HostedMachine::create(spec);
  ASSERT_TRUE(by_text.ok() && by_document.ok());
  EXPECT_EQ(by_text->start_text(), by_document->start().dump());
  const std::vector<json> events = {
      {{"type", "model_replied"},
       {"reply",
        {{"text", ""}, {"tool_calls", {{{"id", "c1"}, {"name", "fs_read"}, {"arguments", {{"path", "a"}}}}}}}}},
      {{"type", "tools_finished"}, {"results", {{{"call_id", "c1"}, {"status", "ok"}, {"content", kAwkward}}}}},
      {{"type", "not an event"}},
      {{"type", "model_replied"}, {"reply", {{"text", "done"}}}}};
  for (const json& e : events) {
    const std::string text = by_text->step_text(e.dump());
    EXPECT_EQ(text, by_document->step(e).dump());
    EXPECT_EQ(json::parse(text).dump(), text);
  }
  EXPECT_EQ(by_text->machine().phase(), AgentPhase::kFinished);
}

TEST(EventText, ReadsEveryKindOfEvent) {
  auto replied = event_from_text(
      R"({"type":"model_replied","reply":{"text":"t","reasoning":"r","tool_calls":[)"
      R"({"id":"c1","name":"a","arguments":"{\"x\": 1}"},{"name":"b","arguments":{"z":[1, 2.5],"y":"\u00e9"}},)"
      R"({"name":"c"}],"usage":{"prompt_tokens":12,"completion_tokens":3.9}}})");
  ASSERT_TRUE(replied.ok()) << replied.status().message();
  const ModelReply& reply = std::get<ModelReplied>(*replied).reply;
  EXPECT_EQ(reply.text, "t");
  EXPECT_EQ(reply.reasoning, "r");
  ASSERT_EQ(reply.tool_calls.size(), 3u);
  EXPECT_EQ(reply.tool_calls[0].arguments, R"({"x": 1})") << "text arguments stay as they are";
  EXPECT_EQ(reply.tool_calls[1].arguments, R"({"y":"é","z":[1,2.5]})") << "a value is written with its keys sorted";
  EXPECT_EQ(reply.tool_calls[1].id, "");
  EXPECT_EQ(reply.tool_calls[2].arguments, "");
  EXPECT_EQ(reply.usage.prompt_tokens, 12);
  EXPECT_EQ(reply.usage.completion_tokens, 3);

  auto finished =
      event_from_text(R"({"type":"tools_finished","results":[{"call_id":"c1","status":"timeout","content":"slow\n"},)"
                      R"({"status":"ok","model_usage":{"prompt_tokens":5}}]})");
  ASSERT_TRUE(finished.ok()) << finished.status().message();
  const auto& results = std::get<ToolsFinished>(*finished).results;
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].status, ToolStatus::kTimeout);
  EXPECT_EQ(results[0].content, "slow\n");
  EXPECT_EQ(results[1].model_usage.prompt_tokens, 5);

  auto given = event_from_text(
      R"({"type":"approvals_given","decisions":[{"call_id":"c1","verdict":"allow_always"},{"call_id":"c2","verdict":"deny","reason":"no"}]})");
  ASSERT_TRUE(given.ok()) << given.status().message();
  const auto& decisions = std::get<ApprovalsGiven>(*given).decisions;
  ASSERT_EQ(decisions.size(), 2u);
  EXPECT_EQ(decisions[0].verdict, ApprovalVerdict::kAllowAlways);
  EXPECT_EQ(decisions[1].reason, "no");

  auto failed = event_from_text(R"({"type":"model_failed","message":"down"})");
  ASSERT_TRUE(failed.ok());
  EXPECT_EQ(std::get<ModelFailed>(*failed).error.message(), "down");
  auto more = event_from_text(R"( {"type":"continue_requested","message":"again"} )");
  ASSERT_TRUE(more.ok());
  EXPECT_EQ(std::get<ContinueRequested>(*more).message, "again");
  auto stopped = event_from_text(R"({"type":"aborted"})");
  ASSERT_TRUE(stopped.ok());
  EXPECT_EQ(std::get<Aborted>(*stopped).reason, "");
}

TEST(EventText, ABadEventNamesWhatIsWrong) {
  const std::pair<const char*, const char*> cases[] = {
      {"{\"type\":", "must be JSON"},
      {"[1]", "must be a JSON object"},
      {R"({"reply":{}})", "missing field 'type'"},
      {R"({"type":7})", "field 'type' must be a string"},
      {R"({"type":"model_replied"})", "missing field 'reply'"},
      {R"({"type":"model_replied","reply":[]})", "'reply' must be an object"},
      {R"({"type":"model_replied","reply":{"tool_calls":{}}})", "'tool_calls' must be an array"},
      {R"({"type":"model_replied","reply":{"tool_calls":[{"id":"c"}]}})", "missing field 'name'"},
      {R"({"type":"model_replied","reply":{"usage":{"prompt_tokens":"12"}}})", "'prompt_tokens' must be a number"},
      {R"({"type":"tools_finished"})", "'results' must be an array"},
      {R"({"type":"tools_finished","results":{}})", "'results' must be an array"},
      {R"({"type":"tools_finished","results":[{"status":"fine"}]})", "unknown tool status 'fine'"},
      {R"({"type":"tools_finished","results":[{"status":"ok","model_usage":1}]})", "'model_usage' must be an object"},
      {R"({"type":"approvals_given","decisions":[{"call_id":"c","verdict":"maybe"}]})", "got 'maybe'"},
      {R"({"type":"model_failed"})", "missing field 'message'"},
      {R"({"type":"teleported"})", "unknown event type 'teleported'"},
  };
  for (const auto& [text, why] : cases) {
    auto e = event_from_text(text);
    ASSERT_FALSE(e.ok()) << text;
    EXPECT_EQ(e.status().code(), ErrorCode::kInvalidArgument) << text;
    EXPECT_NE(e.status().message().find(why), std::string::npos) << text << " -> " << e.status().message();
  }
}

}  // namespace
}  // namespace keel::detail
