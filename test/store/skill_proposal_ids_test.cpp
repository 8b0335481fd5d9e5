// Skill proposals' public ids: 128 random bits, found only within their workspace, and given to
// the proposals of a database from before they existed (schema version 5) when it is migrated.
#include <sqlite3.h>

#include <set>

#include "store/migrations.hpp"
#include "store_test_util.hpp"

namespace keel::testing {
namespace {

bool public_id_well_formed(const std::string& id) {
  return id.size() == 35 && id.rfind("sp_", 0) == 0 && id.find_first_not_of("0123456789abcdef", 3) == std::string::npos;
}

SkillProposal new_proposal(const std::string& skill, const std::string& ws) {
  SkillProposal p;
  p.workspace = ws;
  p.skill = skill;
  p.summary = "do " + skill;
  return p;
}

using SkillProposalIdsTest = StoreTest;

TEST_P(SkillProposalIdsTest, EachProposalGetsAnUnguessablePublicIdFoundOnlyInItsWorkspace) {
  auto a = store_->add_skill_proposal(new_proposal("first", "/ws"));
  auto b = store_->add_skill_proposal(new_proposal("second", "/ws"));
  auto c = store_->add_skill_proposal(new_proposal("theirs", "/other"));
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  std::string pa = store_->get_skill_proposal(*a)->public_id;
  std::string pb = store_->get_skill_proposal(*b)->public_id;
  std::string pc = store_->get_skill_proposal(*c)->public_id;
  for (const std::string& id : {pa, pb, pc}) EXPECT_TRUE(public_id_well_formed(id)) << id;
  EXPECT_EQ(std::set<std::string>({pa, pb, pc}).size(), 3u);

  auto found = store_->find_skill_proposal("/ws", pb);
  ASSERT_TRUE(found.ok()) << found.status().to_string();
  EXPECT_EQ(found->id, *b);
  EXPECT_EQ(found->skill, "second");
  EXPECT_EQ((*store_->list_skill_proposals("/ws", std::nullopt))[0].public_id, pb);

  // Another workspace's proposal answers exactly like one that does not exist.
  auto theirs = store_->find_skill_proposal("/ws", pc);
  ASSERT_FALSE(theirs.ok());
  EXPECT_EQ(theirs.status().code(), ErrorCode::kNotFound);
  const std::string unknown = "sp_0123456789abcdef0123456789abcdef";
  auto none = store_->find_skill_proposal("/ws", unknown);
  EXPECT_EQ(none.status().code(), ErrorCode::kNotFound);
  EXPECT_EQ(theirs.status().message(), "no skill proposal '" + pc + "' in this workspace");
  EXPECT_EQ(none.status().message(), "no skill proposal '" + unknown + "' in this workspace");
  // The sequential id is no public id.
  EXPECT_EQ(store_->find_skill_proposal("/ws", std::to_string(*a)).status().code(), ErrorCode::kNotFound);
  EXPECT_TRUE(store_->find_skill_proposal("/other", pc).ok());
}

TEST(SkillProposalIdsMigration, AVersionFiveDatabaseGivesItsProposalsPublicIds) {
  TempDir tmp;
  const std::string path = (tmp.path() / "keel.db").string();
  auto steps = detail::schema_migrations();
  ASSERT_GE(steps.size(), 6u);
  ASSERT_EQ(steps[4].version, 5);
  {  // Version 5 exactly as its steps define it, with two proposals.
    std::string v5 = "BEGIN;";
    for (size_t i = 0; i < 5; ++i) v5 += std::string(steps[i].sql);
    v5 += "PRAGMA user_version = 5;"
          "INSERT INTO skill_proposals (workspace, skill, summary, created_ms) VALUES ('/ws', 'old-a', 'a', 10);"
          "INSERT INTO skill_proposals (workspace, skill, summary, created_ms) VALUES ('/ws', 'old-b', 'b', 20);"
          "COMMIT;";
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    char* error = nullptr;
    const int rc = sqlite3_exec(db, v5.c_str(), nullptr, nullptr, &error);
    const std::string message = error != nullptr ? error : "";
    sqlite3_free(error);
    sqlite3_close(db);
    ASSERT_EQ(rc, SQLITE_OK) << message;
  }
  ASSERT_EQ(raw_int(path, "PRAGMA user_version"), 5);

  StoreOptions o;
  o.path = path;
  auto store = open_sqlite_store(o);
  ASSERT_TRUE(store.ok()) << store.status().to_string();
  EXPECT_EQ(*(*store)->schema_version(), detail::current_schema_version());
  auto old = (*store)->list_skill_proposals("/ws", std::nullopt);
  ASSERT_TRUE(old.ok());
  ASSERT_EQ(old->size(), 2u);
  EXPECT_EQ((*old)[0].skill, "old-b");
  std::set<std::string> ids;
  for (const SkillProposal& p : *old) {
    EXPECT_TRUE(public_id_well_formed(p.public_id)) << p.public_id;
    ids.insert(p.public_id);
    auto found = (*store)->find_skill_proposal("/ws", p.public_id);
    ASSERT_TRUE(found.ok()) << found.status().to_string();
    EXPECT_EQ(found->skill, p.skill);
  }
  EXPECT_EQ(ids.size(), 2u);
  // New proposals get theirs as before; the column is unique.
  auto added = (*store)->add_skill_proposal(new_proposal("new", "/ws"));
  ASSERT_TRUE(added.ok()) << added.status().to_string();
  EXPECT_TRUE(public_id_well_formed((*store)->get_skill_proposal(*added)->public_id));
  store->reset();
  EXPECT_EQ(raw_int(path, "SELECT count(*) FROM skill_proposals WHERE public_id IS NULL"), 0);
  EXPECT_EQ(raw_int(path, "SELECT count(DISTINCT public_id) FROM skill_proposals"), 3);
}

KEEL_STORE_ENGINES(SkillProposalIdsTest);

}  // namespace
}  // namespace keel::testing
