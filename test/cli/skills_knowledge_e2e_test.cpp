// End-to-end tests of `keel skills list|show|import|enable|disable` and of knowledge skills in
// `keel run`: the real executable, its database under KEEL_HOME, the user folder under
// XDG_CONFIG_HOME, and local HTTP servers on 127.0.0.1.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "support/cli_runner.hpp"
#include "support/mock_llm_server.hpp"
#include "support/static_http_server.hpp"
#include "support/temp_dir.hpp"

namespace keel {
namespace {

using nlohmann::json;
using testing::CliOptions;
using testing::CliRun;
using testing::TempDir;

std::string skill_md(const std::string& name, const std::string& description, const std::string& extra = "",
                     const std::string& body = "") {
  return "---\nname: " + name + "\ndescription: " + description + "\n" + extra + "---\n" + body;
}

class SkillsKnowledgeE2eTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ws_.write(".keel/skills/gas/SKILL.md",
              skill_md("gas", "Current Ethereum gas prices", "triggers: [gas fee]\n", "L1 gas is 0.05-0.3 gwei.\n"));
    ws_.write(".keel/skills/gas/fees.md", "fee table");
    ws_.write(".agents/skills/zk/SKILL.md", skill_md("zk", "Zero-knowledge proofs"));
    ws_.write(".agents/skills/gas/SKILL.md", skill_md("gas", "hidden by the workspace's .keel copy"));
  }
  CliRun keel(const std::vector<std::string>& args) {
    CliOptions o;
    o.env["KEEL_HOME"] = home_.path().string();
    o.env["XDG_CONFIG_HOME"] = xdg_.path().string();
    o.cwd = ws_.path().string();
    return testing::run_cli(KEEL_BINARY, args, o);
  }
  std::string keel_skills() const { return (ws_.path() / ".keel/skills").string(); }

  TempDir home_;
  TempDir xdg_;
  TempDir ws_;
  TempDir src_;
};

TEST_F(SkillsKnowledgeE2eTest, ListShowsSkillsAndWarnsAboutBadOnes) {
  ws_.write(".keel/skills/broken/SKILL.md", "---\nname: broken\n---\n");
  xdg_.write("keel/skills/user-only/SKILL.md", skill_md("user-only", "From the user folder"));

  CliRun r = keel({"skills", "list"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto lines = testing::lines_of(r.out);
  ASSERT_EQ(lines.size(), 6u) << r.out;  // lines_of() leaves out the blank line between the tables
  EXPECT_TRUE(lines[0].starts_with("NAME ")) << lines[0];
  EXPECT_TRUE(lines[1].starts_with("gas  ")) << lines[1];
  EXPECT_NE(lines[1].find(" yes "), std::string::npos);
  EXPECT_NE(lines[1].find(".keel/skills/gas"), std::string::npos);
  EXPECT_NE(lines[1].find("Current Ethereum gas prices [triggers: gas fee]"), std::string::npos) << lines[1];
  EXPECT_TRUE(lines[2].starts_with("zk ")) << lines[2];
  EXPECT_TRUE(lines[3].starts_with("user-only ")) << lines[3];
  EXPECT_TRUE(lines[4].starts_with("EXECUTABLE  APPROVAL ")) << lines[4];
  EXPECT_TRUE(lines[5].starts_with("extract     advisory           built-in  ")) << lines[5];
  EXPECT_EQ(r.err, "keel: warning: " + keel_skills() +
                       "/broken/SKILL.md:2: the frontmatter has no description; add e.g. `description: what the "
                       "skill is for`\n");

  CliRun j = keel({"skills", "list", "--json"});
  ASSERT_EQ(j.exit_code, 0) << j.err;
  json skills = json::parse(j.out);
  ASSERT_EQ(skills.size(), 4u) << skills;
  EXPECT_EQ(skills[0]["kind"], "knowledge");
  EXPECT_EQ(skills[0]["name"], "gas");
  EXPECT_EQ(skills[3]["kind"], "executable");
  EXPECT_EQ(skills[3]["name"], "extract");
  EXPECT_EQ(skills[3]["where"], "built-in");
  EXPECT_EQ(skills[3]["approvalMode"], "advisory");
  EXPECT_EQ(skills[0]["description"], "Current Ethereum gas prices");
  EXPECT_EQ(skills[0]["enabled"], true);
  EXPECT_EQ(skills[0]["where"], ".keel/skills/gas");
  EXPECT_EQ(skills[0]["file"], keel_skills() + "/gas/SKILL.md");
  EXPECT_EQ(skills[0]["triggers"], json::array({"gas fee"}));
  EXPECT_EQ(skills[0]["resources"], json::array({"fees.md"}));
  EXPECT_EQ(skills[1]["where"], ".agents/skills/zk");
  EXPECT_EQ(skills[2]["source"], (xdg_.path() / "keel/skills").string());
}

TEST_F(SkillsKnowledgeE2eTest, ShowPrintsFrontmatterBodyAndFiles) {
  CliRun r = keel({"skills", "show", "gas"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "# gas (" + keel_skills() +
                       "/gas/SKILL.md, enabled)\n---\nname: gas\ndescription: Current "
                       "Ethereum gas prices\ntriggers: [gas fee]\n---\n\nL1 gas is 0.05-0.3 gwei.\n\nResource files:\n"
                       "- fees.md\n");
  CliRun missing = keel({"skills", "show", "gass"});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_EQ(missing.err, "keel: no knowledge skill named 'gass'; known skills: gas, zk\n");
}

TEST_F(SkillsKnowledgeE2eTest, DisableAndEnableAreRememberedForTheWorkspace) {
  CliRun off = keel({"skills", "disable", "zk"});
  ASSERT_EQ(off.exit_code, 0) << off.err;
  EXPECT_EQ(off.out, "disabled zk in " + ws_.path().string() + "\n");
  json skills = json::parse(keel({"skills", "list", "--json"}).out);
  EXPECT_EQ(skills[1]["name"], "zk");
  EXPECT_EQ(skills[1]["enabled"], false);
  EXPECT_EQ(skills[0]["enabled"], true);

  // Another workspace is not affected.
  TempDir other;
  other.write(".keel/skills/zk/SKILL.md", skill_md("zk", "z"));
  CliRun elsewhere = keel({"skills", "list", "--json", "--workspace", other.path().string()});
  EXPECT_EQ(json::parse(elsewhere.out)[0]["enabled"], true);

  ASSERT_EQ(keel({"skills", "enable", "zk"}).exit_code, 0);
  EXPECT_EQ(json::parse(keel({"skills", "list", "--json"}).out)[1]["enabled"], true);

  CliRun unknown = keel({"skills", "enable", "nope"});
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_EQ(unknown.err, "keel: no knowledge skill named 'nope'; known skills: gas, zk\n");
}

TEST_F(SkillsKnowledgeE2eTest, ImportCopiesAFolderAndRefusesToOverwriteWithoutForce) {
  src_.write("blobs/SKILL.md", skill_md("blobs", "EIP-4844 blobs"));
  src_.write("blobs/notes.md", "notes");
  CliRun r = keel({"skills", "import", (src_.path() / "blobs").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "imported blobs into " + keel_skills() + "/blobs\n");
  EXPECT_EQ(testing::read_file(ws_.path() / ".keel/skills/blobs/notes.md"), "notes");

  CliRun again = keel({"skills", "import", (src_.path() / "blobs").string()});
  EXPECT_EQ(again.exit_code, 2);
  EXPECT_EQ(again.err,
            "keel: a skill folder already exists at " + keel_skills() + "/blobs; add --force to replace it\n");
  EXPECT_EQ(keel({"skills", "import", "--force", (src_.path() / "blobs").string()}).exit_code, 0);

  CliRun user = keel({"skills", "import", "--user", (src_.path() / "blobs/SKILL.md").string()});
  ASSERT_EQ(user.exit_code, 0) << user.err;
  EXPECT_EQ(user.out, "imported blobs into " + (xdg_.path() / "keel/skills/blobs").string() + "\n");
  EXPECT_FALSE(std::filesystem::exists(xdg_.path() / "keel/skills/blobs/notes.md"));  // a file import: SKILL.md only

  src_.write("bad/SKILL.md", "---\nname: bad\ndescription: [x\n---\n");
  CliRun bad = keel({"skills", "import", (src_.path() / "bad").string()});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_TRUE(bad.err.starts_with("keel: " + (src_.path() / "bad/SKILL.md").string() + ":")) << bad.err;
  EXPECT_FALSE(std::filesystem::exists(ws_.path() / ".keel/skills/bad"));
}

TEST_F(SkillsKnowledgeE2eTest, ImportFetchesAnIndexFromAnAllowedHttpServer) {
  testing::StaticHttpServer server;
  ASSERT_TRUE(server.running());
  server.route("/skills/SKILL.md",
               testing::text_page("text/markdown", skill_md("ethskills", "Ethereum skills", "",
                                                            "- [Gas](gas/SKILL.md)\n- [L2s](l2s/SKILL.md)\n")));
  server.route("/skills/gas/SKILL.md", testing::text_page("text/markdown", skill_md("gas2", "Fetched gas")));
  server.route("/skills/l2s/SKILL.md", testing::text_page("text/markdown", skill_md("l2s", "Fetched layer 2s")));

  // Loopback is private: refused until the user config allows it.
  CliRun refused = keel({"skills", "import", server.url("/skills/SKILL.md")});
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.err.find("refused to connect to 127.0.0.1"), std::string::npos) << refused.err;
  EXPECT_EQ(server.request_count(), 0u);

  xdg_.write("keel/config.yaml", "tools:\n  web:\n    allowed: [\"127.0.0.1\"]\n");
  CliRun r = keel({"skills", "import", server.url("/skills/SKILL.md"), "--only", "l2s,gas2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "imported l2s into " + keel_skills() + "/l2s\nimported gas2 into " + keel_skills() + "/gas2\n");
  json skills = json::parse(keel({"skills", "list", "--json"}).out);
  ASSERT_EQ(skills.size(), 5u) << skills;  // four knowledge skills, then the built-in extract
  EXPECT_EQ(skills[4]["kind"], "executable");
  EXPECT_EQ(skills[1]["name"], "gas2");
  EXPECT_EQ(skills[1]["description"], "Fetched gas");
  EXPECT_EQ(skills[2]["name"], "l2s");

  CliRun whole = keel({"skills", "import", server.url("/skills/SKILL.md")});
  ASSERT_EQ(whole.exit_code, 0) << whole.err;
  EXPECT_NE(whole.out.find("ethskills is an index of 2 skills, imported with it: gas2, l2s"), std::string::npos)
      << whole.out;

  CliRun unknown = keel({"skills", "import", server.url("/skills/SKILL.md"), "--only", "wallets"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("lists no skill 'wallets'; it lists: gas2, l2s"), std::string::npos) << unknown.err;
}

TEST_F(SkillsKnowledgeE2eTest, RunDisclosesSkillsAndOffersLoadSkill) {
  testing::MockLlmServer server;
  ASSERT_TRUE(server.running());
  ws_.write(".keel/skills/broken/SKILL.md", "no frontmatter\n");
  ASSERT_EQ(keel({"skills", "disable", "zk"}).exit_code, 0);
  server.push(testing::mock_text("gas is cheap"));
  CliRun r = keel({"run", "--base-url", server.base_url(), "--model", "mock", "what is the gas fee today?"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("keel: warning: " + keel_skills() + "/broken/SKILL.md:1: no frontmatter"), std::string::npos)
      << r.err;
  auto bodies = server.request_bodies();
  ASSERT_EQ(bodies.size(), 1u);
  json request = json::parse(bodies[0]);
  const std::string system = request["messages"][0]["content"].get<std::string>();
  EXPECT_NE(system.find("- gas: Current Ethereum gas prices (matches this task; loaded below)\n"), std::string::npos)
      << system;
  EXPECT_NE(system.find("# Skill: gas (matches this task)\nL1 gas is 0.05-0.3 gwei."), std::string::npos) << system;
  EXPECT_EQ(system.find("Zero-knowledge"), std::string::npos) << "zk is disabled in this workspace";
  bool offered = false;
  for (const json& t : request["tools"]) offered = offered || t["function"]["name"] == "load_skill";
  EXPECT_TRUE(offered);
}

}  // namespace
}  // namespace keel
