#include "keel/core/chat_template.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "keel/core/tool_call_parser.hpp"

namespace keel {
namespace {

constexpr ChatFamily kAllFamilies[] = {ChatFamily::kChatML, ChatFamily::kLlama3, ChatFamily::kMistral,
                                       ChatFamily::kGemma};

std::vector<ToolSpec> weather_tools() {
  std::vector<ToolSpec> tools(2);
  tools[0].name = "get_weather";
  tools[0].description = "Weather for a city";
  tools[0].parameters_schema = R"({"type":"object","properties":{"city":{"type":"string"}},"required":["city"]})";
  tools[1].name = "get_time";
  tools[1].description = "Local time";
  tools[1].parameters_schema = R"({"type":"object","properties":{"zone":{"type":"string"}}})";
  return tools;
}

Message tool_message(std::string id, std::string name, std::string content) {
  ToolResult r;
  r.call_id = std::move(id);
  r.name = std::move(name);
  r.content = std::move(content);
  return Message::tool(r);
}

// system, user, assistant with a call, its result, the answer.
std::vector<Message> small_conversation() {
  std::vector<Message> m;
  m.push_back(Message::system("Be brief."));
  m.push_back(Message::user("Weather in Paris?"));
  m.push_back(Message::assistant("", {ToolCall{"c1", "get_weather", R"({"city":"Paris"})"}}));
  m.push_back(tool_message("c1", "get_weather", "18C, sunny"));
  m.push_back(Message::assistant("It is 18C and sunny."));
  return m;
}

std::string render(ChatFamily f, const std::vector<Message>& m, bool generation_prompt, bool bos = false) {
  ChatRenderOptions o;
  o.add_generation_prompt = generation_prompt;
  o.add_bos = bos;
  return render_chat(f, m, o);
}

TEST(ChatTemplateTest, FamilyNamesRoundTrip) {
  EXPECT_EQ(chat_family_name(ChatFamily::kChatML), "chatml");
  EXPECT_EQ(chat_family_name(ChatFamily::kLlama3), "llama3");
  EXPECT_EQ(chat_family_name(ChatFamily::kMistral), "mistral");
  EXPECT_EQ(chat_family_name(ChatFamily::kGemma), "gemma");
  for (ChatFamily f : kAllFamilies) EXPECT_EQ(chat_family_from_name(chat_family_name(f)), f);
  EXPECT_EQ(chat_family_from_name("ChatML"), std::nullopt);
  EXPECT_EQ(chat_family_from_name("phi3"), std::nullopt);
  EXPECT_EQ(chat_family_from_name(""), std::nullopt);
}

TEST(ChatTemplateTest, DetectsFamiliesFromTemplateSnippets) {
  // Excerpts in the style of the families' published tokenizer_config chat templates.
  const char* qwen =
      "{%- if tools %}\n    {{- '<|im_start|>system\\n' }}\n    {%- if messages[0]['role'] == 'system' %}"
      "\n        {{- messages[0]['content'] }}\n{%- endfor %}\n{{- '<|im_end|>\\n' }}";
  const char* llama =
      "{{- bos_token }}\n{{- \"<|start_header_id|>system<|end_header_id|>\\n\\n\" }}\n{{- \"Environment: "
      "ipython\\n\" }}\n{{- system_message }}\n{{- \"<|eot_id|>\" }}";
  const char* mistral =
      "{{- bos_token }}\n{%- for message in loop_messages %}\n    {%- if message[\"role\"] == \"user\" %}\n"
      "        {{- \"[INST]\" + message[\"content\"] + \"[/INST]\" }}\n    {%- elif message.tool_calls %}"
      "\n        {{- \"[TOOL_CALLS][\" }}";
  const char* gemma =
      "{{ bos_token }}\n{%- for message in loop_messages -%}\n    {{ '<start_of_turn>' + role + '\\n' + "
      "(first_user_prefix if loop.first else \"\") }}\n    {{ '<end_of_turn>\\n' }}";
  const char* phi3 =
      "{% for message in messages %}{{'<|' + message['role'] + '|>' + '\\n' + message['content'] + "
      "'<|end|>\\n' }}{% endfor %}";
  EXPECT_EQ(detect_chat_family(qwen), ChatFamily::kChatML);
  EXPECT_EQ(detect_chat_family(llama), ChatFamily::kLlama3);
  EXPECT_EQ(detect_chat_family(mistral), ChatFamily::kMistral);
  EXPECT_EQ(detect_chat_family(gemma), ChatFamily::kGemma);
  EXPECT_EQ(detect_chat_family(phi3), std::nullopt);
  EXPECT_EQ(detect_chat_family(""), std::nullopt);
}

TEST(ChatTemplateTest, CallSyntaxAndStopStrings) {
  CallSyntax chatml = call_syntax(ChatFamily::kChatML);
  EXPECT_EQ(chatml.open, "<tool_call>");
  EXPECT_EQ(chatml.close, "</tool_call>");
  EXPECT_EQ(chatml.arguments_key, "arguments");
  EXPECT_FALSE(chatml.list);
  CallSyntax llama = call_syntax(ChatFamily::kLlama3);
  EXPECT_EQ(llama.open, "<|python_tag|>");
  EXPECT_EQ(llama.close, "");
  EXPECT_EQ(llama.arguments_key, "parameters");
  CallSyntax mistral = call_syntax(ChatFamily::kMistral);
  EXPECT_EQ(mistral.open, "[TOOL_CALLS]");
  EXPECT_TRUE(mistral.list);
  EXPECT_EQ(call_syntax(ChatFamily::kGemma).open, "<tool_call>");

  EXPECT_EQ(stop_strings(ChatFamily::kChatML), (std::vector<std::string>{"<|im_end|>", "<|endoftext|>"}));
  EXPECT_EQ(stop_strings(ChatFamily::kLlama3),
            (std::vector<std::string>{"<|eot_id|>", "<|eom_id|>", "<|end_of_text|>"}));
  EXPECT_EQ(stop_strings(ChatFamily::kMistral), (std::vector<std::string>{"</s>"}));
  EXPECT_EQ(stop_strings(ChatFamily::kGemma), (std::vector<std::string>{"<end_of_turn>", "<eos>"}));
}

TEST(ChatTemplateTest, RendersChatML) {
  EXPECT_EQ(render(ChatFamily::kChatML, small_conversation(), true),
            "<|im_start|>system\nBe brief.<|im_end|>\n"
            "<|im_start|>user\nWeather in Paris?<|im_end|>\n"
            "<|im_start|>assistant\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\":\"Paris\"}}\n"
            "</tool_call><|im_end|>\n"
            "<|im_start|>user\n<tool_response>\n{\"name\":\"get_weather\",\"content\":\"18C, sunny\"}\n"
            "</tool_response><|im_end|>\n"
            "<|im_start|>assistant\nIt is 18C and sunny.<|im_end|>\n"
            "<|im_start|>assistant\n");
  // ChatML has no BOS text.
  EXPECT_EQ(render(ChatFamily::kChatML, small_conversation(), false, true),
            render(ChatFamily::kChatML, small_conversation(), false));
}

TEST(ChatTemplateTest, RendersLlama3) {
  EXPECT_EQ(render(ChatFamily::kLlama3, small_conversation(), true, true),
            "<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nBe brief.<|eot_id|>"
            "<|start_header_id|>user<|end_header_id|>\n\nWeather in Paris?<|eot_id|>"
            "<|start_header_id|>assistant<|end_header_id|>\n\n"
            "<|python_tag|>{\"name\": \"get_weather\", \"parameters\": {\"city\":\"Paris\"}}<|eot_id|>"
            "<|start_header_id|>ipython<|end_header_id|>\n\n{\"name\":\"get_weather\",\"content\":\"18C, sunny\"}"
            "<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\nIt is 18C and sunny.<|eot_id|>"
            "<|start_header_id|>assistant<|end_header_id|>\n\n");
}

TEST(ChatTemplateTest, RendersMistral) {
  EXPECT_EQ(render(ChatFamily::kMistral, small_conversation(), true, true),
            "<s>[INST]Be brief.\n\nWeather in Paris?[/INST]"
            "[TOOL_CALLS][{\"name\": \"get_weather\", \"arguments\": {\"city\":\"Paris\"}}]</s>"
            "[TOOL_RESULTS]{\"name\":\"get_weather\",\"content\":\"18C, sunny\"}[/TOOL_RESULTS]"
            "It is 18C and sunny.</s>");
}

TEST(ChatTemplateTest, RendersGemma) {
  EXPECT_EQ(render(ChatFamily::kGemma, small_conversation(), true, true),
            "<bos><start_of_turn>user\nBe brief.\n\nWeather in Paris?<end_of_turn>\n"
            "<start_of_turn>model\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\":\"Paris\"}}\n"
            "</tool_call><end_of_turn>\n"
            "<start_of_turn>user\n<tool_response>\n{\"name\":\"get_weather\",\"content\":\"18C, sunny\"}\n"
            "</tool_response><end_of_turn>\n"
            "<start_of_turn>model\nIt is 18C and sunny.<end_of_turn>\n"
            "<start_of_turn>model\n");
}

TEST(ChatTemplateTest, ToolSectionDescribesToolsInTheFamilySyntax) {
  std::vector<ToolSpec> tools = weather_tools();
  std::vector<Message> m = {Message::system("Be brief."), Message::user("Hi")};
  ChatRenderOptions o;
  o.tools = tools;
  const std::string weather_json =
      R"({"type":"function","function":{"name":"get_weather","description":"Weather for a city","parameters":)"
      R"({"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}})";
  std::string chatml = render_chat(ChatFamily::kChatML, m, o);
  EXPECT_TRUE(chatml.starts_with("<|im_start|>system\nBe brief.\n\n# Tools\n\n")) << chatml;
  EXPECT_NE(chatml.find(std::string("<tools>\n").append(weather_json).append("\n")), std::string::npos) << chatml;
  EXPECT_NE(chatml.find("<tool_call>\n{\"name\": <function-name>, \"arguments\": <arguments-object>}\n</tool_call>"
                        "<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n"),
            std::string::npos)
      << chatml;

  std::string llama = render_chat(ChatFamily::kLlama3, m, o);
  EXPECT_TRUE(llama.starts_with("<|start_header_id|>system<|end_header_id|>\n\nEnvironment: ipython\n\nBe brief."));
  EXPECT_NE(llama.find("<|python_tag|>{\"name\": <function-name>, \"parameters\": <arguments-object>}<|eot_id|>"),
            std::string::npos)
      << llama;

  std::string mistral = render_chat(ChatFamily::kMistral, m, o);
  EXPECT_TRUE(mistral.starts_with(std::string("[AVAILABLE_TOOLS][").append(weather_json).append(", {"))) << mistral;
  EXPECT_NE(mistral.find("][/AVAILABLE_TOOLS][INST]Be brief.\n\nHi[/INST]"), std::string::npos) << mistral;

  // Gemma has no system role: the system text and the tools open the first user turn.
  std::string gemma = render_chat(ChatFamily::kGemma, m, o);
  EXPECT_TRUE(gemma.starts_with("<start_of_turn>user\nBe brief.\n\n# Tools\n\n")) << gemma;
  EXPECT_NE(gemma.find("</tool_call>\n\nHi<end_of_turn>\n<start_of_turn>model\n"), std::string::npos) << gemma;

  // Tools without a system message still come first.
  std::vector<Message> only_user = {Message::user("Hi")};
  EXPECT_TRUE(render_chat(ChatFamily::kChatML, only_user, o).starts_with("<|im_start|>system\n# Tools\n\n"));
  EXPECT_TRUE(render_chat(ChatFamily::kGemma, only_user, o).starts_with("<start_of_turn>user\n# Tools\n\n"));
}

// Two rounds of tools (two calls with their results, then one more), a later system message and
// another user question.
std::vector<Message> multi_round() {
  std::vector<Message> m;
  m.push_back(Message::system("You help with travel."));
  m.push_back(Message::user("Weather and time in Paris?"));
  m.push_back(Message::assistant("Let me check.", {ToolCall{"c1", "get_weather", R"({"city":"Paris"})"},
                                                   ToolCall{"c2", "get_time", R"({"zone":"Europe/Paris"})"}}));
  m.push_back(tool_message("c1", "get_weather", "18C"));
  m.push_back(tool_message("c2", "get_time", "14:05"));
  m.push_back(Message::assistant("", {ToolCall{"c3", "get_weather", R"({"city":"Lyon"})"}}));
  m.push_back(tool_message("c3", "get_weather", "20C \"warm\""));
  m.push_back(Message::assistant("18C at 14:05; Lyon is 20C."));
  m.push_back(Message::system("Answer in French from now on."));
  m.push_back(Message::user("Merci. Et demain?"));
  m.push_back(Message::assistant("Je ne sais pas."));
  return m;
}

TEST(ChatTemplateTest, RenderingIsPrefixStable) {
  std::vector<ToolSpec> tools = weather_tools();
  for (bool with_system : {true, false}) {
    std::vector<Message> all = multi_round();
    if (!with_system) all.erase(all.begin());
    for (ChatFamily f : kAllFamilies) {
      for (bool with_tools : {true, false}) {
        ChatRenderOptions o;
        o.add_bos = true;
        if (with_tools) o.tools = tools;
        for (size_t k = 1; k < all.size(); ++k) {
          std::span<const Message> shorter(all.data(), k);
          std::span<const Message> longer(all.data(), k + 1);
          o.add_generation_prompt = false;
          std::string base = render_chat(f, shorter, o);
          std::string next = render_chat(f, longer, o);
          o.add_generation_prompt = true;
          std::string next_prompt = render_chat(f, longer, o);
          std::string base_prompt = render_chat(f, shorter, o);
          EXPECT_TRUE(next.starts_with(base)) << chat_family_name(f) << " k=" << k << "\n" << base << "\n---\n" << next;
          EXPECT_TRUE(next_prompt.starts_with(base)) << chat_family_name(f) << " k=" << k;
          EXPECT_TRUE(base_prompt.starts_with(base)) << chat_family_name(f) << " k=" << k;
          EXPECT_GT(next.size(), base.size()) << chat_family_name(f) << " k=" << k;
        }
      }
    }
  }
}

TEST(ChatTemplateTest, EachToolResultNamesItsTool) {
  std::vector<Message> m = multi_round();
  m[4].name.clear();  // found through the call id instead
  for (ChatFamily f : kAllFamilies) {
    std::string text = render(f, m, false);
    EXPECT_NE(text.find(R"({"name":"get_weather","content":"18C"})"), std::string::npos) << chat_family_name(f);
    EXPECT_NE(text.find(R"({"name":"get_time","content":"14:05"})"), std::string::npos) << chat_family_name(f);
    EXPECT_NE(text.find(R"({"name":"get_weather","content":"20C \"warm\""})"), std::string::npos)
        << chat_family_name(f);
  }
  EXPECT_NE(render(ChatFamily::kChatML, m, false)
                .find("<|im_start|>user\n<tool_response>\n{\"name\":\"get_weather\",\"content\":\"18C\"}\n"
                      "</tool_response><|im_end|>\n<|im_start|>user\n<tool_response>\n"
                      "{\"name\":\"get_time\",\"content\":\"14:05\"}\n</tool_response><|im_end|>\n"),
            std::string::npos);
  EXPECT_NE(render(ChatFamily::kMistral, m, false)
                .find("[TOOL_RESULTS]{\"name\":\"get_weather\",\"content\":\"18C\"}[/TOOL_RESULTS]"
                      "[TOOL_RESULTS]{\"name\":\"get_time\",\"content\":\"14:05\"}[/TOOL_RESULTS]"),
            std::string::npos);
}

TEST(ChatTemplateTest, TextThenSeveralCalls) {
  std::vector<Message> m = multi_round();
  m.resize(3);
  EXPECT_NE(render(ChatFamily::kChatML, m, false)
                .find("<|im_start|>assistant\nLet me check.\n<tool_call>\n"
                      "{\"name\": \"get_weather\", \"arguments\": {\"city\":\"Paris\"}}\n</tool_call>\n<tool_call>\n"
                      "{\"name\": \"get_time\", \"arguments\": {\"zone\":\"Europe/Paris\"}}\n</tool_call><|im_end|>\n"),
            std::string::npos);
  EXPECT_TRUE(render(ChatFamily::kMistral, m, false)
                  .ends_with("[/INST]Let me check.[TOOL_CALLS][{\"name\": \"get_weather\", \"arguments\": "
                             "{\"city\":\"Paris\"}}, {\"name\": \"get_time\", \"arguments\": "
                             "{\"zone\":\"Europe/Paris\"}}]</s>"));
  EXPECT_TRUE(render(ChatFamily::kLlama3, m, false)
                  .ends_with("Let me check.<|python_tag|>{\"name\": \"get_weather\", \"parameters\": "
                             "{\"city\":\"Paris\"}}\n<|python_tag|>{\"name\": \"get_time\", \"parameters\": "
                             "{\"zone\":\"Europe/Paris\"}}<|eot_id|>"));
}

TEST(ChatTemplateTest, SystemAloneClosesTheFoldedTurnForTheAnswer) {
  std::vector<Message> m = {Message::system("Be brief.")};
  EXPECT_EQ(render(ChatFamily::kMistral, m, false), "[INST]Be brief.\n\n");
  EXPECT_EQ(render(ChatFamily::kMistral, m, true), "[INST]Be brief.\n\n[/INST]");
  EXPECT_EQ(render(ChatFamily::kGemma, m, true),
            "<start_of_turn>user\nBe brief.\n\n<end_of_turn>\n<start_of_turn>model\n");
}

TEST(ChatTemplateTest, EmptyArgumentsRenderAsEmptyObject) {
  std::vector<ToolCall> calls = {ToolCall{"c", "get_time", ""}, ToolCall{"d", "get_time", "  {\"zone\":\"UTC\"}\n"}};
  EXPECT_EQ(
      render_tool_calls(call_syntax(ChatFamily::kMistral), calls),
      R"([TOOL_CALLS][{"name": "get_time", "arguments": {}}, {"name": "get_time", "arguments": {"zone":"UTC"}}])");
  EXPECT_EQ(render_tool_calls(call_syntax(ChatFamily::kMistral), {}), "");
}

// What the model writes in each family's syntax is read back by keel's default parser.
TEST(ChatTemplateTest, CallSyntaxRoundTripsThroughTheDefaultParser) {
  std::vector<ToolSpec> tools = weather_tools();
  std::vector<ToolCall> calls = {ToolCall{"", "get_weather", R"({"city": "São Paulo", "note": "a \"b\"\nc"})"},
                                 ToolCall{"", "get_time", R"({"zone":"UTC"})"}};
  auto parser = make_default_tool_call_parser();
  for (ChatFamily f : kAllFamilies) {
    CallSyntax syntax = call_syntax(f);
    for (size_t n : {size_t{1}, size_t{2}}) {
      for (bool with_text : {false, true}) {
        std::string reply = with_text ? "Checking now." : "";
        if (with_text && !syntax.close.empty()) reply.push_back('\n');
        reply.append(render_tool_calls(syntax, std::span<const ToolCall>(calls.data(), n)));
        ParsedReply p = parser->parse(reply, tools);
        ASSERT_EQ(p.calls.size(), n) << chat_family_name(f) << ": " << reply;
        EXPECT_TRUE(p.errors.empty()) << chat_family_name(f);
        for (size_t i = 0; i < n; ++i) {
          EXPECT_EQ(p.calls[i].name, calls[i].name) << chat_family_name(f);
          EXPECT_EQ(nlohmann::json::parse(p.calls[i].arguments), nlohmann::json::parse(calls[i].arguments))
              << chat_family_name(f);
        }
        EXPECT_EQ(p.text, with_text ? "Checking now." : "") << chat_family_name(f);
      }
    }
  }
}

}  // namespace
}  // namespace keel
