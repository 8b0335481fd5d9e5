// `store:` in the user file and KEEL_DATABASE_URL: which database keel keeps its records in. A
// workspace keel.yaml may not choose it (a repository could send its runs elsewhere).
#include <gtest/gtest.h>

#include "keel/store_settings.hpp"
#include "runtime/config_file.hpp"
#include "support/config_dirs.hpp"

namespace keel::testing {
namespace {

class StoreSettingsTest : public ConfigDirsTest {
 protected:
  Result<StoreSettings> settings() { return resolve_store_settings(in); }
};

TEST_F(StoreSettingsTest, WithNothingSetItIsTheDefaultSqliteFile) {
  auto s = settings();
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  EXPECT_EQ(s->url, "");
  EXPECT_EQ(s->source, "default");
  EXPECT_EQ(s->pool_size, 8);
  EXPECT_EQ(s->reconnect_wait_ms, 30000);
}

TEST_F(StoreSettingsTest, TheUserFileNamesADatabaseAsAUrlOrWithSettings) {
  user_yaml("store: postgres://keel@db.internal/keel\n");
  auto s = settings();
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  EXPECT_EQ(s->url, "postgres://keel@db.internal/keel");
  EXPECT_EQ(s->source, user_path());

  user_yaml("store: {url: 'postgresql://keel@db/keel', pool_size: 16, reconnect_wait_ms: 0}\n");
  s = settings();
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  EXPECT_EQ(s->url, "postgresql://keel@db/keel");
  EXPECT_EQ(s->pool_size, 16);
  EXPECT_EQ(s->reconnect_wait_ms, 0);

  user_yaml("store: sqlite:/srv/keel/keel.db\n");
  s = settings();
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  EXPECT_EQ(s->url, "/srv/keel/keel.db");
}

TEST_F(StoreSettingsTest, TheEnvironmentWinsOverTheUserFile) {
  user_yaml("store: {url: 'postgres://keel@file/keel', pool_size: 16}\n");
  in.env["KEEL_DATABASE_URL"] = "postgres://keel@env/keel";
  in.env["KEEL_DATABASE_POOL_SIZE"] = "3";
  auto s = settings();
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  EXPECT_EQ(s->url, "postgres://keel@env/keel");
  EXPECT_EQ(s->source, "KEEL_DATABASE_URL");
  EXPECT_EQ(s->pool_size, 3);
}

TEST_F(StoreSettingsTest, BadValuesAreClearErrorsThatKeepPasswordsOut) {
  user_yaml("store: mysql://root:s3cret@db/keel\n");
  auto s = settings();
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().message(), user_path() +
                                      ": store must be a postgres:// URL or the absolute path of a SQLite file "
                                      "(sqlite:PATH or PATH), got 'mysql://...'");
  user_yaml("store: keel.db\n");
  EXPECT_NE(settings().status().message().find("absolute path"), std::string::npos);
  user_yaml("store: {pool_size: 4}\n");
  EXPECT_EQ(settings().status().message(),
            user_path() + ": store needs url: a postgres:// URL or the path of a SQLite file");
  user_yaml("store: {url: 'postgres://h/k', pool_size: 0}\n");
  EXPECT_NE(settings().status().message().find("store.pool_size must be an integer >= 1 and <= 256"), std::string::npos)
      << settings().status().message();
  user_yaml("store: {url: 'postgres://h/k', pool: 4}\n");
  EXPECT_NE(settings().status().message().find("unknown key 'store.pool'"), std::string::npos)
      << settings().status().message();

  user_yaml("");
  in.env["KEEL_DATABASE_URL"] = "mysql://root:s3cret@db/keel";
  EXPECT_EQ(settings().status().message(),
            "KEEL_DATABASE_URL 'mysql://...' names an engine keel does not know; use postgres://... or a SQLite file "
            "path");
  in.env["KEEL_DATABASE_URL"] = "";
  in.env["KEEL_DATABASE_POOL_SIZE"] = "many";
  EXPECT_EQ(settings().status().message(), "KEEL_DATABASE_POOL_SIZE must be a number from 1 to 256, got 'many'");
}

TEST_F(StoreSettingsTest, AWorkspaceFileMayNotChooseTheDatabase) {
  workspace_yaml("store: postgres://keel@attacker.example/keel\n");
  auto config = resolve();
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(config.status().message(),
            workspace_path() + ": store is honoured in the user file only (" + user_path() +
                ") or KEEL_DATABASE_URL, so a repository cannot send its runs to another database");
  // The store settings never read the workspace file.
  auto s = settings();
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  EXPECT_EQ(s->url, "");
}

}  // namespace
}  // namespace keel::testing
