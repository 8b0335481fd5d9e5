#include "support/parser_corpus.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>

namespace keel::testing {

using nlohmann::json;

json default_corpus_tools() {
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

std::filesystem::path protocol_corpus_dir() { return std::filesystem::path(KEEL_SOURCE_DIR) / "test/core/protocol_corpus"; }
std::filesystem::path real_outputs_dir() { return std::filesystem::path(KEEL_SOURCE_DIR) / "test/core/real_outputs"; }

namespace {

std::vector<ToolSpec> specs_from(const json& tools, std::string& error) {
  std::vector<ToolSpec> out;
  if (!tools.is_array()) {
    error = "\"tools\" must be an array of OpenAI tools";
    return out;
  }
  for (const auto& t : tools) {
    const json* fn = t.is_object() && t.contains("function") ? &t["function"] : &t;
    if (!fn->is_object() || !fn->contains("name") || !(*fn)["name"].is_string()) {
      error = "a tool has no function name: " + t.dump();
      return out;
    }
    ToolSpec s;
    s.name = (*fn)["name"].get<std::string>();
    s.description = fn->value("description", "");
    if (fn->contains("parameters")) s.parameters_schema = (*fn)["parameters"].dump();
    out.push_back(std::move(s));
  }
  return out;
}

std::string kind_of(const json& c) {
  if (c.contains("kind") && c["kind"].is_string()) return c["kind"].get<std::string>();
  const json& want = c.contains("expect") ? c["expect"] : json::object();
  if (want.contains("error") && want["error"].is_string()) return "broken";
  if (want.contains("calls") && want["calls"].is_array() && !want["calls"].empty()) return "call";
  return "negative";
}

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

std::vector<ParserCase> load_parser_corpus(const std::filesystem::path& root, bool require_citations) {
  std::vector<ParserCase> out;
  std::vector<std::filesystem::path> files;
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(root, ec); !ec && it != std::filesystem::end(it);
       it.increment(ec)) {
    if (it->is_regular_file() && it->path().extension() == ".json") files.push_back(it->path());
  }
  if (ec) {
    ParserCase bad;
    bad.file = root.string();
    bad.load_error = "cannot list the corpus: " + ec.message();
    out.push_back(std::move(bad));
    return out;
  }
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    const std::string rel = std::filesystem::relative(f, root).generic_string();
    auto fail = [&](std::string why) {
      ParserCase bad;
      bad.file = rel;
      bad.name = "(file)";
      bad.load_error = std::move(why);
      out.push_back(std::move(bad));
    };
    json doc = json::parse(read_file(f), nullptr, false);
    if (doc.is_discarded()) {
      fail("the file is not valid JSON");
      continue;
    }
    if (!doc.is_object() || !doc.contains("cases") || !doc["cases"].is_array() || !doc.contains("family")) {
      fail("a corpus file is an object with \"family\" and a \"cases\" array");
      continue;
    }
    const std::string source = doc.value("source", std::string("keel"));
    if (require_citations && source == "keel") {
      fail("the file names no \"source\"");
      continue;
    }
    const json file_tools = doc.contains("tools") ? doc["tools"] : default_corpus_tools();
    for (const auto& c : doc["cases"]) {
      ParserCase pc;
      pc.file = rel;
      pc.source = source;
      pc.family = doc["family"].get<std::string>();
      pc.name = c.value("name", std::string("(unnamed)"));
      pc.cite = c.value("cite", std::string());
      pc.data = c;
      if (!c.contains("input") || !c["input"].is_string() || !c.contains("expect") || !c["expect"].is_object()) {
        pc.load_error = "a case needs a string \"input\" and an \"expect\" object";
      } else if (require_citations && pc.cite.empty()) {
        pc.load_error = "the case cites no source (\"cite\")";
      }
      pc.kind = kind_of(c);
      if (pc.kind != "call" && pc.kind != "negative" && pc.kind != "broken") pc.load_error = "unknown kind '" + pc.kind + "'";
      pc.tools = specs_from(c.contains("tools") ? c["tools"] : file_tools, pc.load_error);
      out.push_back(std::move(pc));
    }
  }
  return out;
}

namespace {

// The first "offset N" in `error`, if any.
std::optional<size_t> named_offset(const std::string& error) {
  const std::string key = "offset ";
  for (size_t at = error.find(key); at != std::string::npos; at = error.find(key, at + 1)) {
    size_t i = at + key.size();
    size_t n = 0;
    size_t digits = 0;
    while (i < error.size() && error[i] >= '0' && error[i] <= '9') {
      n = n * 10 + static_cast<size_t>(error[i] - '0');
      ++i;
      ++digits;
    }
    if (digits > 0) return n;
  }
  return std::nullopt;
}

}  // namespace

std::vector<std::string> check_parser_case(const ParserCase& c, ParseOutcome* outcome) {
  std::vector<std::string> diffs;
  if (!c.load_error.empty()) return {c.load_error};
  auto parser = UniversalToolCallParser::create(c.data.value("format", std::string("auto")));
  if (!parser.ok()) return {parser.status().message()};
  const std::string input = c.data["input"].get<std::string>();
  ParseOutcome got = (*parser)->parse_full(input, c.tools);
  const json& want = c.data["expect"];
  if (want.contains("format") && got.format != want["format"].get<std::string>()) {
    diffs.push_back("format: got " + got.format + ", want " + want["format"].get<std::string>());
  }
  json calls = json::array();
  for (const auto& call : got.calls) {
    json args = json::parse(call.arguments, nullptr, false);
    if (args.is_discarded()) args = "(not JSON) " + call.arguments;
    calls.push_back({{"name", call.name}, {"arguments", args}});
  }
  json want_calls = want.value("calls", json::array());
  for (auto& wc : want_calls) {
    if (!wc.contains("arguments")) wc["arguments"] = json::object();
  }
  if (calls != want_calls) diffs.push_back("calls: got " + calls.dump() + ", want " + want_calls.dump());
  if (want.contains("content") && got.content != want["content"].get<std::string>()) {
    diffs.push_back("content: got " + json(got.content).dump() + ", want " + want["content"].dump());
  }
  if (want.contains("reasoning") && got.reasoning != want["reasoning"].get<std::string>()) {
    diffs.push_back("reasoning: got " + json(got.reasoning).dump() + ", want " + want["reasoning"].dump());
  }
  if (want.contains("repairs") && got.repairs.size() != want["repairs"].get<size_t>()) {
    diffs.push_back("repairs: got " + json(got.repairs).dump() + ", want " + want["repairs"].dump() + " of them");
  }
  const bool want_error = want.contains("error") && want["error"].is_string();
  if (want.contains("error") && want["error"].is_null() && got.error) diffs.push_back("unexpected error: " + *got.error);
  if (want_error) {
    if (!got.error) {
      diffs.push_back("no error reported; want one containing " + want["error"].dump());
    } else {
      if (got.error->find(want["error"].get<std::string>()) == std::string::npos) {
        diffs.push_back("error: got " + json(*got.error).dump() + ", want it to contain " + want["error"].dump());
      }
      std::optional<size_t> at = named_offset(*got.error);
      if (!at || *at > input.size()) diffs.push_back("the error names no offset within the input: " + *got.error);
    }
  }
  if (c.kind == "broken" && !want_error) diffs.push_back("a broken case must expect an error");
  if (c.kind == "negative" && (!got.calls.empty() || got.error)) {
    diffs.push_back("a negative case must give neither calls nor an error");
  }
  if (outcome != nullptr) *outcome = std::move(got);
  return diffs;
}

}  // namespace keel::testing
