// The clean environment of child processes (base/child_env.hpp).
#include "base/child_env.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <string>
#include <vector>

namespace keel::detail {
namespace {

bool has(const std::vector<std::string>& env, const std::string& entry) {
  return std::find(env.begin(), env.end(), entry) != env.end();
}

bool names(const std::vector<std::string>& env, const std::string& name) {
  return std::any_of(env.begin(), env.end(), [&](const std::string& e) { return e.rfind(name + "=", 0) == 0; });
}

TEST(ChildEnvTest, OnlyTheAllowlistNamedAndSetVariablesPass) {
  ::setenv("OPENAI_API_KEY", "sk-secret", 1);
  ::setenv("HF_TOKEN", "hf-secret", 1);
  ::setenv("KEEL_CHILD_ENV_NAMED", "named", 1);
  ::setenv("KEEL_CHILD_ENV_REPLACED", "old", 1);
  ::setenv("PATH", "/usr/bin:/bin", 1);
  ::setenv("LC_KEEL_CHILD_ENV", "locale", 1);
  const std::vector<std::string> env =
      clean_environment({"KEEL_CHILD_ENV_NAMED", "KEEL_CHILD_ENV_REPLACED", "KEEL_CHILD_ENV_ABSENT"},
                        {{"KEEL_CHILD_ENV_REPLACED", "new"}, {"KEEL_CHILD_ENV_SET", "set"}});
  ::unsetenv("OPENAI_API_KEY");
  ::unsetenv("HF_TOKEN");
  ::unsetenv("KEEL_CHILD_ENV_NAMED");
  ::unsetenv("KEEL_CHILD_ENV_REPLACED");
  ::unsetenv("LC_KEEL_CHILD_ENV");

  EXPECT_FALSE(names(env, "OPENAI_API_KEY"));
  EXPECT_FALSE(names(env, "HF_TOKEN"));
  EXPECT_FALSE(names(env, "KEEL_CHILD_ENV_ABSENT"));
  EXPECT_TRUE(has(env, "PATH=/usr/bin:/bin"));
  EXPECT_TRUE(has(env, "LC_KEEL_CHILD_ENV=locale"));
  EXPECT_TRUE(has(env, "KEEL_CHILD_ENV_NAMED=named"));
  EXPECT_TRUE(has(env, "KEEL_CHILD_ENV_REPLACED=new"));
  EXPECT_FALSE(has(env, "KEEL_CHILD_ENV_REPLACED=old"));
  EXPECT_TRUE(has(env, "KEEL_CHILD_ENV_SET=set"));
  EXPECT_TRUE(std::is_sorted(env.begin(), env.end()));
}

TEST(ChildEnvTest, AllowlistIsShort) {
  for (const char* name : {"PATH", "HOME", "LANG", "LC_ALL", "TERM", "TZ", "TMPDIR", "NO_COLOR"}) {
    EXPECT_TRUE(is_base_environment_name(name)) << name;
  }
  for (const char* name : {"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "HF_TOKEN", "KEEL_SERVE_TOKEN", "LD_PRELOAD",
                           "SSH_AUTH_SOCK", "AWS_SECRET_ACCESS_KEY", "KEEL_HOME", "PATHX", "LC"}) {
    EXPECT_FALSE(is_base_environment_name(name)) << name;
  }
}

}  // namespace
}  // namespace keel::detail
