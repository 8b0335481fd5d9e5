// Prints how long a model's own chat template takes to render a 100-message conversation with
// tools (keel/model_chat_template.hpp), beside nothing else: the figure to set against prompt
// evaluation, which for the same prompt takes seconds on a CPU.
//   keel_template_bench [TEMPLATE.jinja ...]   (default: a few of the fetched release's)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <vector>

#include "keel/model_chat_template.hpp"

int main(int argc, char** argv) {
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) files.emplace_back(argv[i]);
#ifdef KEEL_LLAMA_TEMPLATES_DIR
  if (files.empty()) {
    for (const char* n : {"Qwen-Qwen2.5-7B-Instruct.jinja", "Qwen-Qwen3-0.6B.jinja", "deepseek-ai-DeepSeek-V3.1.jinja",
                          "openai-gpt-oss-120b.jinja", "NousResearch-Hermes-3-Llama-3.1-8B-tool_use.jinja"}) {
      files.push_back(std::string(KEEL_LLAMA_TEMPLATES_DIR) + "/" + n);
    }
  }
#endif
  keel::ToolSpec tool;
  tool.name = "get_weather";
  tool.description = "Weather for a city";
  tool.parameters_schema = R"({"type":"object","properties":{"city":{"type":"string"}},"required":["city"]})";
  std::vector<keel::ToolSpec> tools(8, tool);
  for (size_t i = 0; i < tools.size(); ++i) tools[i].name += std::to_string(i);
  std::vector<keel::Message> messages{keel::Message::system("You are terse.")};
  for (int i = 0; messages.size() < 100; ++i) {
    messages.push_back(keel::Message::user("Question " + std::to_string(i) + ": what is the weather like in Paris today?"));
    keel::Message call = keel::Message::assistant("", {{"call" + std::to_string(10000 + i), "get_weather0", R"({"city":"Paris"})"}});
    messages.push_back(call);
    keel::Message result = keel::Message::tool({});
    result.tool_call_id = "call" + std::to_string(10000 + i);
    result.name = "get_weather0";
    result.content = R"({"temp": 18, "sky": "clear"})";
    messages.push_back(result);
  }
  messages.resize(100);
  if (messages.back().role != keel::Role::kUser) messages.back() = keel::Message::user("And tomorrow?");
  std::printf("%-48s %10s %10s %10s\n", "template (100 messages, 8 tools)", "median ms", "min ms", "bytes");
  for (const std::string& f : files) {
    std::ifstream in(f, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    auto t = keel::ModelChatTemplate::parse(s.str(), f);
    if (!t.ok()) {
      std::fprintf(stderr, "%s\n", t.status().message().c_str());
      return 2;
    }
    keel::ChatTemplateInputs inputs;
    inputs.messages = messages;
    inputs.tools = tools;
    std::vector<double> ms;
    size_t bytes = 0;
    for (int i = 0; i < 21; ++i) {
      auto start = std::chrono::steady_clock::now();
      auto r = t->render(inputs);
      ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
      if (!r.ok()) {
        std::fprintf(stderr, "%s\n", r.status().message().c_str());
        return 2;
      }
      bytes = r->size();
    }
    std::sort(ms.begin(), ms.end());
    std::string name = f.substr(f.find_last_of('/') + 1);
    std::printf("%-48s %10.2f %10.2f %10zu\n", name.c_str(), ms[ms.size() / 2], ms.front(), bytes);
  }
  return 0;
}
