// tool_search — finds tools in the registry by the words of a query (case-insensitive; words are
// runs of letters and digits, so "parse_csv" is "parse" and "csv"). A tool whose name is the
// whole query comes first; then tools by how many query words their name contains, then by how
// many their description contains, then by name. Tools matching no word are left out.
//
// Output: {"query", "matches": [{"name", "description", "risk", "read_only"}...], "total"} as
// compact JSON; a deferred tool's match also has "loaded": true and its "parameters" schema (the
// match loads it into the next model calls); "total" counts every match, "matches" holds the best `limit`. The registry is read
// at each call, so tools added after this one are found too.
#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>

#include "tools/data/data_factories.hpp"
#include "tools/fs_common.hpp"

namespace keel::detail {
namespace {

using json = nlohmann::json;

constexpr int kMaxLimit = 100;

constexpr const char* kSchema = R"json({
  "type": "object",
  "properties": {
    "query": {"type": "string", "description": "Words to look for in tool names and descriptions"},
    "limit": {"type": "integer", "minimum": 1, "maximum": 100, "description": "Most matches to return"}
  },
  "required": ["query"],
  "additionalProperties": false
})json";

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::vector<std::string> words_of(std::string_view text) {
  std::vector<std::string> words;
  std::string word;
  for (const char c : text) {
    // Bytes of multi-byte UTF-8 characters count as letters.
    if (std::isalnum(static_cast<unsigned char>(c)) || static_cast<unsigned char>(c) >= 0x80) {
      word += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else if (!word.empty()) {
      words.push_back(std::move(word));
      word.clear();
    }
  }
  if (!word.empty()) words.push_back(std::move(word));
  std::sort(words.begin(), words.end());
  words.erase(std::unique(words.begin(), words.end()), words.end());
  return words;
}

struct Hit {
  const ToolSpec* spec = nullptr;
  bool exact = false;
  int name_hits = 0;
  int description_hits = 0;
};

bool better(const Hit& a, const Hit& b) {
  if (a.exact != b.exact) return a.exact;
  if (a.name_hits != b.name_hits) return a.name_hits > b.name_hits;
  if (a.description_hits != b.description_hits) return a.description_hits > b.description_hits;
  return a.spec->name < b.spec->name;
}

Result<std::string> search(const ToolRegistry& registry, int default_limit, const json& args) {
  const std::string query = string_arg(args, "query", "");
  const std::vector<std::string> words = words_of(query);
  if (words.empty()) return Status::InvalidArgument("query has no words; describe the tool you need, e.g. \"csv\"");
  const int64_t limit = std::clamp<int64_t>(int_arg(args, "limit").value_or(default_limit), 1, kMaxLimit);
  std::string trimmed = lower(query);
  trimmed.erase(0, trimmed.find_first_not_of(" \t\r\n"));
  trimmed.erase(trimmed.find_last_not_of(" \t\r\n") + 1);

  const std::vector<ToolSpec> specs = registry.specs();
  std::vector<Hit> hits;
  for (const ToolSpec& spec : specs) {
    Hit hit;
    hit.spec = &spec;
    const std::string name = lower(spec.name);
    const std::string description = lower(spec.description);
    hit.exact = name == trimmed;
    for (const std::string& w : words) {
      if (name.find(w) != std::string::npos) {
        ++hit.name_hits;
      } else if (description.find(w) != std::string::npos) {
        ++hit.description_hits;
      }
    }
    if (hit.exact || hit.name_hits > 0 || hit.description_hits > 0) hits.push_back(hit);
  }
  std::sort(hits.begin(), hits.end(), better);

  json matches = json::array();
  for (size_t i = 0; i < hits.size() && static_cast<int64_t>(i) < limit; ++i) {
    json m = json::object();
    m["name"] = hits[i].spec->name;
    m["description"] = hits[i].spec->description;
    m["risk"] = std::string(risk_name(hits[i].spec->risk));
    m["read_only"] = hits[i].spec->read_only;
    if (hits[i].spec->deferred) {
      // Not offered up front: finding it loads it (keel/core/deferred_tools.hpp); its arguments are
      // shown here, so a model that reads tools from text knows them too.
      m["loaded"] = true;
      json schema = json::parse(hits[i].spec->parameters_schema, nullptr, false);
      if (!schema.is_discarded()) m["parameters"] = std::move(schema);
    }
    matches.push_back(std::move(m));
  }
  json out = json::object();
  out["query"] = query;
  out["matches"] = std::move(matches);
  out["total"] = hits.size();
  if (hits.empty()) {
    out["note"] = "no tool name or description contains any of these words; " + std::to_string(specs.size()) +
                  " tools are registered";
  }
  return to_json_text(out);
}

}  // namespace

std::unique_ptr<Tool> make_tool_search_tool(const ToolRegistry& registry, const DataToolOptions& options) {
  ToolSpec spec = data_tool_spec(
      "tool_search",
      "Search the available tools by words in their names and descriptions; returns each match's name, "
      "description, risk and whether it is read-only. Tools not listed up front become callable once found.",
      kSchema, /*cacheable=*/false);
  const int default_limit = options.tool_search_default_limit;
  return make_tool(std::move(spec), [&registry, default_limit](const nlohmann::json& args, const ToolContext&) {
    return search(registry, default_limit, args);
  });
}

}  // namespace keel::detail
