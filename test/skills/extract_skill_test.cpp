// The built-in `extract` skill: its manifest, its guard (check) and its fallback (heuristic).
#include "skills/extract_skill.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "keel/executable_skill.hpp"

namespace keel {
namespace {

using nlohmann::json;

const ExecutableSkill& extract_skill() {
  static const ExecutableSkill skill = [] {
    for (ExecutableSkill& s : builtin_executable_skills()) {
      if (s.manifest.id == "extract") return s;
    }
    return ExecutableSkill{};
  }();
  return skill;
}

json input(const std::string& text, const std::string& target) {
  return json{{"text", text}, {"target", target}};
}

TEST(ExtractSkill, IsBuiltIn) {
  const std::vector<ExecutableSkill> skills = builtin_executable_skills();
  ASSERT_EQ(skills.size(), 1u);
  EXPECT_EQ(skills[0].manifest.id, "extract");
  EXPECT_EQ(make_extract_skill().manifest.id, "extract");
}

TEST(ExtractSkill, ManifestDescribesTheContract) {
  const ExecutableSkill& skill = extract_skill();
  const SkillManifest& m = skill.manifest;
  EXPECT_EQ(m.id, "extract");
  EXPECT_FALSE(m.description.empty());
  EXPECT_EQ(m.approval_mode, SkillApprovalMode::kAdvisory);
  EXPECT_EQ(m.timeout_ms, 60000);
  EXPECT_TRUE(skill.dir.empty());
  EXPECT_TRUE(static_cast<bool>(skill.check));
  EXPECT_TRUE(static_cast<bool>(skill.heuristic));

  const json in = json::parse(m.input_schema);
  EXPECT_EQ(in["type"], "object");
  EXPECT_EQ(in["required"], json::parse(R"(["text", "target"])"));
  EXPECT_EQ(in["properties"]["text"]["type"], "string");
  EXPECT_EQ(in["properties"]["target"]["enum"], json::parse(R"(["email", "url", "date", "entity"])"));

  const json out = json::parse(m.output_schema);
  EXPECT_EQ(out["type"], "object");
  EXPECT_EQ(out["additionalProperties"], false);
  EXPECT_EQ(out["maxProperties"], 1);
  for (const char* key : {"email", "url", "date", "entity"}) {
    EXPECT_EQ(out["properties"][key], json::parse(R"({"type": "array", "items": {"type": "string"}})")) << key;
  }

  EXPECT_NE(skill.instructions.find("verbatim"), std::string::npos);
  EXPECT_NE(skill.instructions.find("{\"email\": []}"), std::string::npos);
}

TEST(ExtractSkill, CheckRejectsAHallucinatedValue) {
  const Status s =
      extract_skill().check(json::parse(R"({"email": ["contact@example.com"]})"), input("Contact us anytime", "email"));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "HallucinationDetected: 'contact@example.com' not found in source text. Return only email addresses "
            "copied verbatim from the text ([] when there are none).");
}

TEST(ExtractSkill, CheckAcceptsAVerbatimValue) {
  const Status s = extract_skill().check(json::parse(R"({"email": ["hello@agent.rs"]})"),
                                         input("Contact us at hello@agent.rs", "email"));
  EXPECT_TRUE(s.ok()) << s.message();
  EXPECT_TRUE(
      extract_skill().check(json::parse(R"({"entity": ["Zo\u00EB"]})"), input("Ask Zoe\u0308.", "entity")).ok());
}

TEST(ExtractSkill, CheckNamesABadInput) {
  const Status s = extract_skill().check(json::parse(R"({"phone": []})"), input("call 555", "phone"));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(), "unknown extraction target 'phone': use one of email, url, date, entity");

  const Status missing = extract_skill().check(json::parse(R"({"email": []})"), json{{"text", 5}});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(missing.message(),
            "extract input must be {\"text\": \"...\", \"target\": \"email\" | \"url\" | \"date\" | \"entity\"}; got "
            "{\"text\":5}");
}

TEST(ExtractSkill, HeuristicExtractsWithoutAModel) {
  const json in = input("Mail <hello@agent.rs>, see https://agent.rs/docs. Launch: March 3, 2024.", "email");
  const Result<json> emails = extract_skill().heuristic(in);
  ASSERT_TRUE(emails.ok()) << emails.status().message();
  EXPECT_EQ(*emails, json::parse(R"({"email": ["hello@agent.rs"]})"));
  EXPECT_TRUE(extract_skill().check(*emails, in).ok());

  json url_in = in;
  url_in["target"] = "url";
  const Result<json> urls = extract_skill().heuristic(url_in);
  ASSERT_TRUE(urls.ok());
  EXPECT_EQ(*urls, json::parse(R"({"url": ["https://agent.rs/docs"]})"));
  EXPECT_TRUE(extract_skill().check(*urls, url_in).ok());

  json date_in = in;
  date_in["target"] = "date";
  const Result<json> dates = extract_skill().heuristic(date_in);
  ASSERT_TRUE(dates.ok());
  EXPECT_EQ(*dates, json::parse(R"({"date": ["March 3, 2024"]})"));

  const Result<json> none = extract_skill().heuristic(input("Contact us anytime", "email"));
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(*none, json::parse(R"({"email": []})"));
}

TEST(ExtractSkill, HeuristicSaysEntitiesNeedAModel) {
  const Result<json> r = extract_skill().heuristic(input("Ada Lovelace met Charles Babbage.", "entity"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kFailedPrecondition);
  EXPECT_NE(r.status().message().find("extracting entities needs a model"), std::string::npos);
}

}  // namespace
}  // namespace keel
