// Reading hooks from settings text (runtime/hook_settings.hpp): errors name the file, and what keel
// does not run is reported.
#include <gtest/gtest.h>

#include "runtime/hook_settings.hpp"

namespace keel {
namespace {

TEST(HookSettingsTest, MalformedSettingsNameTheFile) {
  detail::HookSettings s;
  Status bad = detail::parse_hook_settings("{\"hooks\": {", "/ws/.claude/settings.json", true, s);
  EXPECT_EQ(bad.code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(bad.message().find("/ws/.claude/settings.json"), std::string::npos) << bad.message();
  Status shape = detail::parse_hook_settings(R"({"hooks": {"Stop": {"command": "x"}}})", "/u/settings.json", false, s);
  EXPECT_NE(shape.message().find("/u/settings.json"), std::string::npos) << shape.message();
  EXPECT_NE(shape.message().find("hooks.Stop"), std::string::npos) << shape.message();
  Status regex = detail::parse_hook_settings(R"({"hooks": {"PreToolUse": [{"matcher": "(", "hooks": []}]}})", "/u/s.json", false, s);
  EXPECT_NE(regex.message().find("matcher"), std::string::npos) << regex.message();
  EXPECT_TRUE(s.commands.empty());
}

TEST(HookSettingsTest, UnknownEventsAndTypesAreReportedNotRun) {
  detail::HookSettings s;
  Status ok = detail::parse_hook_settings(
      R"({"model": "x", "hooks": {"FileChanged": [{"hooks": [{"type": "command", "command": "a"}]}],
          "Stop": [{"hooks": [{"type": "prompt", "prompt": "b"}, {"type": "command", "command": "c", "timeout": 5}]}]}})",
      "/u/settings.json", false, s);
  ASSERT_TRUE(ok.ok()) << ok.to_string();
  ASSERT_EQ(s.commands.size(), 1u);
  EXPECT_EQ(s.commands[0].command, "c");
  EXPECT_EQ(s.commands[0].timeout_s, 5);
  EXPECT_EQ(s.warnings.size(), 2u);
}

}  // namespace
}  // namespace keel
