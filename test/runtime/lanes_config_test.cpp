// `lanes:` in keel.yaml: strict parsing, file layering and per-lane model resolution.
#include <gtest/gtest.h>

#include "keel/config.hpp"
#include "runtime/config_file.hpp"
#include "support/temp_dir.hpp"

namespace keel {
namespace {

Result<detail::ConfigLayer> parse_lanes(const std::string& yaml) { return detail::parse_config_text(yaml, "/ws/keel.yaml"); }

TEST(LanesConfigTest, ReadsEachLane) {
  auto layer = parse_lanes(
      "lanes:\n"
      "  - model: ollama/qwen2.5:7b\n"
      "    base_url: http://10.0.0.5:11434/v1\n"
      "    timeout_floor_ms: 30000\n"
      "  - model: openai/gpt-4o-mini\n"
      "    rate_limit_per_minute: 2.5\n"
      "  - model: rules\n");
  ASSERT_TRUE(layer.ok()) << layer.status().to_string();
  ASSERT_TRUE(layer->lanes);
  ASSERT_EQ(layer->lanes->size(), 3u);
  const LaneConfig& a = (*layer->lanes)[0];
  EXPECT_EQ(a.model, "ollama/qwen2.5:7b");
  EXPECT_EQ(a.base_url, std::optional<std::string>("http://10.0.0.5:11434/v1"));
  EXPECT_EQ(a.timeout_floor_ms, 30000);
  EXPECT_EQ(a.rate_limit_per_minute, 0);
  EXPECT_EQ(a.source, "/ws/keel.yaml");
  EXPECT_EQ((*layer->lanes)[1].rate_limit_per_minute, 2.5);
  EXPECT_EQ((*layer->lanes)[2].model, "rules");
  EXPECT_FALSE(parse_lanes("model: rules\n")->lanes);
}

TEST(LanesConfigTest, IsStrict) {
  EXPECT_EQ(parse_lanes("lanes: {model: rules}\n").status().message(),
            "/ws/keel.yaml: lanes must be a list of {model, base_url?, timeout_floor_ms?, rate_limit_per_minute?}");
  EXPECT_EQ(parse_lanes("lanes: []\n").status().message(),
            "/ws/keel.yaml: lanes must list at least one lane (or be left out)");
  EXPECT_EQ(parse_lanes("lanes: [rules]\n").status().message(),
            "/ws/keel.yaml: lanes[0] must be a mapping {model, base_url?, timeout_floor_ms?, rate_limit_per_minute?}");
  EXPECT_EQ(parse_lanes("lanes:\n  - model: rules\n  - modle: x\n").status().message(),
            "/ws/keel.yaml: lanes[1]: unknown key 'modle'; known keys: model, base_url, timeout_floor_ms, "
            "rate_limit_per_minute");
  EXPECT_EQ(parse_lanes("lanes:\n  - base_url: http://x/v1\n").status().message(),
            "/ws/keel.yaml: lanes[0].model is required (as --model takes it, e.g. ollama/qwen2.5:7b or rules)");
  EXPECT_EQ(parse_lanes("lanes:\n  - model: ''\n").status().message(), "/ws/keel.yaml: lanes[0].model must be a non-empty string");
  EXPECT_EQ(parse_lanes("lanes:\n  - model: rules\n    base_url: [a]\n").status().message(),
            "/ws/keel.yaml: lanes[0].base_url must be a non-empty string");
  EXPECT_EQ(parse_lanes("lanes:\n  - model: rules\n    timeout_floor_ms: -1\n").status().message(),
            "/ws/keel.yaml: lanes[0].timeout_floor_ms must be an integer from 0 to 3600000 (milliseconds)");
  EXPECT_EQ(parse_lanes("lanes:\n  - model: rules\n    timeout_floor_ms: soon\n").status().message(),
            "/ws/keel.yaml: lanes[0].timeout_floor_ms must be an integer from 0 to 3600000 (milliseconds)");
  EXPECT_EQ(parse_lanes("lanes:\n  - model: rules\n    rate_limit_per_minute: fast\n").status().message(),
            "/ws/keel.yaml: lanes[0].rate_limit_per_minute must be a number >= 0 (0: unlimited)");
}

TEST(LanesConfigTest, ResolvesEachLaneAndKeepsLoadErrors) {
  testing::TempDir ws;
  ws.write("keel.yaml",
           "lanes:\n"
           "  - model: ollama/qwen2.5:7b\n"
           "    base_url: http://127.0.0.1:9/v1\n"
           "  - model: some-model-without-url\n"
           "  - model: rules\n");
  ConfigInputs in;
  in.workspace = ws.path().string();
  in.env = {{"OLLAMA_HOST", "10.9.9.9"}};
  auto cfg = resolve_config(in);
  ASSERT_TRUE(cfg.ok()) << cfg.status().to_string();
  ASSERT_EQ(cfg->lanes.size(), 3u);
  ASSERT_TRUE(cfg->lanes[0].settings);
  EXPECT_EQ(cfg->lanes[0].settings->kind, ModelSettings::Kind::kOpenAiCompatible);
  EXPECT_EQ(cfg->lanes[0].settings->base_url, "http://127.0.0.1:9/v1");  // the lane's URL beats OLLAMA_HOST
  EXPECT_EQ(cfg->lanes[0].settings->model, "qwen2.5:7b");
  EXPECT_FALSE(cfg->lanes[1].settings);
  EXPECT_NE(cfg->lanes[1].load_error.find("needs a base URL"), std::string::npos) << cfg->lanes[1].load_error;
  ASSERT_TRUE(cfg->lanes[2].settings);
  EXPECT_EQ(cfg->lanes[2].settings->kind, ModelSettings::Kind::kRules);
  EXPECT_EQ(cfg->model.source, "default");

  // A workspace list replaces the user file's.
  testing::TempDir home;
  home.write(".config/keel/config.yaml", "lanes:\n  - model: rules\n  - model: rules\n");
  in.home = home.path().string();
  cfg = resolve_config(in);
  ASSERT_TRUE(cfg.ok());
  EXPECT_EQ(cfg->lanes.size(), 3u);
  ws.write("keel.yaml", "max_rounds: 3\n");
  cfg = resolve_config(in);
  ASSERT_TRUE(cfg.ok());
  EXPECT_EQ(cfg->lanes.size(), 2u);
}

TEST(LanesConfigTest, ReplayModelNamesACassette) {
  ConfigInputs in;
  in.model = "replay:run.jsonl";
  auto cfg = resolve_config(in);
  ASSERT_TRUE(cfg.ok()) << cfg.status().to_string();
  EXPECT_EQ(cfg->model.kind, ModelSettings::Kind::kReplay);
  EXPECT_EQ(cfg->model.model, "run.jsonl");
  in.model = "replay:";
  EXPECT_EQ(resolve_config(in).status().message(),
            "model 'replay:' (from --model) names no cassette; use replay:FILE with a file recorded by --record FILE");
}

}  // namespace
}  // namespace keel
