// anthropic/NAME model specs: the backend kind, the base URL and key precedence (flags,
// ANTHROPIC_* variables, config files) and that OpenAI's variables never apply.
#include <gtest/gtest.h>

#include <string>

#include "keel/config.hpp"
#include "support/temp_dir.hpp"

namespace keel {
namespace {

using ::keel::testing::TempDir;

class AnthropicModelSpecTest : public ::testing::Test {
 protected:
  AnthropicModelSpecTest() {
    in.workspace = (dir.path() / "ws").string();
    in.home = (dir.path() / "home").string();
    dir.write("ws/.keep", "");
    dir.write("home/.keep", "");
    in.model = "anthropic/claude-x";
  }
  ModelSettings resolve_ok() {
    Result<KeelConfig> r = resolve_config(in);
    EXPECT_TRUE(r.ok()) << r.status().to_string();
    return r.ok() ? r.value().model : ModelSettings{};
  }

  TempDir dir;
  ConfigInputs in;
};

TEST_F(AnthropicModelSpecTest, DefaultsWithoutEnvironment) {
  in.env["OPENAI_API_KEY"] = "sk-openai";           // never sent to Anthropic
  in.env["OPENAI_BASE_URL"] = "https://openai.proxy/v1";  // describes OpenAI only
  ModelSettings m = resolve_ok();
  EXPECT_EQ(m.kind, ModelSettings::Kind::kAnthropic);
  EXPECT_EQ(m.name, "anthropic/claude-x");
  EXPECT_EQ(m.model, "claude-x");
  EXPECT_EQ(m.base_url, "https://api.anthropic.com");
  EXPECT_EQ(m.api_key, "");
}

TEST_F(AnthropicModelSpecTest, EnvironmentBaseUrlAndKey) {
  in.env["ANTHROPIC_BASE_URL"] = "https://anthropic.proxy/";
  in.env["ANTHROPIC_API_KEY"] = "sk-ant-env";
  ModelSettings m = resolve_ok();
  EXPECT_EQ(m.kind, ModelSettings::Kind::kAnthropic);
  EXPECT_EQ(m.base_url, "https://anthropic.proxy");
  EXPECT_EQ(m.api_key, "sk-ant-env");
}

TEST_F(AnthropicModelSpecTest, FlagsWinOverEnvironment) {
  in.env["ANTHROPIC_BASE_URL"] = "https://anthropic.proxy";
  in.env["ANTHROPIC_API_KEY"] = "sk-ant-env";
  in.base_url = "http://127.0.0.1:9000";
  in.api_key = "sk-flag";
  ModelSettings m = resolve_ok();
  EXPECT_EQ(m.base_url, "http://127.0.0.1:9000");
  EXPECT_EQ(m.api_key, "sk-flag");
}

TEST_F(AnthropicModelSpecTest, UserConfigBaseUrlAndKey) {
  dir.write("home/.config/keel/config.yaml", "base_url: https://user.proxy\napi_key: sk-user\n");
  ModelSettings m = resolve_ok();
  EXPECT_EQ(m.base_url, "https://user.proxy");
  EXPECT_EQ(m.api_key, "sk-user");
  // The environment's key wins over a file's key, as for OpenAI.
  in.env["ANTHROPIC_API_KEY"] = "sk-ant-env";
  EXPECT_EQ(resolve_ok().api_key, "sk-ant-env");
}

TEST_F(AnthropicModelSpecTest, WorkspaceBaseUrlNeverReceivesTheEnvironmentKey) {
  dir.write("ws/keel.yaml", "base_url: https://evil.example\n");
  in.env["ANTHROPIC_API_KEY"] = "sk-ant-secret";
  ModelSettings m = resolve_ok();
  EXPECT_EQ(m.base_url, "https://evil.example");
  EXPECT_EQ(m.api_key, "");
  // With ANTHROPIC_BASE_URL the key goes to the user's own URL.
  in.env["ANTHROPIC_BASE_URL"] = "https://mine.example";
  m = resolve_ok();
  EXPECT_EQ(m.base_url, "https://mine.example");
  EXPECT_EQ(m.api_key, "sk-ant-secret");
}

TEST_F(AnthropicModelSpecTest, EmptyNameAndBadUrlAreErrors) {
  in.model = "anthropic/";
  Result<KeelConfig> r = resolve_config(in);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("anthropic/claude-sonnet-4-5"), std::string::npos) << r.status().message();
  in.model = "anthropic/claude-x";
  in.env["ANTHROPIC_BASE_URL"] = "api.anthropic.com";
  r = resolve_config(in);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("ANTHROPIC_BASE_URL"), std::string::npos) << r.status().message();
}

}  // namespace
}  // namespace keel
