// Runs the tool-call protocol corpus: test/core/protocol_corpus/*.json, one file per model family.
//
// File: {"family": "...", "tools": [OpenAI tools array]?, "cases": [case...]}
// Case: {"name", "format": "auto"|NAME (default auto), "tools"?: [...], "input": "...",
//        "expect": {"format"?: NAME|"none", "calls"?: [{"name", "arguments": {...}}],
//                   "content"?: "...", "reasoning"?: "...", "repairs"?: N, "error"?: null|"substring"}}
// "calls" is compared exactly (names and argument values, in order); an absent "calls" means
// none are expected. "error": null asserts no error; a string asserts the error contains it.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "keel/core/universal_parser.hpp"

namespace keel {
namespace {

using nlohmann::json;

// The tools a corpus file gets when it names none.
json default_tools() {
  return json::parse(R"([
    {"type":"function","function":{"name":"get_weather","description":"weather","parameters":{"type":"object","properties":{"city":{"type":"string"},"unit":{"type":"string","enum":["c","f"]},"days":{"type":"integer"}},"required":["city"]}}},
    {"type":"function","function":{"name":"search","description":"web search","parameters":{"type":"object","properties":{"query":{"type":"string"},"limit":{"type":"integer"}},"required":["query"]}}},
    {"type":"function","function":{"name":"fs_read","description":"read a file","parameters":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}}},
    {"type":"function","function":{"name":"calculator","description":"math","parameters":{"type":"object","properties":{"expression":{"type":"string"}},"required":["expression"]}}},
    {"type":"function","function":{"name":"now","description":"current time","parameters":{"type":"object","properties":{}}}},
    {"type":"function","function":{"name":"send_email","description":"send mail","parameters":{"type":"object","properties":{"to":{"type":"string"},"subject":{"type":"string"},"body":{"type":"string"},"cc":{"type":"array","items":{"type":"string"}}},"required":["to","body"]}}},
    {"type":"function","function":{"name":"set_flag","description":"set a flag","parameters":{"type":"object","properties":{"enabled":{"type":"boolean"},"level":{"type":"number"},"options":{"type":"object"}},"required":["enabled"]}}}
  ])");
}

std::vector<ToolSpec> specs_from(const json& tools) {
  std::vector<ToolSpec> out;
  for (const auto& t : tools) {
    const json& fn = t.at("function");
    ToolSpec s;
    s.name = fn.at("name").get<std::string>();
    s.description = fn.value("description", "");
    if (fn.contains("parameters")) s.parameters_schema = fn["parameters"].dump();
    out.push_back(std::move(s));
  }
  return out;
}

struct CorpusCase {
  std::string file;
  json data;
  json tools;
};

std::vector<CorpusCase> load_corpus() {
  std::vector<CorpusCase> out;
  std::filesystem::path dir = std::filesystem::path(KEEL_SOURCE_DIR) / "test/core/protocol_corpus";
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() == ".json") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    std::ifstream in(f);
    std::stringstream ss;
    ss << in.rdbuf();
    json doc = json::parse(ss.str(), nullptr, false);
    if (doc.is_discarded()) {
      out.push_back({f.filename().string(), json{{"name", "file does not parse"}, {"invalid_file", true}}, json()});
      continue;
    }
    json tools = doc.contains("tools") ? doc["tools"] : default_tools();
    for (const auto& c : doc.at("cases")) out.push_back({f.filename().string(), c, c.contains("tools") ? c["tools"] : tools});
  }
  return out;
}

TEST(ProtocolCorpusTest, EveryCaseParsesExactlyAsExpected) {
  std::vector<CorpusCase> cases = load_corpus();
  size_t checked = 0;
  for (const auto& c : cases) {
    SCOPED_TRACE(c.file + ": " + c.data.value("name", "(unnamed)"));
    ASSERT_FALSE(c.data.contains("invalid_file")) << "corpus file is not valid JSON";
    auto parser = UniversalToolCallParser::create(c.data.value("format", "auto"));
    ASSERT_TRUE(parser.ok()) << parser.status().message();
    std::vector<ToolSpec> tools = specs_from(c.tools);
    ParseOutcome got = (*parser)->parse_full(c.data.at("input").get<std::string>(), tools);
    const json& want = c.data.at("expect");
    if (want.contains("format")) {
      EXPECT_EQ(got.format, want["format"].get<std::string>());
    }
    json calls = json::array();
    for (const auto& call : got.calls) {
      json args = json::parse(call.arguments, nullptr, false);
      calls.push_back({{"name", call.name}, {"arguments", args}});
    }
    json want_calls = want.value("calls", json::array());
    for (auto& wc : want_calls) {
      if (!wc.contains("arguments")) wc["arguments"] = json::object();
    }
    EXPECT_EQ(calls, want_calls);
    if (want.contains("content")) {
      EXPECT_EQ(got.content, want["content"].get<std::string>());
    }
    if (want.contains("reasoning")) {
      EXPECT_EQ(got.reasoning, want["reasoning"].get<std::string>());
    }
    if (want.contains("repairs")) {
      EXPECT_EQ(got.repairs.size(), want["repairs"].get<size_t>()) << json(got.repairs).dump();
    }
    if (want.contains("error")) {
      if (want["error"].is_null()) {
        EXPECT_FALSE(got.error.has_value()) << *got.error;
      } else {
        ASSERT_TRUE(got.error.has_value());
        EXPECT_NE(got.error->find(want["error"].get<std::string>()), std::string::npos) << *got.error;
      }
    }
    ++checked;
  }
  EXPECT_GT(checked, 0u);
  std::printf("protocol corpus: %zu cases\n", checked);
}

}  // namespace
}  // namespace keel
