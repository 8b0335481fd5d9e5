// `profiles:` in keel.yaml: named agent setups for keel serve.
#include <gtest/gtest.h>

#include "keel/config.hpp"
#include "runtime/config_file.hpp"

namespace keel {
namespace {

Result<detail::ConfigLayer> parse_profiles_yaml(const std::string& yaml) {
  return detail::parse_config_text(yaml, "/ws/keel.yaml");
}

TEST(ConfigProfilesTest, ReadsEachProfile) {
  auto layer = parse_profiles_yaml(
      "profiles:\n"
      "  reviewer:\n"
      "    description: reads code\n"
      "    model: openai/gpt-4o-mini\n"
      "    max_rounds: 8\n"
      "    approve_mode: deny\n"
      "    tools: [fs_read, fs_list]\n"
      "  plain:\n");
  ASSERT_TRUE(layer.ok()) << layer.status().to_string();
  ASSERT_EQ(layer->profiles.size(), 2u);
  const AgentProfileConfig& r = layer->profiles[0];
  EXPECT_EQ(r.name, "reviewer");
  EXPECT_EQ(r.description, "reads code");
  EXPECT_EQ(r.model, std::optional<std::string>("openai/gpt-4o-mini"));
  EXPECT_EQ(r.max_rounds, std::optional<int>(8));
  EXPECT_EQ(r.approve_mode, std::optional<std::string>("deny"));
  EXPECT_EQ(r.tools, (std::vector<std::string>{"fs_read", "fs_list"}));
  EXPECT_EQ(layer->profiles[1].name, "plain");
  EXPECT_FALSE(layer->profiles[1].model);
}

TEST(ConfigProfilesTest, IsStrict) {
  EXPECT_EQ(parse_profiles_yaml("profiles: [a]\n").status().message(),
            "/ws/keel.yaml: profiles must be a mapping of profile names to settings");
  EXPECT_EQ(parse_profiles_yaml("profiles:\n  a:\n    modle: x\n").status().message(),
            "/ws/keel.yaml: profiles.a: unknown key 'modle'; known keys: description, model, base_url, max_rounds, "
            "approve_mode, tools");
  EXPECT_EQ(parse_profiles_yaml("profiles:\n  a:\n    max_rounds: 0\n").status().message(),
            "/ws/keel.yaml: profiles.a.max_rounds must be an integer from 1 to 1000");
  EXPECT_EQ(parse_profiles_yaml("profiles:\n  a:\n    approve_mode: sometimes\n").status().message(),
            "/ws/keel.yaml: profiles.a.approve_mode must be auto, confirm or deny, got 'sometimes'");
  EXPECT_EQ(parse_profiles_yaml("profiles:\n  a:\n    tools: fs_read\n").status().message(),
            "/ws/keel.yaml: profiles.a.tools must be a list of tool names");
  EXPECT_EQ(parse_profiles_yaml("profiles:\n  'bad name':\n    model: x\n").status().message(),
            "/ws/keel.yaml: profile name 'bad name' must be 1-64 letters, digits, '.', '_' or '-'");
}

}  // namespace
}  // namespace keel
