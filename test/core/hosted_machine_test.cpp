#include "keel/core/hosted_machine.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "keel/core/json_codec.hpp"

namespace keel {
namespace {

using nlohmann::json;

json read_tool() {
  return {{"name", "fs_read"},
          {"description", "reads"},
          {"read_only", true},
          {"parameters", {{"type", "object"}, {"properties", {{"path", {{"type", "string"}}}}}}}};
}

TEST(HostedMachine, AFirstDecisionCarriesTheWholeRequest) {
  auto m = HostedMachine::create({{"tools", {read_tool()}}, {"system_prompt", "be brief"}, {"task", "read a"}});
  ASSERT_TRUE(m.ok()) << m.status().message();
  json d = m->start();
  EXPECT_EQ(d["action"], "call_model");
  EXPECT_EQ(d["phase"], "awaiting_model");
  ASSERT_EQ(d["request"]["messages"].size(), 2u);
  EXPECT_EQ(d["request"]["messages"][0], json({{"role", "system"}, {"content", "be brief"}}));
  EXPECT_EQ(d["request"]["messages"][1]["content"], "read a");
  EXPECT_EQ(d["request"]["tools"][0]["name"], "fs_read");
  EXPECT_EQ(d["request"]["tools"][0]["parameters"]["properties"]["path"]["type"], "string");
  EXPECT_EQ(d["committed"].size(), 2u) << "the system prompt and the task are committed with the first decision";
}

TEST(HostedMachine, AToolRoundCommitsTheCallAndItsResult) {
  auto m = HostedMachine::create({{"tools", {read_tool()}}, {"task", "read a"}});
  ASSERT_TRUE(m.ok());
  m->start();
  json d =
      m->step({{"type", "model_replied"},
               {"reply", {{"tool_calls", {{{"id", "c1"}, {"name", "fs_read"}, {"arguments", {{"path", "a"}}}}}}}}});
  ASSERT_EQ(d["action"], "run_tools");
  EXPECT_EQ(d["calls"][0]["arguments"], "{\"path\":\"a\"}");
  ASSERT_EQ(d["committed"].size(), 1u);
  EXPECT_EQ(d["committed"][0]["tool_calls"][0]["id"], "c1");
  d = m->step({{"type", "tools_finished"}, {"results", {{{"call_id", "c1"}, {"status", "ok"}, {"content", "alpha"}}}}});
  ASSERT_EQ(d["action"], "call_model");
  EXPECT_EQ(d["committed"][0]["role"], "tool");
  EXPECT_EQ(d["committed"][0]["tool_call_id"], "c1");
  EXPECT_EQ(d["committed"][0]["metadata"]["status"], "ok");
  d = m->step({{"type", "model_replied"}, {"reply", {{"text", "it says alpha"}}}});
  EXPECT_EQ(d["action"], "finish");
  EXPECT_EQ(d["answer"], "it says alpha");
  EXPECT_EQ(m->state()["history"].size(), 5u);
}

TEST(HostedMachine, AnUnreadableEventIsAnErrorAndChangesNothing) {
  auto m = HostedMachine::create({{"task", "hi"}});
  ASSERT_TRUE(m.ok());
  m->start();
  json d = m->step({{"type", "model_replied"}});
  EXPECT_EQ(d["action"], "error");
  EXPECT_NE(d["error"].get<std::string>().find("missing field 'reply'"), std::string::npos) << d.dump();
  EXPECT_EQ(m->machine().phase(), AgentPhase::kAwaitingModel);
  d = m->step({{"type", "model_replied"}, {"reply", {{"text", "hello"}}}});
  EXPECT_EQ(d["action"], "finish");
}

TEST(HostedMachine, BadSpecsNameWhatIsWrong) {
  auto expect_error = [](const json& spec, const std::string& needle) {
    auto m = HostedMachine::create(spec);
    ASSERT_FALSE(m.ok()) << spec.dump();
    EXPECT_NE(m.status().message().find(needle), std::string::npos) << m.status().message();
  };
  expect_error(json::array(), "must be a JSON object");
  expect_error({{"task", ""}}, "'task' is missing or empty");
  expect_error({{"task", "x"}, {"tools", {{{"description", "no name"}}}}}, "tools[0]: missing field 'name'");
  expect_error({{"task", "x"}, {"config", {{"max_round", 2}}}}, "unknown config key 'max_round'");
  expect_error({{"task", "x"}, {"earlier", {{{"role", "robot"}}}}}, "earlier[0]: message role must be");
  expect_error({{"resume", {{"conversation", {{{"role", "user"}, {"content", "a"}}}}, {"run_start", 5}}}},
               "outside the conversation");
  expect_error({{"resume", {{"conversation", json::array()}}}}, "run_start");
}

TEST(HostedMachine, EarlierMessagesAreSentBeforeTheTask) {
  json earlier = {{{"role", "user"}, {"content", "first question"}},
                  {{"role", "assistant"}, {"content", "first answer"}}};
  auto m = HostedMachine::create({{"task", "second"}, {"earlier", earlier}});
  ASSERT_TRUE(m.ok());
  json d = m->start();
  const json& msgs = d["request"]["messages"];
  ASSERT_EQ(msgs.size(), 4u);
  EXPECT_EQ(msgs[1]["content"], "first question");
  EXPECT_EQ(msgs[3]["content"], "second");
}

TEST(HostedMachine, AResumedRunReRunsAReadOnlyCallThatHasNoResult) {
  json conversation = {{{"role", "system"}, {"content", "S"}},
                       {{"role", "user"}, {"content", "read a"}, {"metadata", {{"kind", "task"}}}},
                       {{"role", "assistant"},
                        {"content", ""},
                        {"tool_calls", {{{"id", "c1"}, {"name", "fs_read"}, {"arguments", "{\"path\":\"a\"}"}}}}}};
  auto m =
      HostedMachine::create({{"tools", {read_tool()}}, {"resume", {{"conversation", conversation}, {"run_start", 1}}}});
  ASSERT_TRUE(m.ok()) << m.status().message();
  json d = m->start();
  ASSERT_EQ(d["action"], "run_tools") << d.dump();
  EXPECT_EQ(d["calls"][0]["id"], "c1");
}

TEST(HostedMachine, IncrementalRequestsSendEachMessageOnce) {
  json spec = {{"tools", {read_tool()}}, {"task", "read a"}, {"incremental_requests", true}};
  auto m = HostedMachine::create(spec);
  ASSERT_TRUE(m.ok());
  json d = m->start();
  EXPECT_FALSE(d["request"].contains("messages_from"));
  std::vector<json> held = d["request"]["messages"].get<std::vector<json>>();
  m->step({{"type", "model_replied"},
           {"reply", {{"tool_calls", {{{"id", "c1"}, {"name", "fs_read"}, {"arguments", {{"path", "a"}}}}}}}}});
  d = m->step({{"type", "tools_finished"}, {"results", {{{"call_id", "c1"}, {"status", "ok"}, {"content", "alpha"}}}}});
  ASSERT_EQ(d["action"], "call_model");
  const size_t from = d["request"]["messages_from"].get<size_t>();
  EXPECT_EQ(from, 2u) << "the system prompt and the task were sent before";
  held.resize(from);
  for (const json& msg : d["request"]["messages"]) held.push_back(msg);
  // The host's reassembled request equals what a full request would say.
  auto full = HostedMachine::create({{"tools", {read_tool()}}, {"task", "read a"}});
  ASSERT_TRUE(full.ok());
  full->start();
  full->step({{"type", "model_replied"},
              {"reply", {{"tool_calls", {{{"id", "c1"}, {"name", "fs_read"}, {"arguments", {{"path", "a"}}}}}}}}});
  json f = full->step(
      {{"type", "tools_finished"}, {"results", {{{"call_id", "c1"}, {"status", "ok"}, {"content", "alpha"}}}}});
  EXPECT_EQ(json(held), f["request"]["messages"]);
  EXPECT_TRUE(d["request"]["tools_unchanged"].get<bool>()) << "the same tools as the first request";
  EXPECT_FALSE(d["request"].contains("tools"));
  EXPECT_FALSE(f["request"].contains("tools_unchanged")) << "full requests always carry their tools";
  EXPECT_EQ(f["request"]["tools"][0]["name"], "fs_read");
  EXPECT_FALSE(HostedMachine::create({{"task", "x"}, {"incremental_requests", "yes"}}).ok());
}

// One tool round of `m`: the model calls `name` with `arguments` (id `id`), the call ends ok with
// `content`; the decision that follows.
json tool_round(HostedMachine& m, const std::string& id, const std::string& name, const json& arguments,
                const std::string& content) {
  m.step({{"type", "model_replied"},
          {"reply", {{"tool_calls", {{{"id", id}, {"name", name}, {"arguments", arguments}}}}}}});
  const json result = {{"call_id", id}, {"status", "ok"}, {"content", content}};
  return m.step({{"type", "tools_finished"}, {"results", json::array({result})}});
}

// The tool_search result that loads the deferred git__log.
const char* kGitLogLoaded = R"({"query":"git","matches":[{"name":"git__log","loaded":true}],"total":1})";

// Requests reuse the tools' JSON while the offered tools stay the same, and render it again when
// they change (a deferred tool that tool_search loaded joins the next request).
TEST(HostedMachine, EachRequestCarriesTheToolsOfferedThen) {
  json search = {{"name", "tool_search"}, {"description", "finds tools"}, {"read_only", true}};
  json git_log = {{"name", "git__log"},
                  {"description", "shows the log"},
                  {"deferred", true},
                  {"parameters", {{"type", "object"}, {"properties", {{"n", {{"type", "integer"}}}}}}}};
  auto m = HostedMachine::create({{"tools", {read_tool(), search, git_log}}, {"task", "show the git log"}});
  ASSERT_TRUE(m.ok()) << m.status().message();
  auto names = [](const json& d) {
    std::vector<std::string> out;
    for (const json& t : d["request"]["tools"]) out.push_back(t["name"]);
    return out;
  };
  json d = m->start();
  EXPECT_EQ(names(d), (std::vector<std::string>{"fs_read", "tool_search"}));
  d = tool_round(*m, "c1", "fs_read", {{"path", "a"}}, "alpha");
  ASSERT_EQ(d["action"], "call_model");
  EXPECT_EQ(names(d), (std::vector<std::string>{"fs_read", "tool_search"}));
  EXPECT_EQ(d["request"]["tools"][0]["parameters"]["properties"]["path"]["type"], "string");
  d = tool_round(*m, "c2", "tool_search", {{"query", "git"}}, kGitLogLoaded);
  ASSERT_EQ(d["action"], "call_model");
  EXPECT_EQ(names(d), (std::vector<std::string>{"fs_read", "tool_search", "git__log"}));
  EXPECT_EQ(d["request"]["tools"][2]["parameters"]["properties"]["n"]["type"], "integer");
}

// Incremental requests leave the tools out while they stay the previous request's, and send them
// whole again once they change, the final round's empty list included.
TEST(HostedMachine, IncrementalRequestsSendTheToolsWhenTheyChange) {
  json search = {{"name", "tool_search"}, {"description", "finds tools"}, {"read_only", true}};
  json git_log = {{"name", "git__log"}, {"description", "shows the log"}, {"deferred", true}};
  auto m = HostedMachine::create({{"tools", {read_tool(), search, git_log}},
                                  {"task", "show the git log"},
                                  {"incremental_requests", true},
                                  {"config", {{"max_rounds", 3}}}});
  ASSERT_TRUE(m.ok()) << m.status().message();
  json d = m->start();
  ASSERT_EQ(d["request"]["tools"].size(), 2u);
  EXPECT_FALSE(d["request"].contains("tools_unchanged"));
  d = tool_round(*m, "c1", "fs_read", {{"path", "a"}}, "alpha");
  EXPECT_EQ(d["request"].value("tools_unchanged", false), true);
  EXPECT_FALSE(d["request"].contains("tools"));
  d = tool_round(*m, "c2", "tool_search", {{"query", "git"}}, kGitLogLoaded);
  ASSERT_EQ(d["action"], "call_model");
  EXPECT_FALSE(d["request"].contains("tools_unchanged")) << "a tool joined: the tools are sent again";
  ASSERT_EQ(d["request"]["tools"].size(), 3u);
  EXPECT_EQ(d["request"]["tools"][2]["name"], "git__log");
  EXPECT_FALSE(d["request"]["final_round"].get<bool>());
  d = tool_round(*m, "c3", "git__log", json::object(), "log");
  ASSERT_EQ(d["action"], "call_model");
  EXPECT_TRUE(d["request"]["final_round"].get<bool>());
  EXPECT_EQ(d["request"]["tools"], json::array()) << "the final round offers no tools, and says so";
  EXPECT_FALSE(d["request"].contains("tools_unchanged"));
}

TEST(HostedMachine, InstructionsBuildKeelsSectionedPromptWithTheToolsForTheTextProtocol) {
  auto m = HostedMachine::create({{"tools", {read_tool()}},
                                  {"config", {{"tool_protocol", "text"}}},
                                  {"instructions", "You answer about files."},
                                  {"project_instructions", "Use British spelling."},
                                  {"task", "read a"}});
  ASSERT_TRUE(m.ok()) << m.status().message();
  json d = m->start();
  const std::string system = d["request"]["messages"][0]["content"];
  EXPECT_NE(system.find("You answer about files."), std::string::npos);
  EXPECT_NE(system.find("Use British spelling."), std::string::npos);
  EXPECT_NE(system.find("fs_read"), std::string::npos) << "the text protocol documents the tools in the prompt";
  EXPECT_TRUE(d["request"]["tools"].empty()) << "and sends none natively";
  EXPECT_FALSE(HostedMachine::create({{"task", "x"}, {"instructions", ""}, {"system_prompt", "S"}}).ok());
}

TEST(DecisionJson, AFinishThatHandsCallsToTheCallerListsThem) {
  Decision d;
  d.action = Finish{"", {{"call_1_1", "client_search", "{\"q\":\"x\"}"}}};
  json j = decision_to_json(d);
  EXPECT_EQ(j["action"], "finish");
  ASSERT_EQ(j["client_calls"].size(), 1u);
  EXPECT_EQ(j["client_calls"][0],
            json({{"id", "call_1_1"}, {"name", "client_search"}, {"arguments", "{\"q\":\"x\"}"}}));
  d.action = Finish{"done"};
  EXPECT_FALSE(decision_to_json(d).contains("client_calls"));
}

TEST(ChatMessageJson, ListsNameTheElementThatIsWrong) {
  auto messages =
      chat_messages_from_json(json::array({{{"role", "user"}, {"content", "a"}}, {{"role", "robot"}}}), "earlier");
  ASSERT_FALSE(messages.ok());
  EXPECT_NE(messages.status().message().find("earlier[1]: message role must be"), std::string::npos);
  EXPECT_FALSE(chat_messages_from_json(json::object(), "earlier").ok());
  auto tools = tool_specs_from_json(json::array({{{"name", "a"}}, {{"description", "x"}}}), "tools");
  ASSERT_FALSE(tools.ok());
  EXPECT_NE(tools.status().message().find("tools[1]: missing field 'name'"), std::string::npos);
  auto ok = tool_specs_from_json(json::array({{{"name", "a"}}}), "tools");
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok->at(0).name, "a");
}

TEST(ChatMessageJson, RoundTripsEveryField) {
  Message m = Message::assistant("text", {{"c1", "fs_read", "{\"path\":\"a\"}"}});
  m.reasoning = "thinking";
  m.metadata["round"] = "2";
  auto back = chat_message_from_json(chat_message_to_json(m));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->content, "text");
  EXPECT_EQ(back->reasoning, "thinking");
  ASSERT_EQ(back->tool_calls.size(), 1u);
  EXPECT_EQ(back->tool_calls[0].arguments, "{\"path\":\"a\"}");
  EXPECT_EQ(back->metadata.at("round"), "2");
  auto tool = chat_message_from_json({{"role", "tool"}, {"content", "x"}, {"tool_call_id", "c1"}});
  ASSERT_TRUE(tool.ok());
  EXPECT_EQ(tool->role, Role::kTool);
  EXPECT_FALSE(chat_message_from_json({{"role", "user"}, {"content", 5}}).ok());
  EXPECT_FALSE(chat_message_from_json({{"role", "user"}, {"metadata", {{"a", 1}}}}).ok());
  EXPECT_FALSE(chat_message_from_json({{"content", "no role"}}).ok());
}

TEST(ModelRequestJson, TheFinalRoundOffersNoTools) {
  std::vector<Message> history = {Message::system("S"), Message::user("t")};
  ToolSpec spec;
  spec.name = "fs_read";
  spec.parameters_schema = "not json";
  std::vector<ToolSpec> tools = {spec};
  ModelRequest r;
  r.history = history;
  r.tools = tools;
  r.sampling.temperature = 0.5;
  json j = model_request_to_json(r);
  EXPECT_EQ(j["tools"][0]["parameters"], json({{"type", "object"}}))
      << "unreadable parameters become an empty object schema";
  EXPECT_EQ(j["sampling"]["temperature"], 0.5);
  r.tools_enabled = false;
  r.final_round = true;
  j = model_request_to_json(r);
  EXPECT_TRUE(j["tools"].empty());
  EXPECT_EQ(j["final_round"], true);
}

}  // namespace
}  // namespace keel
