// Which values the assembly layer treats as secrets: credential-looking environment variables,
// keel.yaml's `secrets:`, the resolved API key and MCP servers' credentials; and the redactor
// every assembled agent gets.
#include "keel/assembly/secrets.hpp"

#include <gtest/gtest.h>

#include "keel/assembly.hpp"
#include "support/scoped_env.hpp"
#include "support/temp_dir.hpp"

namespace keel {
namespace {

std::string secret_value_of(const std::vector<Secret>& secrets, const std::string& name) {
  for (const Secret& s : secrets) {
    if (s.name == name) return s.value;
  }
  return "<none>";
}

TEST(AssemblySecrets, CredentialNamesAreRecognised) {
  for (const char* yes : {"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "HF_TOKEN", "KEEL_SERVE_TOKEN", "GITHUB_TOKEN",
                          "AWS_SECRET", "DB_PASSWORD", "my_service_api_key"}) {
    EXPECT_TRUE(assembly::is_credential_name(yes)) << yes;
  }
  for (const char* no : {"PATH", "HOME", "TOKEN", "API_KEY_FILE", "TOKENIZER", "SECRET_DIR", "KEEL_MODEL"}) {
    EXPECT_FALSE(assembly::is_credential_name(no)) << no;
  }
}

TEST(AssemblySecrets, GathersFromTheEnvironmentAndTheConfiguration) {
  KeelConfig config;
  config.secrets = {"DATABASE_URL", "NOT_SET"};
  config.model.api_key = "sk-from-config-file-123";
  McpServerConfig github;
  github.name = "github";
  github.headers = {{"Authorization", "Bearer ghp_headertoken123"}, {"Accept", "application/json"}};
  github.env = {{"GITHUB_TOKEN", "ghp_envtoken456"}, {"LOG_LEVEL", "debug-verbose"}};
  config.mcp_servers.push_back(github);
  std::map<std::string, std::string> env = {{"OPENAI_API_KEY", "sk-env-0123456789"},
                                            {"DATABASE_URL", "postgres://u:p@db/x"},
                                            {"PATH", "/usr/bin:/bin"},
                                            {"EMPTY_TOKEN", ""}};
  std::vector<Secret> secrets = assembly::gather_secrets(config, env);
  EXPECT_EQ(secret_value_of(secrets, "OPENAI_API_KEY"), "sk-env-0123456789");
  EXPECT_EQ(secret_value_of(secrets, "DATABASE_URL"), "postgres://u:p@db/x");
  EXPECT_EQ(secret_value_of(secrets, "NOT_SET"), "<none>");
  EXPECT_EQ(secret_value_of(secrets, "PATH"), "<none>");
  EXPECT_EQ(secret_value_of(secrets, "EMPTY_TOKEN"), "<none>");
  EXPECT_EQ(secret_value_of(secrets, "api_key"), "sk-from-config-file-123");
  EXPECT_EQ(secret_value_of(secrets, "mcpServers.github.env.GITHUB_TOKEN"), "ghp_envtoken456");
  EXPECT_EQ(secret_value_of(secrets, "mcpServers.github.env.LOG_LEVEL"), "<none>");
  EXPECT_EQ(secret_value_of(secrets, "mcpServers.github.headers.Accept"), "<none>");
  int auth = 0;
  for (const Secret& s : secrets) auth += s.name == "mcpServers.github.headers.Authorization";
  EXPECT_EQ(auth, 2);  // the header value, and the token without "Bearer "

  auto redactor = assembly::make_redactor(config, env);
  ASSERT_NE(redactor, nullptr);
  EXPECT_EQ(redactor->redact("token ghp_headertoken123 and sk-env-0123456789"),
            "token [REDACTED:mcpServers.github.headers.Authorization] and [REDACTED:OPENAI_API_KEY]");
  EXPECT_EQ(assembly::make_redactor(KeelConfig{}, {{"PATH", "/bin"}}), nullptr);
}

TEST(AssemblySecrets, EveryAssembledAgentGetsTheRedactor) {
  testing::TempDir home;
  testing::TempDir ws;
  testing::ScopedEnv home_env("HOME", home.path().string());
  testing::ScopedEnv xdg("XDG_CONFIG_HOME", (home.path() / "config").string());
  testing::ScopedEnv model("KEEL_MODEL", std::string("rules"));
  testing::ScopedEnv key("DEPLOY_TOKEN", std::string("deploy-0123456789"));
  ws.write("keel.yaml", "secrets: [SIGNING_SEED]\n");
  testing::ScopedEnv seed("SIGNING_SEED", std::string("seed-value-42424242"));
  assembly::HostInputs in;
  in.workspace = ws.path().string();
  assembly::HostOptions host;
  host.store = false;
  auto built = assembly::AssembledAgent::create(in, host);
  ASSERT_TRUE(built.ok()) << built.status().message();
  const auto& redactor = (*built)->blueprint().options.redactor;
  ASSERT_NE(redactor, nullptr);
  EXPECT_EQ(redactor->redact("deploy-0123456789 seed-value-42424242"), "[REDACTED:DEPLOY_TOKEN] [REDACTED:SIGNING_SEED]");
}

}  // namespace
}  // namespace keel
