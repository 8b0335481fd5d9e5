// `keel template render|inspect`: the exact prompt a chat template renders, the call format keel
// derives from it, and clear errors (exit 2) for a missing file, a broken template, bad JSON.
#include <gtest/gtest.h>

#if KEEL_HAS_JINJA && defined(KEEL_LLAMA_TEMPLATES_DIR)
#include <fstream>
#include <nlohmann/json.hpp>

#include "support/cli_runner.hpp"
#include "support/temp_dir.hpp"

namespace keel {
namespace {

testing::CliRun keel_template(const std::vector<std::string>& args, const std::string& cwd) {
  testing::CliOptions o;
  o.cwd = cwd;
  std::vector<std::string> all{"template"};
  all.insert(all.end(), args.begin(), args.end());
  return testing::run_cli(KEEL_BINARY, all, o);
}

class TemplateCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::ofstream(ws_.path() / "messages.json")
        << R"([{"role":"user","content":"Weather in Paris?"},{"role":"assistant","content":"","tool_calls":[{"id":"c1","type":"function","function":{"name":"get_weather","arguments":{"city":"Paris"}}}]}])";
    std::ofstream(ws_.path() / "broken.jinja") << "{% for m in messages %}\n{{ m.content }}\n{% if %}";
  }
  std::string qwen() const { return std::string(KEEL_LLAMA_TEMPLATES_DIR) + "/Qwen-Qwen2.5-7B-Instruct.jinja"; }
  testing::TempDir ws_;
};

TEST_F(TemplateCommandTest, RenderPrintsTheExactPrompt) {
  testing::CliRun r = keel_template({"render", "--template", qwen(), "--messages", "messages.json", "--add-generation-prompt"},
                                    ws_.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "<|im_start|>system\nYou are Qwen, created by Alibaba Cloud. You are a helpful assistant.<|im_end|>\n"
            "<|im_start|>user\nWeather in Paris?<|im_end|>\n<|im_start|>assistant\n<tool_call>\n"
            "{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call><|im_end|>\n"
            "<|im_start|>assistant\n");
}

TEST_F(TemplateCommandTest, InspectPrintsTheDerivedCallFormat) {
  testing::CliRun r = keel_template({"inspect", "--template", qwen(), "--json"}, ws_.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_TRUE(j["grammar"].get<bool>());
  EXPECT_EQ(j["syntax"]["open"], "<tool_call>");
  EXPECT_EQ(j["syntax"]["style"], "json-object");
  EXPECT_EQ(j["end_of_turn"], "<|im_end|>");
  testing::CliRun text = keel_template({"inspect", "--template", std::string(KEEL_LLAMA_TEMPLATES_DIR) + "/Qwen3-Coder.jinja"},
                                       ws_.path());
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("no grammar"), std::string::npos) << text.out;
}

TEST_F(TemplateCommandTest, BadInputIsAClearErrorWithExitTwo) {
  testing::CliRun broken = keel_template({"render", "--template", "broken.jinja", "--messages", "messages.json"}, ws_.path());
  EXPECT_EQ(broken.exit_code, 2);
  EXPECT_NE(broken.err.find("chat template broken.jinja: line 3"), std::string::npos) << broken.err;
  testing::CliRun missing = keel_template({"inspect", "--template", "nope.jinja"}, ws_.path());
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("nope.jinja"), std::string::npos) << missing.err;
  std::ofstream(ws_.path() / "bad.json") << "{not json";
  testing::CliRun bad = keel_template({"render", "--template", qwen(), "--messages", "bad.json"}, ws_.path());
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("not a JSON array"), std::string::npos) << bad.err;
  testing::CliRun both = keel_template({"inspect"}, ws_.path());
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_NE(both.err.find("--template"), std::string::npos) << both.err;
}

}  // namespace
}  // namespace keel
#endif
