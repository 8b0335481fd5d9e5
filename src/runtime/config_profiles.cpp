// `profiles:` in keel.yaml: named agent setups that keel serve offers.
//
//   profiles:
//     reviewer:
//       description: reads code, never writes
//       model: openai/gpt-4o-mini
//       max_rounds: 8
//       approve_mode: deny
//       tools: [fs_read, fs_list, fs_search]
#include <algorithm>

#include "keel/config.hpp"
#include "runtime/config_file.hpp"

namespace keel::detail {
namespace {

bool valid_profile_name(const std::string& name) {
  return !name.empty() && name.size() <= 64 && std::all_of(name.begin(), name.end(), [](char c) {
           return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
                  c == '-';
         });
}

Status scalar_string(const YAML::Node& n, const std::string& where, std::optional<std::string>& out) {
  if (!n) return Status::Ok();
  if (!n.IsScalar()) return Status::InvalidArgument(where + " must be a string");
  out = n.Scalar();
  return Status::Ok();
}

}  // namespace

Status parse_profiles(const YAML::Node& node, const std::string& path, std::vector<AgentProfileConfig>& out) {
  if (!node.IsMap()) return Status::InvalidArgument(path + ": profiles must be a mapping of profile names to settings");
  static const char* const kKeys[] = {"description", "model", "base_url", "max_rounds", "approve_mode", "tools"};
  for (auto it = node.begin(); it != node.end(); ++it) {
    AgentProfileConfig p;
    p.name = it->first.IsScalar() ? it->first.Scalar() : std::string();
    const std::string where = path + ": profiles." + p.name;
    if (!valid_profile_name(p.name)) {
      return Status::InvalidArgument(path + ": profile name '" + p.name +
                                     "' must be 1-64 letters, digits, '.', '_' or '-'");
    }
    const YAML::Node v = it->second;
    if (v.IsNull()) {
      out.push_back(std::move(p));
      continue;
    }
    if (!v.IsMap()) return Status::InvalidArgument(where + " must be a mapping (model, max_rounds, tools, ...)");
    for (auto k = v.begin(); k != v.end(); ++k) {
      const std::string key = k->first.IsScalar() ? k->first.Scalar() : std::string();
      if (std::find(std::begin(kKeys), std::end(kKeys), key) == std::end(kKeys)) {
        return Status::InvalidArgument(where + ": unknown key '" + key +
                                       "'; known keys: description, model, base_url, max_rounds, approve_mode, tools");
      }
    }
    std::optional<std::string> description;
    KEEL_TRY(scalar_string(v["description"], where + ".description", description));
    p.description = description.value_or("");
    KEEL_TRY(scalar_string(v["model"], where + ".model", p.model));
    KEEL_TRY(scalar_string(v["base_url"], where + ".base_url", p.base_url));
    KEEL_TRY(scalar_string(v["approve_mode"], where + ".approve_mode", p.approve_mode));
    if (p.approve_mode && !parse_approval_mode(*p.approve_mode)) {
      return Status::InvalidArgument(where + ".approve_mode must be auto, confirm or deny, got '" + *p.approve_mode + "'");
    }
    if (const YAML::Node r = v["max_rounds"]) {
      int rounds = 0;
      if (!r.IsScalar() || !YAML::convert<int>::decode(r, rounds) || rounds < 1 || rounds > 1000) {
        return Status::InvalidArgument(where + ".max_rounds must be an integer from 1 to 1000");
      }
      p.max_rounds = rounds;
    }
    if (const YAML::Node t = v["tools"]) {
      if (!t.IsSequence()) return Status::InvalidArgument(where + ".tools must be a list of tool names");
      for (const YAML::Node& name : t) {
        if (!name.IsScalar() || name.Scalar().empty()) {
          return Status::InvalidArgument(where + ".tools must be a list of tool names");
        }
        p.tools.push_back(name.Scalar());
      }
    }
    out.push_back(std::move(p));
  }
  return Status::Ok();
}

}  // namespace keel::detail
