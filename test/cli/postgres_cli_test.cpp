// The keel command on a PostgreSQL store (KEEL_DATABASE_URL): a run is saved there and read back
// by `keel sessions`, exactly as with SQLite; a database keel cannot use is a clear error, exit 2,
// with no SQLite file made instead.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include "support/cli_runner.hpp"
#include "support/postgres_server.hpp"
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

// A second keel serve for the same workspace and database would take up the first one's
// interrupted runs as well: it is refused, on PostgreSQL as on SQLite, until the first stops.
TEST(PostgresCliTest, ASecondServeOfTheSameWorkspaceAndDatabaseIsRefused) {
  auto schema = testing::PostgresSchema::create();
  ASSERT_TRUE(schema.ok()) << schema.status().to_string();
  testing::TempDir home;
  testing::TempDir ws;
  std::map<std::string, std::string> env = {
      {"HOME", home.path().string()}, {"KEEL_HOME", home.path().string()}, {"KEEL_DATABASE_URL", schema->url()}};
  const std::vector<std::string> args = {"--port", "0", "-w", ws.path().string(), "--token", "t0k"};
  testing::ServeProcess first(args, env);
  ASSERT_NE(first.port(), 0) << first.err();

  testing::CliOptions o;
  o.cwd = ws.path().string();
  o.env = env;
  std::vector<std::string> second_args = {"serve"};
  second_args.insert(second_args.end(), args.begin(), args.end());
  CliRun second = testing::run_cli(KEEL_BINARY, second_args, o);
  EXPECT_EQ(second.exit_code, 2);
  EXPECT_NE(second.err.find("another keel serve already serves workspace"), std::string::npos) << second.err;

  EXPECT_EQ(first.interrupt(), 0);
  testing::ServeProcess again(args, env);  // free once the first has stopped
  EXPECT_NE(again.port(), 0) << again.err();
}

}  // namespace
}  // namespace keel
