// Models' own chat templates, executed: every template of the fetched llama.cpp release
// (models/templates) rendered with a fixed set of conversations must equal, byte for byte, what
// Python's jinja2 renders under transformers' environment (test/llm/chat_templates/expected,
// written by scripts/render-chat-templates.py), except the renders known_differences.json lists
// with a reason; and bad templates fail with the template's name and line.
#include <gtest/gtest.h>

#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "keel/model_chat_template.hpp"

namespace keel {
namespace {

#if defined(KEEL_LLAMA_TEMPLATES_DIR) && !KEEL_HAS_JINJA
#error "the llama.cpp release was fetched but its Jinja engine is not built: see cmake/llama.cmake"
#endif

using OJson = nlohmann::ordered_json;

#if KEEL_HAS_JINJA
std::string slurp_template_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::filesystem::path chat_template_data() { return std::filesystem::path(KEEL_SOURCE_DIR) / "test/llm/chat_templates"; }

// 2026-01-15 09:30:00 UTC, the time the expected renders were made with (FIXED_NOW).
constexpr int64_t kTemplateTestNow = 1768469400;
#endif

class ModelChatTemplateTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    setenv("TZ", "UTC", 1);  // strftime_now formats local time
    tzset();
  }
};

#if KEEL_HAS_JINJA && defined(KEEL_LLAMA_TEMPLATES_DIR)

// The variables the Python script passes for conversation `c`.
OJson template_variables(const OJson& spec, const OJson& c, const OJson& expected) {
  OJson v = {{"messages", c["messages"]},
             {"bos_token", expected["bos_token"]},
             {"eos_token", expected["eos_token"]},
             {"add_generation_prompt", c.value("add_generation_prompt", true)}};
  if (c.value("tools", false)) v["tools"] = spec["tools"];
  if (c.contains("enable_thinking")) v["enable_thinking"] = c["enable_thinking"];
  return v;
}

TEST_F(ModelChatTemplateTest, EveryReleaseTemplateRendersAsTransformersDoes) {
  const OJson spec = OJson::parse(slurp_template_file(chat_template_data() / "conversations.json"));
  const OJson known = OJson::parse(slurp_template_file(chat_template_data() / "known_differences.json"))["differences"];
  std::set<std::string> templates;
  for (const auto& e : std::filesystem::directory_iterator(KEEL_LLAMA_TEMPLATES_DIR)) {
    if (e.path().extension() == ".jinja") templates.insert(e.path().filename().string());
  }
  ASSERT_GE(templates.size(), 70u) << "the release's models/templates were not fetched into " << KEEL_LLAMA_TEMPLATES_DIR;
  size_t same = 0, both_failed = 0, listed = 0;
  for (const std::string& name : templates) {
    std::filesystem::path expected_path = chat_template_data() / "expected" / (name.substr(0, name.size() - 6) + ".json");
    ASSERT_TRUE(std::filesystem::exists(expected_path))
        << name << " has no expected renders: run scripts/render-chat-templates.py";
    const OJson expected = OJson::parse(slurp_template_file(expected_path));
    Result<ModelChatTemplate> t = ModelChatTemplate::parse(slurp_template_file(std::filesystem::path(KEEL_LLAMA_TEMPLATES_DIR) / name), name);
    ASSERT_TRUE(t.ok()) << t.status().to_string();
    const OJson& renders = expected["renders"];
    ASSERT_EQ(renders.size(), spec["conversations"].size()) << name;
    for (size_t i = 0; i < renders.size(); ++i) {
      const OJson& c = spec["conversations"][i];
      const std::string id = c["id"];
      ASSERT_EQ(renders[i]["conversation"], id) << name;
      Result<std::string> got = t->render_json(template_variables(spec, c, expected).dump(), kTemplateTestNow);
      const bool agrees = renders[i].contains("error") ? !got.ok() : got.ok() && *got == renders[i]["prompt"].get<std::string>();
      if (known.contains(name) && known[name].contains(id)) {
        EXPECT_FALSE(agrees) << name << " / " << id << " now agrees with jinja2: remove it from known_differences.json";
        ++listed;
        continue;
      }
      if (renders[i].contains("error")) {
        EXPECT_FALSE(got.ok()) << name << " / " << id << ": jinja2 fails (" << renders[i]["error"] << ") but keel rendered";
        if (!got.ok()) {
          EXPECT_NE(got.status().message().find(name), std::string::npos) << got.status().message();
          ++both_failed;
        }
        continue;
      }
      ASSERT_TRUE(got.ok()) << name << " / " << id << ": " << got.status().to_string();
      const std::string want = renders[i]["prompt"];
      if (*got != want) {
        size_t at = 0;
        while (at < got->size() && at < want.size() && (*got)[at] == want[at]) ++at;
        ADD_FAILURE() << name << " / " << id << " differs at byte " << at << ": jinja2 wrote "
                      << OJson(want.substr(at, 80)).dump() << ", keel " << OJson(got->substr(at, 80)).dump();
      } else {
        ++same;
      }
    }
  }
  EXPECT_GE(same, 440u);
  EXPECT_GE(both_failed, 3u);  // Gemma 2's raise_exception, at least
  size_t known_count = 0;
  for (const auto& [name, ids] : known.items()) known_count += ids.size();
  EXPECT_EQ(listed, known_count) << "known_differences.json names a template or conversation that is not rendered";
}

// keel's own messages become the same variables the Python script was given.
TEST_F(ModelChatTemplateTest, KeelMessagesRenderAsTheirJsonDoes) {
  const std::string name = "Qwen-Qwen2.5-7B-Instruct.jinja";
  const OJson expected = OJson::parse(slurp_template_file(chat_template_data() / "expected/Qwen-Qwen2.5-7B-Instruct.json"));
  Result<ModelChatTemplate> t = ModelChatTemplate::parse(slurp_template_file(std::filesystem::path(KEEL_LLAMA_TEMPLATES_DIR) / name), name);
  ASSERT_TRUE(t.ok()) << t.status().to_string();
  ToolSpec weather;
  weather.name = "get_weather";
  weather.description = "Current weather in a city.";
  weather.parameters_schema =
      R"({"type": "object", "properties": {"city": {"type": "string", "description": "City name"}, "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}}, "required": ["city"]})";
  std::vector<ToolSpec> tools{weather};
  Message tool = Message::tool({});
  tool.content = R"({"temp": 18, "sky": "clear"})";
  tool.tool_call_id = "call12345";
  tool.name = "get_weather";
  std::vector<Message> messages{Message::user("Weather in Paris?"),
                                Message::assistant("", {{"call12345", "get_weather", R"({"city":"Paris","unit":"celsius"})"}}),
                                tool};
  ChatTemplateInputs in;
  in.messages = messages;
  in.tools = tools;
  in.bos_token = "<|bos|>";
  in.eos_token = "<|eos|>";
  Result<std::string> got = t->render(in);
  ASSERT_TRUE(got.ok()) << got.status().to_string();
  EXPECT_EQ(*got, expected["renders"][3]["prompt"].get<std::string>());
}

#endif  // KEEL_HAS_JINJA && KEEL_LLAMA_TEMPLATES_DIR

#if KEEL_HAS_JINJA
TEST_F(ModelChatTemplateTest, ASyntaxErrorNamesTheTemplateAndTheLine) {
  Result<ModelChatTemplate> t =
      ModelChatTemplate::parse("{% for m in messages %}\n{{ m.content }}\n{% if %}\n{% endfor %}", "broken.gguf");
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(t.status().message().find("chat template broken.gguf: line 3"), std::string::npos) << t.status().message();
  Result<ModelChatTemplate> unclosed = ModelChatTemplate::parse("line one\nline two {{ 'abc }}", "quote.jinja");
  ASSERT_FALSE(unclosed.ok());
  EXPECT_NE(unclosed.status().message().find("chat template quote.jinja: line 2"), std::string::npos)
      << unclosed.status().message();
}

TEST_F(ModelChatTemplateTest, AnUnknownFilterFailsTheRenderWithItsLine) {
  Result<ModelChatTemplate> t = ModelChatTemplate::parse("hello\n{{ messages | no_such_filter }}", "odd.jinja");
  ASSERT_TRUE(t.ok()) << t.status().to_string();  // filters are looked up when they run
  Result<std::string> got = t->render({});
  ASSERT_FALSE(got.ok());
  EXPECT_NE(got.status().message().find("chat template odd.jinja: line 2"), std::string::npos) << got.status().message();
  EXPECT_NE(got.status().message().find("no_such_filter"), std::string::npos) << got.status().message();
}

TEST_F(ModelChatTemplateTest, RaiseExceptionFailsTheRenderWithTheTemplatesMessage) {
  Result<ModelChatTemplate> t = ModelChatTemplate::parse(
      "{% for m in messages %}\n{% if m.role == 'system' %}\n{{ raise_exception('System role not supported') }}\n{% endif %}"
      "{{ m.content }}{% endfor %}",
      "gemma.gguf");
  ASSERT_TRUE(t.ok()) << t.status().to_string();
  std::vector<Message> messages{Message::system("be brief"), Message::user("hi")};
  ChatTemplateInputs in;
  in.messages = messages;
  Result<std::string> got = t->render(in);
  ASSERT_FALSE(got.ok());
  EXPECT_NE(got.status().message().find("chat template gemma.gguf: line 3"), std::string::npos) << got.status().message();
  EXPECT_NE(got.status().message().find("System role not supported"), std::string::npos) << got.status().message();
  in.messages = std::span<const Message>(messages).subspan(1);
  got = t->render(in);
  ASSERT_TRUE(got.ok()) << got.status().to_string();
  EXPECT_EQ(*got, "hi");
}

TEST_F(ModelChatTemplateTest, VariablesThatAreNotAnObjectAreRefused) {
  Result<ModelChatTemplate> t = ModelChatTemplate::parse("{{ x }}", "t.jinja");
  ASSERT_TRUE(t.ok());
  EXPECT_FALSE(t->render_json("[1]").ok());
  EXPECT_FALSE(t->render_json("{not json").ok());
  Result<std::string> got = t->render_json(R"({"x": "ok"})");
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(*got, "ok");
}
#endif

}  // namespace
}  // namespace keel
