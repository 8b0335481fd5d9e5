// The keel command on a PostgreSQL store (KEEL_DATABASE_URL): a run is saved there and read back
// by `keel sessions`, exactly as with SQLite; a database keel cannot use is a clear error, exit 2,
// with no SQLite file made instead.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include "support/cli_runner.hpp"
#include "support/postgres_server.hpp"
#include "server/raw_http_client.hpp"
#include "support/serve_process.hpp"
#include "support/temp_dir.hpp"

namespace keel {
namespace {

using testing::CliRun;

CliRun keel_with_database(const testing::TempDir& home, const std::string& url, const std::vector<std::string>& args) {
  testing::CliOptions o;
  o.cwd = home.path().string();
  o.env["KEEL_HOME"] = home.path().string();
  o.env["KEEL_DATABASE_URL"] = url;
  return testing::run_cli(KEEL_BINARY, args, o);
}

TEST(PostgresCliTest, ARunIsSavedInPostgresAndListedBySessions) {
  auto schema = testing::PostgresSchema::create();
  ASSERT_TRUE(schema.ok()) << schema.status().to_string();
  testing::TempDir home;
  CliRun run = keel_with_database(home, schema->url(), {"run", "--json", "what time is it"});
  ASSERT_EQ(run.exit_code, 0) << run.err.substr(0, 2000);
  EXPECT_EQ(schema->query_int("SELECT count(*) FROM sessions"), 1);
  EXPECT_EQ(schema->query_int("SELECT count(*) FROM runs WHERE state = 'finished'"), 1);
  EXPECT_GE(schema->query_int("SELECT count(*) FROM messages"), 2);
  EXPECT_FALSE(std::filesystem::exists(home.path() / "keel.db"));  // nothing went to SQLite

  CliRun list = keel_with_database(home, schema->url(), {"sessions", "list", "--json"});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  auto sessions = nlohmann::json::parse(list.out, nullptr, false);
  ASSERT_TRUE(sessions.is_array()) << list.out;
  ASSERT_EQ(sessions.size(), 1u);
  EXPECT_EQ(sessions[0]["title"], "what time is it");
}

TEST(PostgresCliTest, TheUserFilesStoreChoosesTheDatabaseAndAWorkspaceFileMayNot) {
  auto schema = testing::PostgresSchema::create();
  ASSERT_TRUE(schema.ok()) << schema.status().to_string();
  testing::TempDir home;
  home.write(".config/keel/config.yaml", "store: {url: '" + schema->url() + "', pool_size: 2}\n");
  testing::CliOptions o;
  o.cwd = home.path().string();
  o.env["KEEL_HOME"] = home.path().string();
  o.env["HOME"] = home.path().string();
  CliRun run = testing::run_cli(KEEL_BINARY, {"run", "--json", "what time is it"}, o);
  ASSERT_EQ(run.exit_code, 0) << run.err.substr(0, 2000);
  EXPECT_EQ(schema->query_int("SELECT count(*) FROM runs WHERE state = 'finished'"), 1);
  EXPECT_FALSE(std::filesystem::exists(home.path() / "keel.db"));

  // A repository's keel.yaml naming a database: refused, exit 2, nothing run or stored.
  home.write("repo/keel.yaml", "store: postgres://keel@attacker.example/keel\n");
  o.cwd = (home.path() / "repo").string();
  CliRun refused = testing::run_cli(KEEL_BINARY, {"run", "what time is it"}, o);
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.err.find("store is honoured in the user file only"), std::string::npos) << refused.err;
  EXPECT_EQ(schema->query_int("SELECT count(*) FROM runs"), 1);
}

TEST(PostgresCliTest, ADatabaseKeelCannotUseExitsTwoNamingIt) {
  testing::TempDir home;
  CliRun down = keel_with_database(home, "postgres://keel:s3cret@127.0.0.1:1/keel", {"sessions", "list"});
  EXPECT_EQ(down.exit_code, 2);
  EXPECT_NE(down.err.find("postgres://keel@127.0.0.1:1/keel"), std::string::npos) << down.err;
  EXPECT_EQ(down.err.find("s3cret"), std::string::npos);

  CliRun unknown = keel_with_database(home, "mysql://db/keel", {"sessions", "list"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("names an engine keel does not know"), std::string::npos) << unknown.err;
  EXPECT_FALSE(std::filesystem::exists(home.path() / "keel.db"));

  auto schema = testing::PostgresSchema::create();
  ASSERT_TRUE(schema.ok());
  ASSERT_TRUE(schema->exec("CREATE TABLE invoices (id INTEGER)").ok());
  CliRun foreign = keel_with_database(home, schema->url(), {"run", "what time is it"});
  EXPECT_EQ(foreign.exit_code, 2) << foreign.err;
  EXPECT_NE(foreign.err.find("is not a keel database"), std::string::npos) << foreign.err;
  EXPECT_EQ(schema->query_int("SELECT count(*) FROM pg_tables WHERE schemaname = '" + schema->name() + "'"), 1);
}

// On PostgreSQL several keel serve instances serve one workspace together (on SQLite a second is
// refused: test/store/server_store_test.cpp); each reports the shared run queue.
TEST(PostgresCliTest, SeveralServesOfOneWorkspaceShareTheRunQueue) {
  auto schema = testing::PostgresSchema::create();
  ASSERT_TRUE(schema.ok()) << schema.status().to_string();
  testing::TempDir home;
  testing::TempDir ws;
  std::map<std::string, std::string> env = {
      {"HOME", home.path().string()}, {"KEEL_HOME", home.path().string()}, {"KEEL_DATABASE_URL", schema->url()}};
  const std::vector<std::string> args = {"--port", "0", "-w", ws.path().string(), "--token", "t0k"};
  std::vector<std::string> first_args = args, second_args = args;
  first_args.insert(first_args.end(), {"--instance-id", "one"});
  second_args.insert(second_args.end(), {"--instance-id", "two"});
  testing::ServeProcess first(first_args, env);
  ASSERT_NE(first.port(), 0) << first.err();
  testing::ServeProcess second(second_args, env);
  ASSERT_NE(second.port(), 0) << second.err();
  for (auto* serve : {&first, &second}) {
    auto health = testing::raw_http(serve->port(), "GET", "/api/health", "Authorization: Bearer t0k\r\n");
    ASSERT_TRUE(health && health->status == 200) << (health ? health->body : "no answer");
    auto j = nlohmann::json::parse(health->body);
    EXPECT_EQ(j["store"]["engine"], "postgres");
    EXPECT_EQ(j["queue"]["instance"], serve == &first ? "one" : "two");
    EXPECT_EQ(j["queue"]["unclaimed_runs"], 0);
  }
  CliRun bad = keel_with_database(home, schema->url(), {"serve", "--port", "0", "-w", ws.path().string(), "--token",
                                                        "t0k", "--lease-ms", "10"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--lease-ms must be between 1000 and 3600000"), std::string::npos) << bad.err;
  EXPECT_EQ(first.interrupt(), 0);
  EXPECT_EQ(second.interrupt(), 0);
}

}  // namespace
}  // namespace keel
