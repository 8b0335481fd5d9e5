// load_skill: a skill's body with its file list, a resource file, and every way out of the
// skill's folder refused; disabled and unknown skills.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "keel/knowledge_skills.hpp"
#include "support/temp_dir.hpp"

namespace keel {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

class LoadSkillToolTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_.write("skills/gas/SKILL.md", "---\nname: gas\ndescription: gas prices\n---\nUse EIP-1559 fields.\n");
    dir_.write("skills/gas/references/fees.md", "base fee + priority fee\n");
    dir_.write("skills/zk/SKILL.md", "---\nname: zk\ndescription: zero knowledge\n---\nProofs.\n");
    dir_.write("skills/old/SKILL.md", "---\nname: old\ndescription: outdated\n---\nStale.\n");
    dir_.write("private/key.txt", "secret");
    fs::create_symlink(dir_.path() / "private/key.txt", dir_.path() / "skills/gas/key.txt");
    std::string d = (dir_.path() / "skills").string();
    set_ = load_knowledge_skills(std::span<const std::string>(&d, 1));
    ASSERT_EQ(set_.skills.size(), 3u);
    SkillSetting off;
    off.skill = "old";
    off.enabled = false;
    apply_skill_settings(set_, std::span<const SkillSetting>(&off, 1));
    ASSERT_TRUE(register_load_skill_tool(registry_, set_.skills).ok());
  }

  Result<std::string> call(const nlohmann::json& args) {
    Tool* tool = registry_.find("load_skill");
    EXPECT_NE(tool, nullptr);
    EXPECT_TRUE(registry_.validate_arguments("load_skill", args).ok()) << args;
    return tool->execute(args, ToolContext{});
  }

  TempDir dir_;
  KnowledgeSkillSet set_;
  ToolRegistry registry_;
};

TEST_F(LoadSkillToolTest, IsAReadOnlyParallelLowRiskTool) {
  const ToolSpec& spec = registry_.find("load_skill")->spec();
  EXPECT_TRUE(spec.read_only);
  EXPECT_TRUE(spec.concurrency_safe);
  EXPECT_EQ(spec.risk, Risk::kLow);
  EXPECT_FALSE(registry_.validate_arguments("load_skill", nlohmann::json::object()).ok());
  EXPECT_EQ(register_load_skill_tool(registry_, {}).code(), ErrorCode::kInvalidArgument);  // already there
}

TEST_F(LoadSkillToolTest, ReturnsTheBodyAndListsTheSkillsFiles) {
  Result<std::string> body = call({{"name", "gas"}});
  ASSERT_TRUE(body.ok()) << body.status().to_string();
  EXPECT_EQ(*body,
            "# Skill: gas\nUse EIP-1559 fields.\n\nFiles of this skill (read one with load_skill {\"name\": \"gas\", "
            "\"file\": PATH}):\n- references/fees.md");
  Result<std::string> zk = call({{"name", "zk"}});
  ASSERT_TRUE(zk.ok());
  EXPECT_EQ(*zk, "# Skill: zk\nProofs.");
}

TEST_F(LoadSkillToolTest, ReadsAFileInsideTheSkillsFolder) {
  Result<std::string> fees = call({{"name", "gas"}, {"file", "references/fees.md"}});
  ASSERT_TRUE(fees.ok()) << fees.status().to_string();
  EXPECT_EQ(*fees, "base fee + priority fee\n");
  Result<std::string> dotted = call({{"name", "gas"}, {"file", "./references/fees.md"}});
  ASSERT_TRUE(dotted.ok()) << dotted.status().to_string();
  EXPECT_EQ(*dotted, "base fee + priority fee\n");
}

TEST_F(LoadSkillToolTest, RefusesPathsThatLeaveTheSkillsFolder) {
  Result<std::string> up = call({{"name", "gas"}, {"file", "../zk/SKILL.md"}});
  EXPECT_EQ(up.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(up.status().message(),
            "file '../zk/SKILL.md' goes up with '..'; give a path inside the skill's folder, "
            "e.g. one listed under \"Files of this skill\"");
  Result<std::string> absolute = call({{"name", "gas"}, {"file", (dir_.path() / "private/key.txt").string()}});
  EXPECT_EQ(absolute.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(absolute.status().message().find("is an absolute path"), std::string::npos);
  Result<std::string> linked = call({{"name", "gas"}, {"file", "key.txt"}});
  EXPECT_EQ(linked.status().code(), ErrorCode::kPermissionDenied);
  EXPECT_EQ(linked.status().message(),
            "file 'key.txt' leads outside the folder of skill 'gas' (a symbolic link); "
            "only files inside it can be read");
  Result<std::string> missing = call({{"name", "gas"}, {"file", "nope.md"}});
  EXPECT_EQ(missing.status().code(), ErrorCode::kNotFound);
  Result<std::string> folder = call({{"name", "gas"}, {"file", "references"}});
  EXPECT_EQ(folder.status().code(), ErrorCode::kInvalidArgument);
}

TEST_F(LoadSkillToolTest, RefusesBinaryFiles) {
  dir_.write("skills/gas/blob.bin", std::string("ab\0cd", 5));
  Result<std::string> bin = call({{"name", "gas"}, {"file", "blob.bin"}});
  EXPECT_EQ(bin.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(bin.status().message(), "'blob.bin' of skill 'gas' is a binary file; only text files can be loaded");
}

TEST_F(LoadSkillToolTest, RefusesADisabledSkillAndListsTheEnabledOnesForAnUnknownName) {
  Result<std::string> old = call({{"name", "old"}});
  EXPECT_EQ(old.status().code(), ErrorCode::kPermissionDenied);
  EXPECT_EQ(old.status().message(),
            "skill 'old' is disabled in this workspace; use another skill (gas, zk) or go on without it");
  Result<std::string> old_file = call({{"name", "old"}, {"file", "SKILL.md"}});
  EXPECT_EQ(old_file.status().code(), ErrorCode::kPermissionDenied);
  Result<std::string> unknown = call({{"name", "gass"}});
  EXPECT_EQ(unknown.status().code(), ErrorCode::kNotFound);
  EXPECT_EQ(unknown.status().message(), "no skill named 'gass'; available skills: gas, zk");
}

}  // namespace
}  // namespace keel
