// skill.json parsing (every key and every error) and loading skill folders: frontmatter, precedence
// of folders, knowledge-only folders, duplicates, unknown dependencies and cycles.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "keel/skill_runner.hpp"
#include "support/temp_dir.hpp"

namespace keel {
namespace {

using nlohmann::json;
using testing::TempDir;

const json kOutput = {{"type", "object"}, {"properties", {{"n", {{"type", "integer"}}}}}};

// The skills loaded from folders (built-ins left out).
std::vector<ExecutableSkill> from_folders(Result<std::vector<ExecutableSkill>> loaded) {
  std::vector<ExecutableSkill> out;
  if (!loaded.ok()) return out;
  for (ExecutableSkill& s : *loaded) {
    if (!s.dir.empty()) out.push_back(std::move(s));
  }
  return out;
}

json minimal(const std::string& id = "scorer") {
  return {{"id", id}, {"outputSchema", kOutput}};
}

Status parse_error(const json& doc) {
  Result<SkillManifest> m = parse_skill_manifest(doc.dump(), "/s/skill.json");
  EXPECT_FALSE(m.ok()) << doc;
  return m.status();
}

TEST(SkillManifestTest, ReadsEveryKey) {
  json doc = {{"id", "grant-fit-scorer"},
              {"version", "0.1.0"},
              {"description", "Score candidates"},
              {"model", "ollama/qwen2.5:0.5b"},
              {"triggers", {"high-confidence-draft", "receiver-backlog"}},
              {"inputSchema", {{"type", "object"}, {"required", {"text"}}}},
              {"outputSchema", kOutput},
              {"approvalMode", "auto-run-eligible"},
              {"timeoutMs", 30000},
              {"maxTokens", 700},
              {"depends", {"opportunity-extractor"}},
              {"skipWhen", "no-candidates"},
              {"provides", {"scores"}},
              {"action", {{"tool", "fs_write"}, {"argumentsPointer", "/write"}}}};
  Result<SkillManifest> m = parse_skill_manifest(doc.dump(), "/s/skill.json");
  ASSERT_TRUE(m.ok()) << m.status().to_string();
  EXPECT_EQ(m->id, "grant-fit-scorer");
  EXPECT_EQ(m->version, "0.1.0");
  EXPECT_EQ(m->description, "Score candidates");
  EXPECT_EQ(m->model, "ollama/qwen2.5:0.5b");
  EXPECT_EQ(m->triggers, (std::vector<std::string>{"high-confidence-draft", "receiver-backlog"}));
  EXPECT_EQ(json::parse(m->input_schema), doc["inputSchema"]);
  EXPECT_EQ(json::parse(m->output_schema), kOutput);
  EXPECT_EQ(m->approval_mode, SkillApprovalMode::kAutoRunEligible);
  EXPECT_EQ(m->timeout_ms, 30000);
  EXPECT_EQ(m->max_tokens, std::optional<int>(700));
  EXPECT_EQ(m->depends, (std::vector<std::string>{"opportunity-extractor"}));
  EXPECT_EQ(m->skip_when, (std::vector<std::string>{"no-candidates"}));
  EXPECT_EQ(m->provides, (std::vector<std::string>{"scores"}));
  ASSERT_TRUE(m->action.has_value());
  EXPECT_EQ(m->action->tool, "fs_write");
  EXPECT_EQ(m->action->arguments_pointer, "/write");
}

TEST(SkillManifestTest, DefaultsOfOptionalKeys) {
  Result<SkillManifest> m = parse_skill_manifest(minimal().dump(), "/s/skill.json");
  ASSERT_TRUE(m.ok()) << m.status().to_string();
  EXPECT_EQ(m->approval_mode, SkillApprovalMode::kAdvisory);
  EXPECT_EQ(m->timeout_ms, 60000);
  EXPECT_EQ(m->max_tokens, std::nullopt);
  EXPECT_EQ(m->input_schema, "");
  EXPECT_TRUE(m->skip_when.empty());
  EXPECT_FALSE(m->action.has_value());
  json list = minimal();
  list["skipWhen"] = {"no-a", "has-b"};
  Result<SkillManifest> l = parse_skill_manifest(list.dump(), "/s/skill.json");
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->skip_when, (std::vector<std::string>{"no-a", "has-b"}));
}

TEST(SkillManifestTest, EveryMistakeNamesTheFileAndKey) {
  struct Case {
    json doc;
    std::string message;
  };
  auto with = [](const char* key, json value) {
    json d = minimal();
    d[key] = std::move(value);
    return d;
  };
  json no_output = minimal();
  no_output.erase("outputSchema");
  json no_id = minimal();
  no_id.erase("id");
  std::vector<Case> cases = {
      {with("dependss", json::array()),
       "/s/skill.json: key 'dependss': is not a known key (known: id, version, description, model, triggers, "
       "inputSchema, outputSchema, approvalMode, timeoutMs, maxTokens, depends, skipWhen, provides, action)"},
      {no_id, "/s/skill.json: key 'id': is missing"},
      {with("id", "Bad_Id"),
       "/s/skill.json: key 'id': 'Bad_Id' is not a skill id: use lowercase letters, digits and '-' (not first), at "
       "most 64 characters"},
      {with("id", "-lead"),
       "/s/skill.json: key 'id': '-lead' is not a skill id: use lowercase letters, digits and '-' (not first), at "
       "most 64 characters"},
      {with("id", 7), "/s/skill.json: key 'id': must be a string"},
      {no_output,
       "/s/skill.json: key 'outputSchema': is missing: every executable skill declares the JSON Schema of its output"},
      {with("outputSchema", "schema.json"), "/s/skill.json: key 'outputSchema': must be a JSON Schema object"},
      {with("approvalMode", "sometimes"),
       "/s/skill.json: key 'approvalMode': 'sometimes' is not an approval mode (use advisory, proposal or "
       "auto-run-eligible)"},
      {with("approvalMode", "auto-run-eligible"),
       "/s/skill.json: key 'approvalMode': auto-run-eligible needs an action: the tool to run (\"action\": {\"tool\": "
       "...})"},
      {with("timeoutMs", 0), "/s/skill.json: key 'timeoutMs': must be an integer from 1 to 3600000, got 0"},
      {with("maxTokens", "many"), "/s/skill.json: key 'maxTokens': must be an integer from 1 to 1000000, got \"many\""},
      {with("depends", "a"), "/s/skill.json: key 'depends': must be an array of strings"},
      {with("depends", {"Nope!"}), "/s/skill.json: key 'depends': 'Nope!' is not a skill id"},
      {with("depends", {"scorer"}), "/s/skill.json: key 'depends': skill cycle: scorer → scorer"},
      {with("skipWhen", "when-empty"),
       "/s/skill.json: key 'skipWhen': skipWhen 'when-empty' is not a condition: write \"no-KEY\" or \"has-KEY\""},
      {with("skipWhen", json::array({1})), "/s/skill.json: key 'skipWhen': must be a string or an array of strings"},
      {with("triggers", {""}), "/s/skill.json: key 'triggers': has an empty string"},
      {with("action", {{"tool", "fs_write"}, {"args", "/x"}}),
       "/s/skill.json: key 'action.args': is not a known key (known: tool, argumentsPointer)"},
      {with("action", {{"argumentsPointer", "/x"}}),
       "/s/skill.json: key 'action.tool': is missing: name the tool the action calls"},
      {with("action", {{"tool", "t"}, {"argumentsPointer", "x"}}),
       "/s/skill.json: key 'action.argumentsPointer': must be \"\" (the whole output) or a JSON Pointer such as "
       "\"/arguments\""},
      {json::array(), "/s/skill.json: must hold one JSON object"},
  };
  for (const Case& c : cases) {
    Status s = parse_error(c.doc);
    EXPECT_EQ(s.code(), ErrorCode::kInvalidArgument);
    EXPECT_EQ(s.message(), c.message) << c.doc;
  }
}

TEST(SkillManifestTest, SchemasThatDoNotCompileAndBrokenJsonAreErrors) {
  json bad_type = minimal();
  bad_type["outputSchema"] = {{"type", "integr"}};
  Status s = parse_error(bad_type);
  EXPECT_EQ(s.message().rfind("/s/skill.json: key 'outputSchema': is not a usable JSON Schema: ", 0), 0u)
      << s.message();
  json bad_input = minimal();
  bad_input["inputSchema"] = {{"properties", 5}};
  Status s2 = parse_error(bad_input);
  EXPECT_EQ(s2.message().rfind("/s/skill.json: key 'inputSchema': is not a usable JSON Schema: ", 0), 0u)
      << s2.message();
  Result<SkillManifest> broken = parse_skill_manifest("{\"id\": \"x\",", "/s/skill.json");
  ASSERT_FALSE(broken.ok());
  EXPECT_EQ(broken.status().message().rfind("/s/skill.json: is not valid JSON: ", 0), 0u) << broken.status().message();
}

class SkillLoaderTest : public ::testing::Test {
 protected:
  void write_skill(const TempDir& root, const std::string& folder, const json& manifest, const std::string& md) {
    root.write(folder + "/skill.json", manifest.dump(2));
    root.write(folder + "/SKILL.md", md);
  }
  std::vector<std::string> dirs() const { return {high_.path().string(), low_.path().string()}; }
  TempDir high_, low_;
};

TEST_F(SkillLoaderTest, LoadsFoldersStripsFrontmatterAndSkipsKnowledgeSkills) {
  write_skill(high_, "b-skill", minimal("bravo"), "---\nname: bravo\ndescription: x\n---\nDo the bravo thing.\n");
  write_skill(high_, "a-skill", minimal("alpha"), "No frontmatter here.\n");
  high_.write("knowledge/SKILL.md", "---\nname: gas\n---\nGas is cheap.\n");  // knowledge skill: skipped
  high_.write("empty/notes.txt", "nothing");
  Result<std::vector<ExecutableSkill>> loaded = load_executable_skills(dirs());
  ASSERT_TRUE(loaded.ok()) << loaded.status().to_string();
  std::vector<ExecutableSkill> skills = from_folders(std::move(loaded));
  ASSERT_EQ(skills.size(), 2u);
  EXPECT_EQ(skills[0].manifest.id, "alpha");
  EXPECT_EQ(skills[0].instructions, "No frontmatter here.\n");
  EXPECT_EQ(skills[0].dir, (high_.path() / "a-skill").string());
  EXPECT_EQ(skills[1].manifest.id, "bravo");
  EXPECT_EQ(skills[1].instructions, "Do the bravo thing.\n");
}

TEST_F(SkillLoaderTest, AnEarlierFolderHidesTheSameIdInALaterOne) {
  json high = minimal("shared");
  high["description"] = "from the workspace";
  json low = minimal("shared");
  low["description"] = "from the user folder";
  write_skill(high_, "shared", high, "high");
  write_skill(low_, "shared", low, "low");
  write_skill(low_, "only-low", minimal("only-low"), "low only");
  Result<std::vector<ExecutableSkill>> loaded = load_executable_skills(dirs());
  ASSERT_TRUE(loaded.ok()) << loaded.status().to_string();
  std::vector<ExecutableSkill> skills = from_folders(std::move(loaded));
  ASSERT_EQ(skills.size(), 2u);
  EXPECT_EQ(skills[0].manifest.id, "only-low");
  EXPECT_EQ(skills[1].manifest.id, "shared");
  EXPECT_EQ(skills[1].manifest.description, "from the workspace");
  EXPECT_EQ(skills[1].instructions, "high");
}

TEST_F(SkillLoaderTest, AFolderSkillHidesTheBuiltInOfTheSameId) {
  std::vector<ExecutableSkill> builtins = builtin_executable_skills();
  ASSERT_FALSE(builtins.empty());
  const std::string id = builtins.front().manifest.id;
  ASSERT_EQ(id, "extract");
  json own = minimal(id);
  own["description"] = "the workspace's own";
  write_skill(high_, "own", own, "mine");
  Result<std::vector<ExecutableSkill>> loaded = load_executable_skills(dirs());
  ASSERT_TRUE(loaded.ok()) << loaded.status().to_string();
  int found = 0;
  for (const ExecutableSkill& s : *loaded) {
    if (s.manifest.id != id) continue;
    ++found;
    EXPECT_EQ(s.manifest.description, "the workspace's own");
    EXPECT_EQ(s.dir, (high_.path() / "own").string());
  }
  EXPECT_EQ(found, 1);
}

TEST_F(SkillLoaderTest, MissingFoldersAreFine) {
  std::vector<std::string> none = {(high_.path() / "nope").string()};
  Result<std::vector<ExecutableSkill>> skills = load_executable_skills(none);
  ASSERT_TRUE(skills.ok());
  EXPECT_EQ(skills->size(), builtin_executable_skills().size());
}

TEST_F(SkillLoaderTest, LoadErrorsNameTheFile) {
  write_skill(high_, "x", minimal("x"), "---\nname: x\nno end\n");
  Result<std::vector<ExecutableSkill>> fm = load_executable_skills(dirs());
  ASSERT_FALSE(fm.ok());
  EXPECT_EQ(fm.status().message(), (high_.path() / "x/SKILL.md").string() +
                                       ": the frontmatter opened by '---' on line 1 is never closed by a '---' line");

  TempDir only_json;
  only_json.write("y/skill.json", minimal("y").dump());
  std::vector<std::string> d1 = {only_json.path().string()};
  Result<std::vector<ExecutableSkill>> no_md = load_executable_skills(d1);
  ASSERT_FALSE(no_md.ok());
  EXPECT_EQ(no_md.status().message(), (only_json.path() / "y").string() +
                                          ": has skill.json but no SKILL.md; write the skill's instructions there");

  TempDir bad_key;
  json typo = minimal("z");
  typo["provide"] = json::array();
  write_skill(bad_key, "z", typo, "z");
  std::vector<std::string> d2 = {bad_key.path().string()};
  Result<std::vector<ExecutableSkill>> typo_r = load_executable_skills(d2);
  ASSERT_FALSE(typo_r.ok());
  EXPECT_EQ(typo_r.status().message().rfind((bad_key.path() / "z/skill.json").string() + ": key 'provide': ", 0), 0u)
      << typo_r.status().message();
}

TEST_F(SkillLoaderTest, TwoFoldersOfOneDirectoryWithTheSameIdAreAnError) {
  write_skill(high_, "one", minimal("same"), "1");
  write_skill(high_, "two", minimal("same"), "2");
  Result<std::vector<ExecutableSkill>> r = load_executable_skills(dirs());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), (high_.path() / "one/skill.json").string() + " and " +
                                      (high_.path() / "two/skill.json").string() +
                                      " both define skill 'same'; rename one of them");
}

TEST_F(SkillLoaderTest, UnknownDependencyAndCyclesFailAtLoadTime) {
  json a = minimal("a");
  a["depends"] = {"ghost"};
  write_skill(high_, "a", a, "a");
  Result<std::vector<ExecutableSkill>> unknown = load_executable_skills(dirs());
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().message(),
            (high_.path() / "a/skill.json").string() + ": key 'depends': 'ghost' is not a loaded skill");

  TempDir cyc;
  json c1 = minimal("c1");
  c1["depends"] = {"c2"};
  json c2 = minimal("c2");
  c2["depends"] = {"c3"};
  json c3 = minimal("c3");
  c3["depends"] = {"c1"};
  write_skill(cyc, "c1", c1, "1");
  write_skill(cyc, "c2", c2, "2");
  write_skill(cyc, "c3", c3, "3");
  std::vector<std::string> d = {cyc.path().string()};
  Result<std::vector<ExecutableSkill>> cycle = load_executable_skills(d);
  ASSERT_FALSE(cycle.ok());
  EXPECT_EQ(cycle.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(cycle.status().message(), "skill cycle: c1 → c2 → c3 → c1; remove one of these depends");
}

}  // namespace
}  // namespace keel
