// `autopilot:` in keel.yaml: settings, sources of each kind, triggers, and the rule that a broken
// source entry keeps its own error (so the others run) while anything else broken fails the file.
#include <gtest/gtest.h>

#include "runtime/config_file.hpp"

namespace keel::testing {
namespace {

Result<detail::ConfigLayer> parse(const std::string& yaml) {
  return detail::parse_config_text(yaml, "/ws/keel.yaml");
}

TEST(AutopilotConfigTest, ReadsSettingsSourcesAndTriggers) {
  auto layer = parse(
      "autopilot:\n"
      "  interval_ms: 500\n"
      "  concurrency: 3\n"
      "  max_failures: 2\n"
      "  backoff_ms: 100\n"
      "  budget: {max_tokens_per_hour: 1000, max_cost_per_hour: 0.5, max_tokens_per_run: 200}\n"
      "  sources:\n"
      "    - {name: inbox, files: inbox, glob: ['*.txt', '*.md']}\n"
      "    - {name: nightly, schedule: '0 3 * * *'}\n"
      "    - {name: news, http: 'http://127.0.0.1:9/feed.xml', every_ms: 60000, timeout_ms: 2000}\n"
      "    - {name: repo, git: ., every_ms: 1000}\n"
      "    - {name: docs, mcp: notes, uri: 'file:///a.md'}\n"
      "  triggers:\n"
      "    - {source: inbox, skills: triage}\n"
      "    - {source: '*', task: 'Summarise {{subject}}'}\n");
  ASSERT_TRUE(layer.ok()) << layer.status().to_string();
  ASSERT_TRUE(layer->autopilot.has_value());
  const AutopilotConfig& a = *layer->autopilot;
  EXPECT_TRUE(a.configured);
  EXPECT_TRUE(a.enabled);
  EXPECT_EQ(a.interval_ms, 500);
  EXPECT_EQ(a.concurrency, 3);
  EXPECT_EQ(a.max_failures, 2);
  EXPECT_EQ(a.backoff_ms, 100);
  EXPECT_EQ(a.max_tokens_per_hour, 1000);
  EXPECT_DOUBLE_EQ(a.max_cost_per_hour, 0.5);
  EXPECT_EQ(a.max_tokens_per_run, 200);
  EXPECT_EQ(a.source_file, "/ws/keel.yaml");
  ASSERT_EQ(a.sources.size(), 5u);
  EXPECT_EQ(a.sources[0].kind, "files");
  EXPECT_EQ(a.sources[0].path, "inbox");
  EXPECT_EQ(a.sources[0].globs, (std::vector<std::string>{"*.txt", "*.md"}));
  EXPECT_EQ(a.sources[1].cron, "0 3 * * *");
  EXPECT_EQ(a.sources[2].url, "http://127.0.0.1:9/feed.xml");
  EXPECT_EQ(a.sources[2].timeout_ms, 2000);
  EXPECT_EQ(a.sources[3].kind, "git");
  EXPECT_EQ(a.sources[4].server, "notes");
  EXPECT_EQ(a.sources[4].uri, "file:///a.md");
  for (const auto& s : a.sources) EXPECT_EQ(s.error, "") << s.name;
  ASSERT_EQ(a.triggers.size(), 2u);
  EXPECT_EQ(a.triggers[0].skills, (std::vector<std::string>{"triage"}));
  EXPECT_EQ(a.triggers[1].task, "Summarise {{subject}}");
}

TEST(AutopilotConfigTest, ABrokenSourceKeepsItsErrorAndTheOthersStay) {
  auto layer = parse(
      "autopilot:\n"
      "  sources:\n"
      "    - {name: good, files: inbox}\n"
      "    - {name: twokinds, files: a, git: b}\n"
      "    - {name: badurl, http: 'ftp://x'}\n"
      "    - {name: typo, files: a, globb: '*'}\n"
      "    - {name: nouri, mcp: notes}\n"
      "  triggers: [{source: good, skills: [t]}]\n");
  ASSERT_TRUE(layer.ok()) << layer.status().to_string();
  const auto& s = layer->autopilot->sources;
  ASSERT_EQ(s.size(), 5u);
  EXPECT_EQ(s[0].error, "");
  EXPECT_EQ(s[1].error,
            "/ws/keel.yaml: autopilot.sources[1] ('twokinds') needs exactly one of files, schedule, http, git or mcp "
            "(it has 2)");
  EXPECT_EQ(s[2].error,
            "/ws/keel.yaml: autopilot.sources[2] ('badurl').http must be an http:// or https:// URL, got 'ftp://x'");
  EXPECT_NE(s[3].error.find("unknown key 'globb'"), std::string::npos) << s[3].error;
  EXPECT_NE(s[4].error.find("needs uri"), std::string::npos) << s[4].error;
}

TEST(AutopilotConfigTest, ErrorsOutsideSourcesFailTheFile) {
  EXPECT_EQ(parse("autopilot: [1]\n").status().message(),
            "/ws/keel.yaml: autopilot must be a mapping (interval_ms, sources, triggers, ...)");
  EXPECT_NE(parse("autopilot: {intervall_ms: 5}\n").status().message().find("unknown key 'intervall_ms'"),
            std::string::npos);
  EXPECT_EQ(parse("autopilot: {interval_ms: 0}\n").status().message(),
            "/ws/keel.yaml: autopilot.interval_ms must be a whole number from 50 to 3600000");
  EXPECT_EQ(parse("autopilot: {budget: {max_cost_per_hour: -1}}\n").status().message(),
            "/ws/keel.yaml: autopilot.budget.max_cost_per_hour must be an amount >= 0, e.g. 0.50");
  EXPECT_EQ(parse("autopilot: {sources: [{files: a}]}\n").status().message(),
            "/ws/keel.yaml: autopilot.sources[0].name must be 1 to 60 letters, digits, '-' or '_' (observations keep it)");
  EXPECT_EQ(parse("autopilot: {sources: [{name: a, files: a}, {name: a, files: b}]}\n").status().message(),
            "/ws/keel.yaml: autopilot.sources[1]: a second source named 'a'");
  EXPECT_EQ(parse("autopilot: {sources: [{name: a, files: a}], triggers: [{source: b, skills: [x]}]}\n")
                .status()
                .message(),
            "/ws/keel.yaml: autopilot.triggers[0].source names no source: 'b'");
  EXPECT_EQ(parse("autopilot: {sources: [{name: a, files: a}], triggers: [{source: a, skills: [x], task: y}]}\n")
                .status()
                .message(),
            "/ws/keel.yaml: autopilot.triggers[0] needs skills (or skill_triggers) or a task, not both");
  EXPECT_EQ(parse("autopilot: {enabled: maybe}\n").status().message(),
            "/ws/keel.yaml: autopilot.enabled must be true or false");
}

TEST(AutopilotConfigTest, AbsentSectionIsUnset) {
  auto layer = parse("model: rules\n");
  ASSERT_TRUE(layer.ok());
  EXPECT_FALSE(layer->autopilot.has_value());
  auto off = parse("autopilot: {enabled: false}\n");
  ASSERT_TRUE(off.ok());
  EXPECT_FALSE(off->autopilot->enabled);
}

}  // namespace
}  // namespace keel::testing
