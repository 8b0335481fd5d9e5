// The output pipeline of one skill with a scripted model: JSON repair, schema validation, the
// retry with the error shown to the model, explicit failure, the skill's check, the heuristic,
// the prompt (knowledge, schema, max tokens) and the model factory.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "keel/skill_runner.hpp"
#include "skills/skill_test_support.hpp"

namespace keel {
namespace {

using nlohmann::json;
using testing::object_skill;
using testing::RuleModel;
using testing::SkillRequest;
using testing::text_reply;

// Replies from a list, one per call, whatever the skill.
RuleModel::Responder script(std::vector<std::string> replies) {
  auto list = std::make_shared<std::vector<std::string>>(std::move(replies));
  auto next = std::make_shared<std::atomic<size_t>>(0);
  return [list, next](const SkillRequest&, const CallOptions&) -> Result<ModelReply> {
    size_t i = next->fetch_add(1);
    if (i >= list->size()) return Status::Unavailable("script exhausted");
    return text_reply((*list)[i]);
  };
}

SkillGraphResult run_one(std::vector<ExecutableSkill> skills, LlmClient& model, const std::string& id,
                         json input = json::object(), SkillRunnerOptions options = {}, std::string knowledge = {}) {
  auto runner = SkillRunner::create(std::move(skills), model, std::move(options));
  EXPECT_TRUE(runner.ok()) << runner.status().to_string();
  if (!runner.ok()) return {};
  SkillRunRequest req;
  req.ids = {id};
  req.knowledge = std::move(knowledge);
  auto r = (*runner)->run(req, input);
  EXPECT_TRUE(r.ok()) << r.status().to_string();
  return r.ok() ? std::move(r).value() : SkillGraphResult{};
}

TEST(SkillPipelineTest, RepairedJsonInAFenceIsAcceptedAndTheRepairsAreRecorded) {
  RuleModel model(script({"Here you go:\n```json\n{'summary': 'all good',}\n```\nanything else?"}));
  SkillGraphResult r = run_one({object_skill("a", {"summary"})}, model, "a");
  ASSERT_EQ(r.skills.size(), 1u);
  const SkillOutcome& o = r.skills[0];
  EXPECT_EQ(o.status, SkillStatus::kSucceeded) << o.reason;
  EXPECT_EQ(o.output, R"({"summary":"all good"})");
  EXPECT_EQ(o.backend, "rule-model");
  EXPECT_EQ(o.retries, 0);
  ASSERT_GE(o.repairs.size(), 2u);
  EXPECT_EQ(o.repairs[0], "took the JSON from a ``` fence and dropped the text around it");
  EXPECT_EQ(model.calls(), 1u);
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.run_id.size(), 19u);
  EXPECT_EQ(r.run_id.rfind("sk_", 0), 0u);
}

TEST(SkillPipelineTest, ASchemaFailureIsRetriedWithTheRawReplyAndTheErrorThenSucceeds) {
  RuleModel model(script({R"({"summary": 42})", R"({"summary": "fixed"})"}));
  SkillGraphResult r = run_one({object_skill("a", {"summary"})}, model, "a");
  const SkillOutcome& o = r.skills.at(0);
  EXPECT_EQ(o.status, SkillStatus::kSucceeded) << o.reason;
  EXPECT_EQ(o.retries, 1);
  EXPECT_EQ(o.output, R"({"summary":"fixed"})");
  std::vector<SkillRequest> reqs = model.requests();
  ASSERT_EQ(reqs.size(), 2u);
  ASSERT_EQ(reqs[0].messages.size(), 2u);
  ASSERT_EQ(reqs[1].messages.size(), 4u);
  EXPECT_EQ(reqs[1].round, 2);
  EXPECT_EQ(reqs[1].messages[2].role, Role::kAssistant);
  EXPECT_EQ(reqs[1].messages[2].content, R"({"summary": 42})");
  EXPECT_EQ(reqs[1].messages[3].role, Role::kUser);
  EXPECT_EQ(reqs[1].messages[3].content,
            "Your reply was not accepted: the output does not match the output schema: /summary: expected string, got "
            "integer\nReply again with only one JSON value that matches the schema.");
}

TEST(SkillPipelineTest, ASecondFailureFailsTheSkillNamingItAndKeepsTheRawOutput) {
  RuleModel model(script({"not json at all", R"({"other": "x"})"}));
  SkillGraphResult r = run_one({object_skill("a", {"summary"})}, model, "a");
  const SkillOutcome& o = r.skills.at(0);
  EXPECT_EQ(o.status, SkillStatus::kFailed);
  EXPECT_EQ(o.retries, 1);
  EXPECT_EQ(o.error_code, ErrorCode::kInvalidArgument);
  EXPECT_FALSE(o.backend_failed);
  EXPECT_EQ(o.raw_output, R"({"other": "x"})");
  EXPECT_EQ(o.reason,
            "skill 'a': the output was rejected twice: the output does not match the output schema: /summary: missing "
            "required property");
  EXPECT_EQ(o.output, "");
  EXPECT_EQ(model.calls(), 2u);
  EXPECT_FALSE(r.ok());
  EXPECT_FALSE(r.backend_failed());
  // The first rejection (not JSON) was what the model was told about.
  EXPECT_EQ(model.requests()[1].messages[3].content.rfind("Your reply was not accepted: the reply is not JSON: ", 0),
            0u)
      << model.requests()[1].messages[3].content;
}

TEST(SkillPipelineTest, AMissingProvidedMemberIsAValidationFailure) {
  ExecutableSkill s = object_skill("a", {});
  s.manifest.provides = {"candidates"};
  RuleModel model(script({R"({"note": "no candidates key"})", R"({"candidates": ["x"]})"}));
  SkillGraphResult r = run_one({s}, model, "a");
  EXPECT_EQ(r.skills.at(0).status, SkillStatus::kSucceeded);
  EXPECT_EQ(r.skills.at(0).retries, 1);
  EXPECT_EQ(model.requests()[1].messages[3].content,
            "Your reply was not accepted: the output has no member 'candidates', which the skill provides\nReply again "
            "with only one JSON value that matches the schema.");
  EXPECT_EQ(json::parse(r.context), json({{"candidates", {"x"}}}));
}

TEST(SkillPipelineTest, TheSkillsCheckRunsAfterTheSchemaAndItsMessageReachesTheModel) {
  ExecutableSkill s = object_skill("extract-ish", {"email"});
  s.check = [](const json& out, const json& input) -> Status {
    const std::string email = out["email"].get<std::string>();
    if (input["text"].get<std::string>().find(email) == std::string::npos) {
      std::string msg = "HallucinationDetected: '";
      msg.append(email).append("' is not in the source text");
      return Status::InvalidArgument(msg);
    }
    return Status::Ok();
  };
  RuleModel model(script({R"({"email": "made@up.example"})", R"({"email": "bob@x.org"})"}));
  SkillGraphResult r = run_one({s}, model, "extract-ish", json{{"text", "write to bob@x.org"}});
  EXPECT_EQ(r.skills.at(0).status, SkillStatus::kSucceeded);
  EXPECT_EQ(r.skills.at(0).output, R"({"email":"bob@x.org"})");
  EXPECT_EQ(model.requests()[1].messages[3].content,
            "Your reply was not accepted: HallucinationDetected: 'made@up.example' is not in the source text\nReply "
            "again with only one JSON value that matches the schema.");
}

TEST(SkillPipelineTest, ThePromptCarriesInstructionsKnowledgeSchemaInputAndMaxTokens) {
  ExecutableSkill s = object_skill("a", {"summary"});
  s.manifest.max_tokens = 321;
  s.manifest.timeout_ms = 45000;
  RuleModel model(script({R"({"summary": "ok"})"}));
  SkillGraphResult r = run_one({s}, model, "a", json{{"text", "hello"}}, {}, "Gas is cheap on L2.");
  ASSERT_EQ(r.skills.at(0).status, SkillStatus::kSucceeded);
  SkillRequest req = model.requests().at(0);
  EXPECT_EQ(req.max_tokens, std::optional<int>(321));
  EXPECT_GT(req.timeout_ms, 40000);
  EXPECT_LE(req.timeout_ms, 45000);
  EXPECT_EQ(req.system.rfind("You carry out the skill \"a\": test skill a\n\nInstructions of a.\n\n", 0), 0u)
      << req.system;
  EXPECT_NE(req.system.find("## Domain knowledge\n\nGas is cheap on L2.\n"), std::string::npos) << req.system;
  EXPECT_NE(req.system.find("Reply with only one JSON value that matches this JSON Schema"), std::string::npos);
  EXPECT_NE(req.system.find("\"required\": [\n    \"summary\"\n  ]"), std::string::npos) << req.system;
  EXPECT_EQ(req.user, "## Input\n\n{\n  \"text\": \"hello\"\n}\n");
}

TEST(SkillPipelineTest, TheHeuristicAnswersWhenTheBackendFails) {
  ExecutableSkill s = object_skill("h", {"summary"});
  s.heuristic = [](const json& input) -> Result<json> { return json{{"summary", input["text"]}}; };
  RuleModel model([](const SkillRequest&, const CallOptions&) -> Result<ModelReply> {
    return Status::Unavailable("connection refused");
  });
  SkillGraphResult r = run_one({s}, model, "h", json{{"text", "from rules"}});
  const SkillOutcome& o = r.skills.at(0);
  EXPECT_EQ(o.status, SkillStatus::kSucceeded);
  EXPECT_EQ(o.backend, "heuristic");
  EXPECT_EQ(o.output, R"({"summary":"from rules"})");
  EXPECT_EQ(o.reason, "skill 'h': the backend failed: connection refused; the heuristic answered instead");
  EXPECT_EQ(model.calls(), 1u);
  EXPECT_TRUE(r.ok());
}

TEST(SkillPipelineTest, WithoutAHeuristicABackendFailureFailsAsABackendError) {
  RuleModel model(
      [](const SkillRequest&, const CallOptions&) -> Result<ModelReply> { return Status::Unavailable("HTTP 503"); });
  SkillGraphResult r = run_one({object_skill("a", {"summary"})}, model, "a");
  const SkillOutcome& o = r.skills.at(0);
  EXPECT_EQ(o.status, SkillStatus::kFailed);
  EXPECT_TRUE(o.backend_failed);
  EXPECT_EQ(o.error_code, ErrorCode::kUnavailable);
  EXPECT_EQ(o.reason, "skill 'a': the backend failed: HTTP 503");
  EXPECT_EQ(o.retries, 0);
  EXPECT_TRUE(r.backend_failed());
}

TEST(SkillPipelineTest, TheRulesModelUsesTheHeuristicWithoutAModelCallAndItsOutputIsValidated) {
  ExecutableSkill good = object_skill("good", {"summary"});
  good.heuristic = [](const json&) -> Result<json> { return json{{"summary", "fine"}}; };
  ExecutableSkill bad = object_skill("bad", {"summary"});
  bad.heuristic = [](const json&) -> Result<json> { return json{{"summary", 1}}; };
  ExecutableSkill none = object_skill("none", {"summary"});
  RuleModel model(script({}));
  SkillRunnerOptions o;
  o.rules_model = true;
  auto runner = SkillRunner::create({good, bad, none}, model, o);
  ASSERT_TRUE(runner.ok());
  SkillRunRequest req;
  req.ids = {"good", "bad", "none"};
  auto r = (*runner)->run(req, json::object());
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(model.calls(), 0u);
  ASSERT_EQ(r->skills.size(), 3u);
  EXPECT_EQ(r->skills[0].id, "bad");
  EXPECT_EQ(r->skills[0].status, SkillStatus::kFailed);
  EXPECT_EQ(r->skills[0].reason,
            "skill 'bad': its heuristic's output was rejected: the output does not match the output schema: /summary: "
            "expected string, got integer");
  EXPECT_EQ(r->skills[1].id, "good");
  EXPECT_EQ(r->skills[1].status, SkillStatus::kSucceeded);
  EXPECT_EQ(r->skills[1].backend, "heuristic");
  EXPECT_EQ(r->skills[2].id, "none");
  EXPECT_EQ(r->skills[2].status, SkillStatus::kFailed);
  EXPECT_EQ(r->skills[2].error_code, ErrorCode::kFailedPrecondition);
}

TEST(SkillPipelineTest, ASkillNamingAModelGetsTheFactorysClient) {
  ExecutableSkill s = object_skill("small", {"summary"});
  s.manifest.model = "ollama/tiny";
  RuleModel main_model(script({}), "main");
  std::vector<std::string> asked;
  SkillRunnerOptions o;
  o.model_factory = [&asked](std::string_view name) -> Result<std::unique_ptr<LlmClient>> {
    asked.emplace_back(name);
    return std::unique_ptr<LlmClient>(new RuleModel(script({R"({"summary": "tiny"})"}), "tiny-model"));
  };
  SkillGraphResult r = run_one({s}, main_model, "small", json::object(), o);
  EXPECT_EQ(asked, (std::vector<std::string>{"ollama/tiny"}));
  EXPECT_EQ(main_model.calls(), 0u);
  EXPECT_EQ(r.skills.at(0).status, SkillStatus::kSucceeded);
  EXPECT_EQ(r.skills.at(0).backend, "tiny-model");

  SkillRunnerOptions broken;
  broken.model_factory = [](std::string_view) -> Result<std::unique_ptr<LlmClient>> {
    return Status::InvalidArgument("unknown provider");
  };
  SkillGraphResult f = run_one({s}, main_model, "small", json::object(), broken);
  EXPECT_EQ(f.skills.at(0).status, SkillStatus::kFailed);
  EXPECT_TRUE(f.skills.at(0).backend_failed);
  EXPECT_EQ(f.skills.at(0).reason,
            "skill 'small': the backend failed: model 'ollama/tiny' cannot be used: unknown provider");
}

TEST(SkillPipelineTest, TheInputIsValidatedBeforeAnyModelCall) {
  ExecutableSkill s = object_skill("a", {"summary"});
  s.manifest.input_schema = R"({"type":"object","required":["text"],"properties":{"text":{"type":"string"}}})";
  RuleModel model(script({R"({"summary": "x"})"}));
  auto runner = SkillRunner::create({s}, model, {});
  ASSERT_TRUE(runner.ok());
  SkillRunRequest req;
  req.ids = {"a"};
  auto missing = (*runner)->run(req, json{{"txt", "typo"}});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().message(),
            "the input does not match the inputSchema of skill 'a': /text: missing required property");
  auto not_object = (*runner)->run(req, json::array());
  ASSERT_FALSE(not_object.ok());
  EXPECT_EQ(not_object.status().message(), "the input must be a JSON object, got array");
  EXPECT_EQ(model.calls(), 0u);
}

}  // namespace
}  // namespace keel
