// The call format derived from a model's own chat template: for every template of the fetched
// llama.cpp release, the call the template writes (a probe call) reads back through the derived
// syntax or keel's universal parser, with the same name and arguments; the derived syntax builds
// a grammar; templates whose calls keel cannot read are listed (unread_call_formats.json).
#include <gtest/gtest.h>

#if KEEL_HAS_JINJA && defined(KEEL_LLAMA_TEMPLATES_DIR)
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "keel/core/gbnf_grammar.hpp"
#include "keel/core/tool_call_parser.hpp"
#include "keel/model_chat_template.hpp"

namespace keel {
namespace {

std::string read_call_format_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

bool is_probe_call(const std::vector<ToolCall>& calls) {
  if (calls.size() != 1 || calls[0].name != "keelprobefn") return false;
  nlohmann::json args = nlohmann::json::parse(calls[0].arguments, nullptr, false);
  return !args.is_discarded() && args == nlohmann::json{{"keelarg", "keelvalue"}};
}

TEST(TemplateCallFormat, EveryTemplatesCallsReadBackOrAreListed) {
  const nlohmann::json unread = nlohmann::json::parse(
      read_call_format_file(std::filesystem::path(KEEL_SOURCE_DIR) / "test/llm/chat_templates/unread_call_formats.json"))["templates"];
  ToolSpec probe;
  probe.name = "keelprobefn";
  probe.parameters_schema = R"({"type":"object","properties":{"keelarg":{"type":"string"}},"required":["keelarg"]})";
  std::vector<ToolSpec> tools{probe};
  std::unique_ptr<ToolCallParser> parser = make_default_tool_call_parser();
  std::set<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(KEEL_LLAMA_TEMPLATES_DIR)) {
    if (e.path().extension() == ".jinja") names.insert(e.path().filename().string());
  }
  size_t writes = 0, derived = 0, read = 0;
  std::set<std::string> not_read;
  for (const std::string& name : names) {
    Result<ModelChatTemplate> t =
        ModelChatTemplate::parse(read_call_format_file(std::filesystem::path(KEEL_LLAMA_TEMPLATES_DIR) / name), name);
    ASSERT_TRUE(t.ok()) << t.status().to_string();
    TemplateCallFormat f = derive_call_format(*t, "<s>", "</s>");
    if (!f.writes_calls) {
      EXPECT_FALSE(f.note.empty()) << name;
      continue;
    }
    ++writes;
    EXPECT_FALSE(f.grammar && f.sample.empty()) << name;
    bool ok = false;
    if (f.grammar) {
      ++derived;
      std::string before;
      std::optional<std::vector<ToolCall>> calls = read_tool_calls(f.syntax, f.sample, &before);
      EXPECT_TRUE(calls && is_probe_call(*calls)) << name << ": the derived syntax does not read " << f.sample;
      ok = calls && is_probe_call(*calls);
      Result<ToolGrammar> g = tool_call_grammar(tools, f.syntax, ToolChoice::kAuto);
      EXPECT_TRUE(g.ok()) << name << ": " << g.status().to_string();
      if (g.ok()) {
        ASSERT_EQ(g->triggers.size(), 1u);
        EXPECT_EQ(g->triggers[0], f.syntax.trigger());
      }
      // What keel would write for a call in this syntax reads back too.
      std::vector<ToolCall> mine{{"", "keelprobefn", R"({"keelarg":"keelvalue"})"}};
      std::optional<std::vector<ToolCall>> again = read_tool_calls(f.syntax, render_tool_calls(f.syntax, mine));
      EXPECT_TRUE(again && is_probe_call(*again)) << name << ": " << render_tool_calls(f.syntax, mine);
    }
    if (!ok) ok = is_probe_call(parser->parse(f.sample, tools).calls);
    if (ok) ++read;
    else not_read.insert(name);
  }
  std::set<std::string> listed;
  for (const auto& [name, why] : unread.items()) listed.insert(name);
  EXPECT_EQ(not_read, listed) << "unread_call_formats.json must list exactly the templates whose calls keel cannot read";
  EXPECT_GE(writes, 60u);
  EXPECT_GE(derived, 22u);
  EXPECT_EQ(read, writes) << "every template that writes calls has them read back";
  std::cout << "templates " << names.size() << ", writing calls " << writes << ", call syntax derived " << derived
            << ", calls read back " << read << "\n";
}

TEST(TemplateCallFormat, DerivesTheMarkersOfKnownFamilies) {
  auto derive = [](const std::string& name) {
    Result<ModelChatTemplate> t =
        ModelChatTemplate::parse(read_call_format_file(std::filesystem::path(KEEL_LLAMA_TEMPLATES_DIR) / name), name);
    EXPECT_TRUE(t.ok());
    return derive_call_format(*t, "<s>", "</s>");
  };
  TemplateCallFormat qwen = derive("Qwen-Qwen2.5-7B-Instruct.jinja");
  EXPECT_TRUE(qwen.grammar);
  EXPECT_EQ(qwen.syntax.open, "<tool_call>");
  EXPECT_EQ(qwen.syntax.close, "</tool_call>");
  EXPECT_EQ(qwen.syntax.arguments_key, "arguments");
  EXPECT_EQ(qwen.end_of_turn, "<|im_end|>");
  EXPECT_TRUE(qwen.describes_tools);
  TemplateCallFormat deepseek = derive("deepseek-ai-DeepSeek-V3.1.jinja");
  EXPECT_TRUE(deepseek.grammar);
  EXPECT_TRUE(deepseek.syntax.name_first);
  EXPECT_EQ(deepseek.syntax.calls_open, "<\xEF\xBD\x9Ctool\xE2\x96\x81" "calls\xE2\x96\x81" "begin\xEF\xBD\x9C>");
  EXPECT_EQ(deepseek.syntax.name_close, "<\xEF\xBD\x9Ctool\xE2\x96\x81sep\xEF\xBD\x9C>");
  TemplateCallFormat nemo = derive("mistralai-Mistral-Nemo-Instruct-2407.jinja");
  EXPECT_TRUE(nemo.syntax.list);
  EXPECT_EQ(nemo.syntax.open, "[TOOL_CALLS]");
  TemplateCallFormat coder = derive("Qwen3-Coder.jinja");  // XML parameters: no grammar, a reason
  EXPECT_TRUE(coder.writes_calls);
  EXPECT_FALSE(coder.grammar);
  EXPECT_NE(coder.note.find("JSON"), std::string::npos) << coder.note;
  TemplateCallFormat gemma2 = derive("google-gemma-2-2b-it.jinja");
  EXPECT_FALSE(gemma2.writes_calls);
  EXPECT_FALSE(gemma2.describes_tools);
}

}  // namespace
}  // namespace keel
#endif
