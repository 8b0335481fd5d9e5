// The `skills:` section of keel.yaml and the user config: parsed strictly, applied per file.
#include <gtest/gtest.h>

#include "keel/config.hpp"
#include "runtime/config_file.hpp"

namespace keel {
namespace {

Result<detail::ConfigLayer> parse(const std::string& yaml) {
  return detail::parse_config_text(yaml, "/ws/keel.yaml");
}

TEST(ConfigSkillsTest, ReadsEnabledAndDisclosurePercent) {
  Result<detail::ConfigLayer> layer = parse("skills:\n  enabled: false\n  disclosure_percent: 5\n");
  ASSERT_TRUE(layer.ok()) << layer.status().to_string();
  EXPECT_EQ(layer->skills_enabled, std::optional<bool>(false));
  EXPECT_EQ(layer->skills_disclosure_percent, std::optional<int>(5));

  KeelConfig config;
  EXPECT_TRUE(config.skills.enabled);
  EXPECT_EQ(config.skills.disclosure_percent, 2);
  detail::apply_skills_layer(*layer, config);
  EXPECT_FALSE(config.skills.enabled);
  EXPECT_EQ(config.skills.disclosure_percent, 5);

  // A later file that sets only one key leaves the other as it was.
  Result<detail::ConfigLayer> later = parse("skills: {enabled: true}\n");
  ASSERT_TRUE(later.ok());
  detail::apply_skills_layer(*later, config);
  EXPECT_TRUE(config.skills.enabled);
  EXPECT_EQ(config.skills.disclosure_percent, 5);
}

TEST(ConfigSkillsTest, IsStrictAboutKeysTypesAndRanges) {
  EXPECT_EQ(parse("skills:\n  disclosure_precent: 5\n").status().message(),
            "/ws/keel.yaml: unknown key 'skills.disclosure_precent' (did you mean 'disclosure_percent'?); known keys "
            "in skills: enabled, disclosure_percent");
  EXPECT_EQ(parse("skills:\n  disclosure_percent: 0\n").status().message(),
            "/ws/keel.yaml: skills.disclosure_percent must be an integer >= 1 and <= 50, got '0'");
  EXPECT_EQ(parse("skills:\n  disclosure_percent: 51\n").status().message(),
            "/ws/keel.yaml: skills.disclosure_percent must be an integer >= 1 and <= 50, got '51'");
  EXPECT_EQ(parse("skills:\n  enabled: maybe\n").status().message(),
            "/ws/keel.yaml: skills.enabled must be true or false, got 'maybe'");
  EXPECT_EQ(parse("skills: [a]\n").status().message(), "/ws/keel.yaml: skills must be a mapping of keys to values");
}

}  // namespace
}  // namespace keel
