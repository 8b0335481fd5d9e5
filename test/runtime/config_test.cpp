// resolve_config(): precedence across flags, environment, workspace and user files; provider
// prefixes; and the error messages a user sees for bad files.
#include "keel/config.hpp"

#include <gtest/gtest.h>

#include <string>

#include "support/config_dirs.hpp"
#include "support/temp_dir.hpp"

namespace keel {
namespace {

using ::keel::testing::TempDir;

// Resolution over a workspace and a HOME folder (support/config_dirs.hpp), plus a check.
class ConfigTest : public testing::ConfigDirsTest {
 protected:
  KeelConfig resolve_ok() {
    Result<KeelConfig> r = resolve_config(in);
    EXPECT_TRUE(r.ok()) << r.status().to_string();
    return r.ok() ? r.value() : KeelConfig{};
  }
  std::string resolve_error() {
    Result<KeelConfig> r = resolve_config(in);
    EXPECT_FALSE(r.ok());
    if (r.ok()) return {};
    EXPECT_EQ(r.status().code(), ErrorCode::kInvalidArgument);
    return r.status().message();
  }
};

TEST_F(ConfigTest, NoConfigAtAllMeansRulesFromDefault) {
  KeelConfig cfg = resolve_ok();
  EXPECT_EQ(cfg.model.kind, ModelSettings::Kind::kRules);
  EXPECT_EQ(cfg.model.name, "rules");
  EXPECT_EQ(cfg.model.source, "default");
  EXPECT_EQ(cfg.max_rounds, 20);
  EXPECT_TRUE(cfg.stream);
  EXPECT_TRUE(cfg.loaded_files.empty());
  EXPECT_TRUE(cfg.intents.empty());
}

TEST_F(ConfigTest, EmptyInputsNeedNoFiles) {
  ConfigInputs empty;
  Result<KeelConfig> r = resolve_config(empty);
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ(r->model.source, "default");
}

TEST_F(ConfigTest, ModelPrecedenceAcrossAllLevels) {
  user_yaml("model: lmstudio/user-model\n");
  EXPECT_EQ(resolve_ok().model.name, "lmstudio/user-model");
  EXPECT_EQ(resolve_ok().model.source, user_path());

  workspace_yaml("model: lmstudio/ws-model\n");
  EXPECT_EQ(resolve_ok().model.name, "lmstudio/ws-model");
  EXPECT_EQ(resolve_ok().model.source, workspace_path());

  in.env["KEEL_MODEL"] = "lmstudio/env-model";
  EXPECT_EQ(resolve_ok().model.name, "lmstudio/env-model");
  EXPECT_EQ(resolve_ok().model.source, "KEEL_MODEL");

  in.model = "rules";
  KeelConfig cfg = resolve_ok();
  EXPECT_EQ(cfg.model.kind, ModelSettings::Kind::kRules);
  EXPECT_EQ(cfg.model.source, "--model");
  EXPECT_EQ(cfg.loaded_files, (std::vector<std::string>{user_path(), workspace_path()}));
}

TEST_F(ConfigTest, MaxRoundsPrecedenceAcrossAllLevels) {
  user_yaml("max_rounds: 5\n");
  EXPECT_EQ(resolve_ok().max_rounds, 5);
  workspace_yaml("max_rounds: 6\n");
  EXPECT_EQ(resolve_ok().max_rounds, 6);
  in.env["KEEL_MAX_ROUNDS"] = "7";
  EXPECT_EQ(resolve_ok().max_rounds, 7);
  in.max_rounds = 8;
  EXPECT_EQ(resolve_ok().max_rounds, 8);
}

TEST_F(ConfigTest, OtherScalarsLayerFileByFile) {
  user_yaml("stream: false\nrequest_timeout_ms: 1000\nretry: {max_attempts: 2}\n");
  workspace_yaml(
      "request_timeout_ms: 2000\ntools: {shell: {enabled: no, timeout_ms: 5}}\n"
      "planner: {enabled: true, timeout_ms: 9}\n");
  KeelConfig cfg = resolve_ok();
  EXPECT_FALSE(cfg.stream);
  EXPECT_EQ(cfg.request_timeout_ms, 2000);
  EXPECT_EQ(cfg.retry.max_attempts, 2);
  EXPECT_EQ(cfg.retry.initial_delay_ms, 500);
  EXPECT_FALSE(cfg.shell_enabled);
  EXPECT_EQ(cfg.shell_timeout_ms, 5);
  EXPECT_TRUE(cfg.planner_enabled);
  EXPECT_EQ(cfg.planner_timeout_ms, 9);
  in.stream = true;
  EXPECT_TRUE(resolve_ok().stream);
}

TEST_F(ConfigTest, ProviderPrefixes) {
  struct Case {
    const char* name;
    const char* model;
    const char* base;
  };
  for (const Case& c :
       {Case{"openai/gpt-4o", "gpt-4o", "https://api.openai.com/v1"},
        Case{"ollama/qwen2.5:7b", "qwen2.5:7b", "http://127.0.0.1:11434/v1"},
        Case{"lmstudio/m", "m", "http://127.0.0.1:1234/v1"}, Case{"llamacpp/m", "m", "http://127.0.0.1:8080/v1"},
        Case{"vllm/meta-llama/Llama-3.1-8B", "meta-llama/Llama-3.1-8B", "http://127.0.0.1:8000/v1"}}) {
    in.model = c.name;
    KeelConfig cfg = resolve_ok();
    EXPECT_EQ(cfg.model.kind, ModelSettings::Kind::kOpenAiCompatible) << c.name;
    EXPECT_EQ(cfg.model.name, c.name);
    EXPECT_EQ(cfg.model.model, c.model);
    EXPECT_EQ(cfg.model.base_url, c.base) << c.name;
    EXPECT_EQ(cfg.model.api_key, "");
  }
}

TEST_F(ConfigTest, OpenAiBaseUrlAndKeyFromEnvironment) {
  in.model = "openai/gpt-4o";
  in.env["OPENAI_BASE_URL"] = "https://proxy.example/v1/";
  in.env["OPENAI_API_KEY"] = "sk-env";
  KeelConfig cfg = resolve_ok();
  EXPECT_EQ(cfg.model.base_url, "https://proxy.example/v1");
  EXPECT_EQ(cfg.model.api_key, "sk-env");
  // OPENAI_BASE_URL describes OpenAI, not a local server.
  in.model = "lmstudio/m";
  EXPECT_EQ(resolve_ok().model.base_url, "http://127.0.0.1:1234/v1");
}

TEST_F(ConfigTest, ExplicitBaseUrlOverridesProviderDefault) {
  in.model = "ollama/qwen";
  in.base_url = "http://gpu-box:11434/v1";
  in.env["OLLAMA_HOST"] = "elsewhere:1";
  EXPECT_EQ(resolve_ok().model.base_url, "http://gpu-box:11434/v1");
  in.base_url = "gpu-box:11434";
  EXPECT_NE(resolve_error().find("--base-url 'gpu-box:11434' must be an http:// or https:// URL"), std::string::npos);
}

TEST_F(ConfigTest, OllamaHostForms) {
  in.model = "ollama/qwen";
  struct Case {
    const char* host;
    const char* base;
  };
  for (const Case& c :
       {Case{"0.0.0.0:11434", "http://127.0.0.1:11434/v1"}, Case{"http://h:1", "http://h:1/v1"},
        Case{"gpu-box", "http://gpu-box:11434/v1"}, Case{"gpu-box:9000", "http://gpu-box:9000/v1"},
        Case{":9000", "http://127.0.0.1:9000/v1"}, Case{"https://ollama.example/", "https://ollama.example/v1"},
        Case{"[::1]:11434", "http://[::1]:11434/v1"}, Case{"[::1]", "http://[::1]:11434/v1"},
        Case{"http://h:1/v1", "http://h:1/v1"}}) {
    in.env["OLLAMA_HOST"] = c.host;
    EXPECT_EQ(resolve_ok().model.base_url, c.base) << c.host;
  }
}

TEST_F(ConfigTest, UnknownModelWithoutBaseIsAnError) {
  in.model = "gpt-4o";
  EXPECT_EQ(resolve_error(),
            "model 'gpt-4o' needs a base URL: pass --base-url, set OPENAI_BASE_URL, or use a provider prefix "
            "(openai/, ollama/, lmstudio/, llamacpp/, vllm/)");
}

TEST_F(ConfigTest, UnknownModelBaseSources) {
  in.model = "my-model";
  in.env["OPENAI_API_KEY"] = "sk";
  EXPECT_EQ(resolve_ok().model.base_url, "https://api.openai.com/v1");
  workspace_yaml("base_url: http://10.0.0.2:8000/v1\n");
  KeelConfig cfg = resolve_ok();
  EXPECT_EQ(cfg.model.base_url, "http://10.0.0.2:8000/v1");
  EXPECT_EQ(cfg.model.model, "my-model");
  in.env["OPENAI_BASE_URL"] = "http://env:1/v1";
  EXPECT_EQ(resolve_ok().model.base_url, "http://env:1/v1");
  in.base_url = "http://flag:2/v1";
  EXPECT_EQ(resolve_ok().model.base_url, "http://flag:2/v1");
}

TEST_F(ConfigTest, ApiKeyPrecedence) {
  in.model = "ollama/qwen";
  user_yaml("api_key: from-user\n");
  EXPECT_EQ(resolve_ok().model.api_key, "from-user");
  user_yaml("api_key_env: MY_KEY\n");
  EXPECT_NE(resolve_error().find(user_path() + ": api_key_env names MY_KEY, which is not set"), std::string::npos);
  in.env["MY_KEY"] = "from-my-key";
  EXPECT_EQ(resolve_ok().model.api_key, "from-my-key");
  in.env["OPENAI_API_KEY"] = "from-env";
  EXPECT_EQ(resolve_ok().model.api_key, "from-env");
  in.api_key = "from-flag";
  EXPECT_EQ(resolve_ok().model.api_key, "from-flag");
}

TEST_F(ConfigTest, WorkspaceFileCannotRedirectOrReadTheUsersKeys) {
  in.env["OPENAI_API_KEY"] = "sk-secret";
  in.env["AWS_SECRET_ACCESS_KEY"] = "aws-secret";
  workspace_yaml("model: gpt-4o\nbase_url: http://attacker.example/v1\n");
  KeelConfig cfg = resolve_ok();
  EXPECT_EQ(cfg.model.base_url, "http://attacker.example/v1");
  EXPECT_EQ(cfg.model.api_key, "");  // the environment's key is not sent to a repository's URL
  in.api_key = "explicit";
  EXPECT_EQ(resolve_ok().model.api_key, "explicit");
  in.api_key.reset();
  workspace_yaml("model: openai/gpt-4o\n");  // the official endpoint still gets the key
  EXPECT_EQ(resolve_ok().model.api_key, "sk-secret");
  workspace_yaml("model: openai/gpt-4o\napi_key_env: AWS_SECRET_ACCESS_KEY\n");
  EXPECT_NE(resolve_error().find("only honoured in your user config"), std::string::npos);
}

TEST_F(ConfigTest, RulesModelIgnoresKeys) {
  in.env["OPENAI_API_KEY"] = "sk";
  KeelConfig cfg = resolve_ok();
  EXPECT_EQ(cfg.model.api_key, "");
  EXPECT_EQ(cfg.model.base_url, "");
}

TEST_F(ConfigTest, EmptyNameAfterPrefixIsAnError) {
  in.model = "ollama/";
  EXPECT_NE(resolve_error().find("has no model name after 'ollama/'"), std::string::npos);
  in.model = "";
  EXPECT_NE(resolve_error().find("--model must not be empty"), std::string::npos);
}

TEST_F(ConfigTest, TypoKeyNamesFileKeyAndKnownKeys) {
  workspace_yaml("model: rules\nmax_round: 3\n");
  std::string msg = resolve_error();
  EXPECT_NE(msg.find(workspace_path() + ": unknown key 'max_round' (did you mean 'max_rounds'?)"), std::string::npos)
      << msg;
  EXPECT_NE(msg.find("known keys: model, base_url,"), std::string::npos) << msg;
}

TEST_F(ConfigTest, NestedTypoKey) {
  user_yaml("retry:\n  max_attempt: 3\n");
  std::string msg = resolve_error();
  EXPECT_NE(msg.find(user_path() + ": unknown key 'retry.max_attempt'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("known keys in retry: max_attempts, initial_delay_ms, max_delay_ms"), std::string::npos) << msg;
}

TEST_F(ConfigTest, WrongTypesNameFileAndKey) {
  workspace_yaml("max_rounds: lots\n");
  EXPECT_EQ(resolve_error(), workspace_path() + ": max_rounds must be an integer >= 1 and <= 1000, got 'lots'");
  workspace_yaml("max_rounds: 0\n");
  EXPECT_NE(resolve_error().find("max_rounds must be an integer >= 1"), std::string::npos);
  workspace_yaml("max_rounds: [1]\n");
  EXPECT_EQ(resolve_error(), workspace_path() + ": max_rounds must be an integer >= 1 and <= 1000");
  workspace_yaml("stream: maybe\n");
  EXPECT_EQ(resolve_error(), workspace_path() + ": stream must be true or false, got 'maybe'");
  workspace_yaml("connect_timeout_ms: -5\n");
  EXPECT_NE(resolve_error().find("connect_timeout_ms must be an integer >= 1"), std::string::npos);
  workspace_yaml("model: {a: 1}\n");
  EXPECT_EQ(resolve_error(), workspace_path() + ": model must be a string");
  workspace_yaml("retry: 3\n");
  EXPECT_EQ(resolve_error(), workspace_path() + ": retry must be a mapping of keys to values");
  workspace_yaml("- a\n- b\n");
  EXPECT_NE(resolve_error().find("the top level must be a mapping"), std::string::npos);
}

TEST_F(ConfigTest, BadEnvAndFlagValues) {
  in.env["KEEL_MAX_ROUNDS"] = "ten";
  EXPECT_EQ(resolve_error(), "KEEL_MAX_ROUNDS must be an integer >= 1 and <= 1000, got 'ten'");
  in.env.erase("KEEL_MAX_ROUNDS");
  in.max_rounds = 1001;
  EXPECT_EQ(resolve_error(), "--max-rounds must be an integer >= 1 and <= 1000, got 1001");
}

TEST_F(ConfigTest, MalformedYamlNamesFileAndLine) {
  workspace_yaml("model: rules\nmax_rounds: [1, 2\n");
  std::string msg = resolve_error();
  EXPECT_EQ(msg.rfind(workspace_path() + ": not valid YAML at line ", 0), 0u) << msg;
}

TEST_F(ConfigTest, UnreadableFileIsAnError) {
  dir.write("ws/keel.yaml/inner", "");  // keel.yaml is a directory
  EXPECT_NE(resolve_error().find("cannot read config file " + workspace_path()), std::string::npos);
}

TEST_F(ConfigTest, EmptyFileIsFine) {
  workspace_yaml("");
  KeelConfig cfg = resolve_ok();
  EXPECT_EQ(cfg.loaded_files, std::vector<std::string>{workspace_path()});
}

TEST_F(ConfigTest, IntentsConcatenateUserFirst) {
  user_yaml("intents:\n  - {name: deploy, keywords: [deploy, ship], tools: [shell]}\n");
  workspace_yaml("intents:\n  - name: tests\n    patterns: ['run (the )?tests?']\n    tools: [shell, fs_read]\n");
  KeelConfig cfg = resolve_ok();
  ASSERT_EQ(cfg.intents.size(), 2u);
  EXPECT_EQ(cfg.intents[0].name, "deploy");
  EXPECT_EQ(cfg.intents[0].keywords, (std::vector<std::string>{"deploy", "ship"}));
  EXPECT_EQ(cfg.intents[1].name, "tests");
  EXPECT_EQ(cfg.intents[1].patterns, std::vector<std::string>{"run (the )?tests?"});
  EXPECT_EQ(cfg.intents[1].tools, (std::vector<std::string>{"shell", "fs_read"}));
}

TEST_F(ConfigTest, BadIntentRegexNamesTheRule) {
  workspace_yaml("intents:\n  - name: broken\n    patterns: ['fix (it']\n");
  std::string msg = resolve_error();
  EXPECT_NE(msg.find(workspace_path() + ": intents[0] ('broken').patterns has 'fix (it', which is not a valid "
                                        "regular expression"),
            std::string::npos)
      << msg;
}

TEST_F(ConfigTest, IntentShapeErrors) {
  workspace_yaml("intents: {name: x}\n");
  EXPECT_NE(resolve_error().find("intents must be a list"), std::string::npos);
  workspace_yaml("intents: [{keywords: [a]}]\n");
  EXPECT_NE(resolve_error().find("intents[0] needs a non-empty name"), std::string::npos);
  workspace_yaml("intents: [{name: x}]\n");
  EXPECT_NE(resolve_error().find("needs at least one keyword or pattern"), std::string::npos);
  workspace_yaml("intents: [{name: x, keyword: [a]}]\n");
  EXPECT_NE(resolve_error().find("unknown key 'intents[0].keyword' (did you mean 'keywords'?)"), std::string::npos);
}

TEST_F(ConfigTest, XdgConfigHomeIsHonoured) {
  user_yaml("max_rounds: 3\n");  // under HOME: ignored once XDG_CONFIG_HOME is set
  dir.write("xdg/keel/config.yaml", "max_rounds: 9\nmodel: vllm/x\n");
  in.env["XDG_CONFIG_HOME"] = (dir.path() / "xdg").string();
  KeelConfig cfg = resolve_ok();
  EXPECT_EQ(cfg.max_rounds, 9);
  EXPECT_EQ(cfg.model.source, (dir.path() / "xdg" / "keel" / "config.yaml").string());
  EXPECT_EQ(cfg.loaded_files.size(), 1u);
}

TEST_F(ConfigTest, ApiKeyAndApiKeyEnvTogetherIsAnError) {
  user_yaml("api_key: a\napi_key_env: B\n");
  EXPECT_EQ(resolve_error(), user_path() + ": api_key and api_key_env are both set; keep one");
}

TEST(CurrentEnvironment, ReadsTheProcessEnvironment) {
  ASSERT_EQ(setenv("KEEL_CONFIG_TEST_VAR", "a=b", 1), 0);
  std::map<std::string, std::string> env = current_environment();
  EXPECT_EQ(env["KEEL_CONFIG_TEST_VAR"], "a=b");
  unsetenv("KEEL_CONFIG_TEST_VAR");
}

}  // namespace
}  // namespace keel

namespace keel {
namespace {

TEST(SkillDirsConfigTest, WorkspaceFoldersComeBeforeTheUserFolder) {
  ConfigInputs in;
  in.workspace = "/ws";
  in.home = "/home/u";
  auto cfg = resolve_config(in);
  ASSERT_TRUE(cfg.ok()) << cfg.status().to_string();
  EXPECT_EQ(cfg->skill_dirs,
            (std::vector<std::string>{"/ws/.keel/skills", "/ws/.agents/skills", "/home/u/.config/keel/skills"}));
  in.env["XDG_CONFIG_HOME"] = "/xdg";
  in.workspace.clear();
  cfg = resolve_config(in);
  ASSERT_TRUE(cfg.ok()) << cfg.status().to_string();
  EXPECT_EQ(cfg->skill_dirs, (std::vector<std::string>{"/xdg/keel/skills"}));
}

TEST(SkillDirsConfigTest, SkillsSettingsOfBothFilesApplyWorkspaceLast) {
  testing::TempDir dir;
  dir.write("ws/keel.yaml", "skills: {enabled: false}\n");
  dir.write("home/.config/keel/config.yaml", "skills: {enabled: true, disclosure_percent: 7}\n");
  ConfigInputs in;
  in.workspace = (dir.path() / "ws").string();
  in.home = (dir.path() / "home").string();
  auto cfg = resolve_config(in);
  ASSERT_TRUE(cfg.ok()) << cfg.status().to_string();
  EXPECT_FALSE(cfg->skills.enabled);
  EXPECT_EQ(cfg->skills.disclosure_percent, 7);
}

}  // namespace
}  // namespace keel
