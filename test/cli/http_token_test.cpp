// The token keel's HTTP servers require when none is given: made once, kept 0600 under KEEL_HOME,
// reused, and treated as a secret from then on (redacted from tool output, kept from children).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <fstream>

#include "cli/mcp_http_serve.hpp"
#include "keel/assembly/secrets.hpp"
#include "keel/config.hpp"
#include "support/scoped_env.hpp"
#include "support/temp_dir.hpp"

namespace keel {
namespace {

using testing::ScopedEnv;

TEST(HttpToken, MadeOnceKeptPrivateReusedAndRedacted) {
  testing::TempDir home;
  ScopedEnv keel_home("KEEL_HOME", (home.path() / "data").string());
  ScopedEnv serve_token("KEEL_SERVE_TOKEN", std::nullopt);
  Result<cli::HttpToken> first = cli::resolve_http_token("", false);
  ASSERT_TRUE(first.ok()) << first.status().message();
  EXPECT_EQ(first->token.size(), 64u);
  EXPECT_EQ(first->kept_in, (home.path() / "data" / "serve-token").string());
  struct stat st {};
  ASSERT_EQ(::stat(first->kept_in.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);

  Result<cli::HttpToken> again = cli::resolve_http_token("", false);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->token, first->token);

  // Now a secret of this process: a tool output that shows it is redacted.
  ASSERT_NE(std::getenv("KEEL_SERVE_TOKEN"), nullptr);
  EXPECT_EQ(std::string(std::getenv("KEEL_SERVE_TOKEN")), first->token);
  auto redactor = assembly::make_redactor(KeelConfig{}, current_environment());
  ASSERT_NE(redactor, nullptr);
  const std::string shown = redactor->redact("env says KEEL_SERVE_TOKEN=" + first->token + "\n");
  EXPECT_EQ(shown.find(first->token), std::string::npos) << shown;
  EXPECT_NE(shown.find("[REDACTED"), std::string::npos) << shown;
}

TEST(HttpToken, AFileOthersCanReadIsRefusedAndNoAuthNeedsNoFile) {
  testing::TempDir home;
  ScopedEnv keel_home("KEEL_HOME", home.path().string());
  ScopedEnv serve_token("KEEL_SERVE_TOKEN", std::nullopt);
  {
    std::ofstream out(home.path() / "serve-token");
    out << std::string(64, 'a') << "\n";
  }
  ::chmod((home.path() / "serve-token").c_str(), 0644);
  Result<cli::HttpToken> loose = cli::resolve_http_token("", false);
  ASSERT_FALSE(loose.ok());
  EXPECT_NE(loose.status().message().find("chmod 600"), std::string::npos) << loose.status().message();

  Result<cli::HttpToken> open = cli::resolve_http_token("", true);
  ASSERT_TRUE(open.ok());
  EXPECT_TRUE(open->token.empty());
  EXPECT_FALSE(cli::resolve_http_token("given-token-123", true).ok());  // contradicting flags
  Result<cli::HttpToken> given = cli::resolve_http_token("given-token-123", false);
  ASSERT_TRUE(given.ok());
  EXPECT_EQ(given->token, "given-token-123");
  EXPECT_TRUE(given->kept_in.empty());
}

}  // namespace
}  // namespace keel
