// gguf: and local/ model names, and keel.yaml's `local:` section with its precedence and errors.
#include <gtest/gtest.h>

#include "keel/config.hpp"
#include "runtime/config_file.hpp"
#include "support/config_dirs.hpp"
#include "support/temp_dir.hpp"

namespace keel {
namespace {

using ConfigLocalTest = testing::ConfigDirsTest;

TEST_F(ConfigLocalTest, GgufAndLocalNamesAreLocalModels) {
  in.model = "gguf:/models/q.gguf";
  Result<KeelConfig> a = resolve();
  ASSERT_TRUE(a.ok()) << a.status().to_string();
  EXPECT_EQ(a->model.kind, ModelSettings::Kind::kLocal);
  EXPECT_EQ(a->model.model, "/models/q.gguf");
  EXPECT_EQ(a->model.base_url, "");
  in.model = "local/qwen";
  Result<KeelConfig> b = resolve();
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->model.kind, ModelSettings::Kind::kLocal);
  EXPECT_EQ(b->model.model, "local/qwen");  // found in the models folder when the backend starts
  for (const char* empty : {"gguf:", "local/"}) {
    in.model = empty;
    Result<KeelConfig> bad = resolve();
    ASSERT_FALSE(bad.ok()) << empty;
    EXPECT_NE(bad.status().message().find("names no file"), std::string::npos) << bad.status().message();
  }
}

TEST_F(ConfigLocalTest, TheLocalSectionDefaultsAndTheWorkspaceWins) {
  Result<KeelConfig> plain = resolve();
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->local.tool_choice, "auto");
  EXPECT_TRUE(plain->local.grammar);
  EXPECT_EQ(plain->local.max_tokens, 1024);
  EXPECT_EQ(plain->local.max_calls_per_reply, 8);
  EXPECT_EQ(plain->local.gpu_layers, -1);

  dir.write("home/.config/keel/config.yaml", "local: {threads: 3, context_size: 2048, tokenizer: qwen2}\n");
  dir.write("ws/keel.yaml",
            "local:\n  context_size: 4096\n  tool_choice: required\n  grammar: false\n  temperature: 0.2\n"
            "  seed: 7\n  chat_template: llama3\n  gpu_layers: 0\n  max_tokens: 64\n  max_calls_per_reply: 2\n"
            "  max_string_chars: 40\n");
  in.env["XDG_CONFIG_HOME"] = (dir.path() / "home/.config").string();
  Result<KeelConfig> c = resolve();
  ASSERT_TRUE(c.ok()) << c.status().to_string();
  const LocalModelConfig& l = c->local;
  EXPECT_EQ(l.threads, 3);         // from the user file
  EXPECT_EQ(l.tokenizer, "qwen2");  // from the user file
  EXPECT_EQ(l.context_size, 4096);  // the workspace wins
  EXPECT_EQ(l.tool_choice, "required");
  EXPECT_FALSE(l.grammar);
  EXPECT_EQ(l.temperature, std::optional<double>(0.2));
  EXPECT_EQ(l.seed, std::optional<int64_t>(7));
  EXPECT_EQ(l.chat_template, "llama3");
  EXPECT_EQ(l.gpu_layers, 0);
  EXPECT_EQ(l.max_tokens, 64);
  EXPECT_EQ(l.max_calls_per_reply, 2);
  EXPECT_EQ(l.max_string_chars, 40);
}

TEST(ConfigLocalSectionTest, BadValuesNameTheKey) {
  struct Case {
    const char* yaml;
    const char* want;
  };
  for (const Case& c : {Case{"local: {tool_choice: sometimes}\n", "local.tool_choice must be auto or required"},
                        Case{"local: {threads: -1}\n", "local.threads"},
                        Case{"local: {max_calls_per_reply: 17}\n", "local.max_calls_per_reply"},
                        Case{"local: {temperature: warm}\n", "local.temperature must be a number"},
                        Case{"local: {contxt_size: 5}\n", "did you mean 'context_size'"},
                        Case{"local: 3\n", "local"}}) {
    Result<detail::ConfigLayer> r = detail::parse_config_text(c.yaml, "/ws/keel.yaml");
    ASSERT_FALSE(r.ok()) << c.yaml;
    EXPECT_NE(r.status().message().find(c.want), std::string::npos) << r.status().message();
  }
}

}  // namespace
}  // namespace keel
