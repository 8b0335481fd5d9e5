// What `keel` maps at start: libcurl (and the TLS, Kerberos and LDAP libraries behind it) is
// loaded at the first request libcurl carries, so a command or a rules run that never goes to the
// network does not pay for it, nor does a run against a local server over plain http://, which
// keel's own HTTP/1.1 client carries. Asked to (KEEL_HTTP_CLIENT=libcurl), the same run loads
// libcurl and works as before. libpq, for the PostgreSQL store, is likewise loaded only when a
// postgres:// database is opened.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "support/cli_runner.hpp"
#include "support/mock_llm_server.hpp"
#include "support/temp_dir.hpp"

namespace keel {
namespace {

testing::CliOptions traced(const testing::TempDir& ws) {
  testing::CliOptions opts;
  opts.cwd = ws.path().string();
  opts.env["LD_DEBUG"] = "libs";  // the loader lists every library it opens, on stderr
  return opts;
}

TEST(StartupLibrariesTest, CommandsThatStayOfflineNeverLoadLibcurl) {
  testing::TempDir ws;
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"--version"}, std::vector<std::string>{"run", "--ephemeral", "what time is it"},
        std::vector<std::string>{"run", "what time is it"}}) {
    testing::CliRun run = testing::run_cli(KEEL_BINARY, args, traced(ws));
    ASSERT_EQ(run.exit_code, 0) << run.err.substr(0, 2000);
    ASSERT_NE(run.err.find("calling init"), std::string::npos) << "no loader trace: " << run.err.substr(0, 500);
    EXPECT_EQ(run.err.find("libcurl"), std::string::npos) << args.back();
    EXPECT_EQ(run.err.find("libgnutls"), std::string::npos) << args.back();
    EXPECT_EQ(run.err.find("libpq"), std::string::npos) << args.back();  // loaded only for PostgreSQL
  }
}

// A one-round run against the mock server, with `env` added; the loader's trace of it.
std::string run_against_a_server(const std::map<std::string, std::string>& env) {
  testing::TempDir ws;
  testing::MockLlmServer server;
  EXPECT_TRUE(server.running());
  server.push(testing::mock_text("hello from the server"));
  testing::CliOptions opts = traced(ws);
  for (const auto& [name, value] : env) opts.env[name] = value;
  testing::CliRun run = testing::run_cli(
      KEEL_BINARY, {"run", "--ephemeral", "--no-stream", "--base-url", server.base_url(), "--model", "m", "hi"}, opts);
  EXPECT_EQ(run.exit_code, 0) << run.err.substr(0, 2000);
  EXPECT_NE(run.out.find("hello from the server"), std::string::npos) << run.out;
  EXPECT_EQ(server.request_count(), 1u);
  return run.err;
}

TEST(StartupLibrariesTest, ARunAgainstALocalServerOverPlainHttpNeverLoadsLibcurl) {
  const std::string trace = run_against_a_server({});
  ASSERT_NE(trace.find("calling init"), std::string::npos) << "no loader trace: " << trace.substr(0, 500);
  EXPECT_EQ(trace.find("libcurl"), std::string::npos);
  EXPECT_EQ(trace.find("libgnutls"), std::string::npos);
}

TEST(StartupLibrariesTest, ARunAskedToUseLibcurlLoadsItAndWorks) {
  const std::string trace = run_against_a_server({{"KEEL_HTTP_CLIENT", "libcurl"}});
  EXPECT_NE(trace.find("libcurl"), std::string::npos);
}

}  // namespace
}  // namespace keel
