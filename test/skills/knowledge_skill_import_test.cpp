// Importing knowledge skills: from a folder, a SKILL.md file and a local HTTP server; indexes
// whole or with --only; refusals (bad skill, existing folder, escaping links, guarded addresses).
#include "knowledge/knowledge_skill_import.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "keel/knowledge_skills.hpp"
#include "support/static_http_server.hpp"
#include "support/temp_dir.hpp"

namespace keel {
namespace {

namespace fs = std::filesystem;
using detail::import_knowledge_skills;
using detail::KnowledgeImportOptions;
using detail::KnowledgeImportReport;
using testing::read_file;
using testing::TempDir;

std::string skill_md(const std::string& name, const std::string& description, const std::string& body = "") {
  return "---\nname: " + name + "\ndescription: " + description + "\n---\n" + body;
}

const std::string kIndex =
    skill_md("ethskills", "Ethereum skills index", "- [Gas](gas/SKILL.md)\n- [L2s](l2s/SKILL.md)\n");

class KnowledgeSkillImportTest : public ::testing::Test {
 protected:
  KnowledgeImportOptions options(const std::string& source) const {
    KnowledgeImportOptions o;
    o.source = source;
    o.skills_dir = (dest_.path() / ".keel/skills").string();
    o.web.timeout_ms = 5000;
    return o;
  }
  fs::path dest(const std::string& rel) const { return dest_.path() / ".keel/skills" / rel; }
  std::vector<std::string> files_under(const std::string& rel) const {
    std::vector<std::string> out;
    for (const auto& e : fs::recursive_directory_iterator(dest(rel))) {
      if (e.is_regular_file()) out.push_back(e.path().lexically_relative(dest(rel)).generic_string());
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  TempDir src_;
  TempDir dest_;
};

TEST_F(KnowledgeSkillImportTest, AFolderIsCopiedUnderTheSkillsName) {
  src_.write("gas-skill/SKILL.md", skill_md("gas", "gas prices"));
  src_.write("gas-skill/references/fees.md", "fees");
  src_.write("gas-skill/.git/HEAD", "hidden");
  fs::create_symlink("/etc/hostname", src_.path() / "gas-skill/host");

  Result<KnowledgeImportReport> r = import_knowledge_skills(options((src_.path() / "gas-skill").string()));
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  ASSERT_EQ(r->imported.size(), 1u);
  EXPECT_EQ(r->imported[0].name, "gas");
  EXPECT_EQ(r->imported[0].folder, dest("gas").string());
  EXPECT_TRUE(r->index_skills.empty());
  ASSERT_EQ(r->warnings.size(), 1u);
  EXPECT_EQ(r->warnings[0], (src_.path() / "gas-skill/host").string() + ": a symbolic link; left out");
  EXPECT_EQ(files_under("gas"), (std::vector<std::string>{"SKILL.md", "references/fees.md"}));
  EXPECT_EQ(read_file(dest("gas/SKILL.md")), skill_md("gas", "gas prices"));
  // No staging folder is left behind.
  EXPECT_EQ(std::distance(fs::directory_iterator(dest("")), fs::directory_iterator()), 1);
}

TEST_F(KnowledgeSkillImportTest, AnExistingSkillIsReplacedOnlyWithForce) {
  src_.write("gas/SKILL.md", skill_md("gas", "new gas"));
  dest_.write(".keel/skills/gas/SKILL.md", skill_md("gas", "old gas"));
  dest_.write(".keel/skills/gas/old-notes.md", "old");

  Result<KnowledgeImportReport> refused = import_knowledge_skills(options((src_.path() / "gas/SKILL.md").string()));
  EXPECT_EQ(refused.status().code(), ErrorCode::kFailedPrecondition);
  EXPECT_EQ(refused.status().message(),
            "a skill folder already exists at " + dest("gas").string() + "; add --force to replace it");
  EXPECT_EQ(read_file(dest("gas/SKILL.md")), skill_md("gas", "old gas"));

  KnowledgeImportOptions o = options((src_.path() / "gas/SKILL.md").string());
  o.force = true;
  ASSERT_TRUE(import_knowledge_skills(o).ok());
  EXPECT_EQ(files_under("gas"), (std::vector<std::string>{"SKILL.md"}));
  EXPECT_EQ(read_file(dest("gas/SKILL.md")), skill_md("gas", "new gas"));
}

TEST_F(KnowledgeSkillImportTest, ABadSkillIsRefusedWithTheParsersMessage) {
  src_.write("bad/SKILL.md", "---\nname: bad\n---\nbody\n");
  Result<KnowledgeImportReport> r = import_knowledge_skills(options((src_.path() / "bad").string()));
  EXPECT_EQ(r.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(r.status().message(), (src_.path() / "bad/SKILL.md").string() +
                                      ":2: the frontmatter has no description; add e.g. `description: what the skill "
                                      "is for`");
  EXPECT_FALSE(fs::exists(dest("")));

  EXPECT_EQ(import_knowledge_skills(options((src_.path() / "nothing").string())).status().code(),
            ErrorCode::kInvalidArgument);
  src_.write("plain/README.md", "no skill");
  EXPECT_EQ(import_knowledge_skills(options((src_.path() / "plain").string())).status().message(),
            "cannot import '" + (src_.path() / "plain").string() +
                "': the folder has no SKILL.md (a skill is a folder holding SKILL.md)");
  EXPECT_EQ(import_knowledge_skills(options("ftp://example.com/SKILL.md")).status().message(),
            "cannot import 'ftp://example.com/SKILL.md': only http and https URLs are fetched");
}

TEST_F(KnowledgeSkillImportTest, AnIndexFolderIsImportedWholeOrOnlyThePickedSkills) {
  src_.write("eth/SKILL.md", kIndex);
  src_.write("eth/gas/SKILL.md", skill_md("gas", "gas prices"));
  src_.write("eth/gas/fees.md", "fees");
  src_.write("eth/l2s/SKILL.md", skill_md("l2s", "layer 2s"));

  Result<KnowledgeImportReport> whole = import_knowledge_skills(options((src_.path() / "eth").string()));
  ASSERT_TRUE(whole.ok()) << whole.status().to_string();
  EXPECT_EQ(whole->index_skills, (std::vector<std::string>{"gas", "l2s"}));
  EXPECT_EQ(files_under("ethskills"),
            (std::vector<std::string>{"SKILL.md", "gas/SKILL.md", "gas/fees.md", "l2s/SKILL.md"}));

  KnowledgeImportOptions o = options((src_.path() / "eth").string());
  o.only = {"gas"};
  Result<KnowledgeImportReport> only = import_knowledge_skills(o);
  ASSERT_TRUE(only.ok()) << only.status().to_string();
  ASSERT_EQ(only->imported.size(), 1u);
  EXPECT_EQ(only->imported[0].folder, dest("gas").string());
  EXPECT_EQ(files_under("gas"), (std::vector<std::string>{"SKILL.md", "fees.md"}));

  // Discovery then sees the index's skills and the separately imported one (which hides nothing:
  // the first folder by name wins, and "ethskills/gas" is reached through the index).
  std::string d = dest("").string();
  d.pop_back();
  KnowledgeSkillSet set = load_knowledge_skills(std::span<const std::string>(&d, 1));
  EXPECT_EQ(set.names(), (std::vector<std::string>{"ethskills", "gas", "l2s"}));

  o.only = {"wallets"};
  EXPECT_EQ(import_knowledge_skills(o).status().message(),
            "the index " + (src_.path() / "eth/SKILL.md").string() + " lists no skill 'wallets'; it lists: gas, l2s");
  KnowledgeImportOptions plain = options((src_.path() / "eth/gas").string());
  plain.only = {"gas"};
  EXPECT_EQ(import_knowledge_skills(plain).status().message(),
            (src_.path() / "eth/gas/SKILL.md").string() +
                " links to no other SKILL.md, so --only has nothing to pick from; import it without --only");
}

class KnowledgeSkillUrlImportTest : public KnowledgeSkillImportTest {
 protected:
  void SetUp() override {
    ASSERT_TRUE(server_.running());
    server_.route("/eth/SKILL.md",
                  testing::text_page("text/markdown",
                                     skill_md("ethskills", "index",
                                              "- [Gas](gas/SKILL.md)\n- [L2s](" + server_.url("/eth/l2s/SKILL.md") +
                                                  ")\n- [up](../secret/SKILL.md)\n- [broken](broken/SKILL.md)\n")));
    server_.route("/eth/gas/SKILL.md", testing::text_page("text/markdown", skill_md("gas", "gas prices")));
    server_.route("/eth/l2s/SKILL.md", testing::text_page("text/markdown", skill_md("l2s", "layer 2s")));
    server_.route("/eth/broken/SKILL.md", testing::text_page("text/markdown", "not a skill"));
    server_.route("/secret/SKILL.md", testing::text_page("text/markdown", skill_md("secret", "outside")));
  }
  KnowledgeImportOptions url_options(const std::string& path) const {
    KnowledgeImportOptions o = options(server_.url(path));
    o.web.allowed = {"127.0.0.1"};
    return o;
  }
  testing::StaticHttpServer server_;
};

TEST_F(KnowledgeSkillUrlImportTest, AnIndexIsFetchedWithTheSubSkillsBelowIt) {
  Result<KnowledgeImportReport> r = import_knowledge_skills(url_options("/eth/SKILL.md"));
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  ASSERT_EQ(r->imported.size(), 1u);
  EXPECT_EQ(r->imported[0].name, "ethskills");
  EXPECT_EQ(r->index_skills, (std::vector<std::string>{"gas", "l2s"}));
  EXPECT_EQ(files_under("ethskills"), (std::vector<std::string>{"SKILL.md", "gas/SKILL.md", "l2s/SKILL.md"}));
  EXPECT_EQ(read_file(dest("ethskills/l2s/SKILL.md")), skill_md("l2s", "layer 2s"));
  ASSERT_EQ(r->warnings.size(), 2u);
  EXPECT_EQ(r->warnings[0], server_.url("/eth/SKILL.md") +
                                ": the link to ../secret/SKILL.md is not followed: it is "
                                "not below the index's URL folder " +
                                server_.url("/eth/"));
  EXPECT_TRUE(r->warnings[1].starts_with(server_.url("/eth/broken/SKILL.md") + ":1: no frontmatter")) << r->warnings[1];
  for (const auto& req : server_.requests()) EXPECT_NE(req.target, "/secret/SKILL.md");
}

TEST_F(KnowledgeSkillUrlImportTest, OnlyPicksSubSkillsIntoTheirOwnFolders) {
  KnowledgeImportOptions o = url_options("/eth/SKILL.md");
  o.only = {"l2s", "gas"};
  Result<KnowledgeImportReport> r = import_knowledge_skills(o);
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  ASSERT_EQ(r->imported.size(), 2u);
  EXPECT_EQ(r->imported[0].name, "l2s");
  EXPECT_EQ(r->imported[1].name, "gas");
  EXPECT_EQ(files_under("l2s"), (std::vector<std::string>{"SKILL.md"}));
  EXPECT_EQ(read_file(dest("gas/SKILL.md")), skill_md("gas", "gas prices"));
  EXPECT_FALSE(fs::exists(dest("ethskills")));
}

TEST_F(KnowledgeSkillUrlImportTest, TheAddressGuardAndHttpErrorsRefuseTheImport) {
  KnowledgeImportOptions guarded = options(server_.url("/eth/SKILL.md"));  // 127.0.0.1 not allowed
  Result<KnowledgeImportReport> refused = import_knowledge_skills(guarded);
  EXPECT_EQ(refused.status().code(), ErrorCode::kPermissionDenied) << refused.status().to_string();
  EXPECT_EQ(server_.request_count(), 0u);

  Result<KnowledgeImportReport> missing = import_knowledge_skills(url_options("/nope/SKILL.md"));
  EXPECT_EQ(missing.status().code(), ErrorCode::kNotFound);
  EXPECT_EQ(missing.status().message(), "fetching " + server_.url("/nope/SKILL.md") + " answered HTTP 404 Not Found");

  Result<KnowledgeImportReport> bad = import_knowledge_skills(url_options("/eth/broken/SKILL.md"));
  EXPECT_EQ(bad.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_FALSE(fs::exists(dest("")));
}

}  // namespace
}  // namespace keel
