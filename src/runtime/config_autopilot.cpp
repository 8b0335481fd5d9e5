// `autopilot:` in keel.yaml (keel/autopilot_config.hpp). Settings and triggers that cannot be read
// fail the file like any other section; a source entry that cannot be read keeps its error so
// that one broken source never stops the others.
#include <algorithm>
#include <set>

#include "keel/autopilot_config.hpp"
#include "runtime/config_file.hpp"

namespace keel::detail {
namespace {

constexpr const char* kSourceKinds = "files, schedule, http, git or mcp";

std::string key_of(const YAML::Node& k) {
  return k.IsScalar() ? k.Scalar() : std::string();
}

Status section_error(const std::string& where, const std::string& what) {
  return Status::InvalidArgument(where + what);
}

Status unknown_keys(const YAML::Node& map, const std::string& where, const std::vector<std::string>& known) {
  for (auto it = map.begin(); it != map.end(); ++it) {
    const std::string key = key_of(it->first);
    if (std::find(known.begin(), known.end(), key) == known.end()) {
      std::string list;
      for (const std::string& k : known) list.append(list.empty() ? "" : ", ").append(k);
      return section_error(where, ": unknown key '" + key + "'; known keys: " + list);
    }
  }
  return Status::Ok();
}

// An integer in [lo, hi] at map[key], when present.
template <typename Int>
Status integer_field(const YAML::Node& map, const char* key, const std::string& where, int64_t lo, int64_t hi,
                     Int& out) {
  const YAML::Node n = map[key];
  if (!n) return Status::Ok();
  int64_t v = 0;
  if (!n.IsScalar() || !YAML::convert<int64_t>::decode(n, v) || v < lo || v > hi) {
    return section_error(where, std::string(".").append(key).append(" must be a whole number from ")
                                    .append(std::to_string(lo)).append(" to ").append(std::to_string(hi)));
  }
  out = static_cast<Int>(v);
  return Status::Ok();
}

Status amount_field(const YAML::Node& map, const char* key, const std::string& where, double& out) {
  const YAML::Node n = map[key];
  if (!n) return Status::Ok();
  double v = 0;
  if (!n.IsScalar() || !YAML::convert<double>::decode(n, v) || !(v >= 0) || v > 1e9) {
    return section_error(where, std::string(".").append(key).append(" must be an amount >= 0, e.g. 0.50"));
  }
  out = v;
  return Status::Ok();
}

Status string_field(const YAML::Node& map, const char* key, const std::string& where, std::string& out) {
  const YAML::Node n = map[key];
  if (!n) return Status::Ok();
  if (!n.IsScalar() || n.Scalar().empty()) {
    return section_error(where, std::string(".").append(key).append(" must be a non-empty string"));
  }
  out = n.Scalar();
  return Status::Ok();
}

// A string or a list of strings.
Status strings_field(const YAML::Node& map, const char* key, const std::string& where, std::vector<std::string>& out) {
  const YAML::Node n = map[key];
  if (!n) return Status::Ok();
  if (n.IsScalar() && !n.Scalar().empty()) {
    out = {n.Scalar()};
    return Status::Ok();
  }
  if (!n.IsSequence()) return section_error(where, std::string(".").append(key).append(" must be a string or a list of strings"));
  out.clear();
  for (const YAML::Node& item : n) {
    if (!item.IsScalar() || item.Scalar().empty()) {
      return section_error(where, std::string(".").append(key).append(" must list non-empty strings"));
    }
    out.push_back(item.Scalar());
  }
  return Status::Ok();
}

// Reads one source entry; an error is the entry's own (kept in source.error by the caller).
Status read_source(const YAML::Node& entry, const std::string& label, AutopilotSourceConfig& s) {
  if (!entry.IsMap()) return section_error(label, " must be a mapping such as {name: inbox, files: inbox}");
  KEEL_TRY(unknown_keys(entry, label, {"name", "files", "glob", "schedule", "http", "git", "mcp", "uri", "every_ms",
                                       "timeout_ms"}));
  std::vector<std::string> kinds;
  for (const char* k : {"files", "schedule", "http", "git", "mcp"}) {
    if (entry[k]) kinds.emplace_back(k);
  }
  if (kinds.size() != 1) {
    return section_error(label, std::string(" needs exactly one of ") + kSourceKinds +
                                    (kinds.empty() ? "" : " (it has " + std::to_string(kinds.size()) + ")"));
  }
  s.kind = kinds.front();
  std::string value;
  KEEL_TRY(string_field(entry, s.kind.c_str(), label, value));
  if (s.kind == "files" || s.kind == "git") s.path = value;
  if (s.kind == "schedule") s.cron = value;
  if (s.kind == "http") {
    if (value.rfind("http://", 0) != 0 && value.rfind("https://", 0) != 0) {
      return section_error(label, ".http must be an http:// or https:// URL, got '" + value + "'");
    }
    s.url = value;
  }
  if (s.kind == "mcp") {
    s.server = value;
    KEEL_TRY(string_field(entry, "uri", label, s.uri));
    if (s.uri.empty()) return section_error(label, " (mcp) needs uri: the resource to watch");
  } else if (entry["uri"]) {
    return section_error(label, ".uri belongs to an mcp source only");
  }
  KEEL_TRY(strings_field(entry, "glob", label, s.globs));
  if (!s.globs.empty() && s.kind != "files") return section_error(label, ".glob belongs to a files source only");
  KEEL_TRY(integer_field(entry, "every_ms", label, 100, 86400000, s.every_ms));
  KEEL_TRY(integer_field(entry, "timeout_ms", label, 100, 600000, s.timeout_ms));
  return Status::Ok();
}

bool valid_source_name(const std::string& name) {
  return !name.empty() && name.size() <= 60 &&
         std::all_of(name.begin(), name.end(), [](char c) {
           return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
         });
}

Status parse_sources(const YAML::Node& node, const std::string& where, AutopilotConfig& out) {
  if (!node.IsSequence()) return section_error(where, " must be a list of sources");
  std::set<std::string> names;
  for (size_t i = 0; i < node.size(); ++i) {
    const YAML::Node entry = node[i];
    AutopilotSourceConfig s;
    std::string label = where + "[" + std::to_string(i) + "]";
    if (entry.IsMap() && entry["name"] && entry["name"].IsScalar()) s.name = entry["name"].Scalar();
    if (!valid_source_name(s.name)) {
      // Without a usable name the entry cannot be reported on its own: that fails the file.
      return section_error(label, ".name must be 1 to 60 letters, digits, '-' or '_' (observations keep it)");
    }
    if (!names.insert(s.name).second) return section_error(label, ": a second source named '" + s.name + "'");
    label.append(" ('").append(s.name).append("')");
    if (Status st = read_source(entry, label, s); !st.ok()) s.error = st.message();
    out.sources.push_back(std::move(s));
  }
  return Status::Ok();
}

Status parse_triggers(const YAML::Node& node, const std::string& where, AutopilotConfig& out) {
  if (!node.IsSequence()) return section_error(where, " must be a list of {source, skills | skill_triggers | task}");
  for (size_t i = 0; i < node.size(); ++i) {
    const YAML::Node entry = node[i];
    const std::string label = where + "[" + std::to_string(i) + "]";
    if (!entry.IsMap()) return section_error(label, " must be a mapping such as {source: inbox, skills: [triage]}");
    KEEL_TRY(unknown_keys(entry, label, {"source", "skills", "skill_triggers", "task"}));
    AutopilotTriggerConfig t;
    KEEL_TRY(string_field(entry, "source", label, t.source));
    KEEL_TRY(strings_field(entry, "skills", label, t.skills));
    KEEL_TRY(strings_field(entry, "skill_triggers", label, t.skill_triggers));
    KEEL_TRY(string_field(entry, "task", label, t.task));
    const bool skills = !t.skills.empty() || !t.skill_triggers.empty();
    if (skills == !t.task.empty()) {
      return section_error(label, " needs skills (or skill_triggers) or a task, not both");
    }
    if (t.source != "*" && std::none_of(out.sources.begin(), out.sources.end(),
                                        [&](const AutopilotSourceConfig& s) { return s.name == t.source; })) {
      return section_error(label, ".source names no source: '" + t.source + "'");
    }
    out.triggers.push_back(std::move(t));
  }
  return Status::Ok();
}

}  // namespace

Status parse_autopilot(const YAML::Node& node, const std::string& path, AutopilotConfig& out) {
  const std::string where = path + ": autopilot";
  if (!node.IsMap()) return section_error(where, " must be a mapping (interval_ms, sources, triggers, ...)");
  KEEL_TRY(unknown_keys(node, where, {"enabled", "interval_ms", "concurrency", "max_failures", "backoff_ms",
                                      "max_backoff_ms", "budget", "sources", "triggers"}));
  out = AutopilotConfig{};
  out.configured = true;
  out.source_file = path;
  if (const YAML::Node n = node["enabled"]) {
    bool v = true;
    if (!n.IsScalar() || !YAML::convert<bool>::decode(n, v)) return section_error(where, ".enabled must be true or false");
    out.enabled = v;
  }
  KEEL_TRY(integer_field(node, "interval_ms", where, 50, 3600000, out.interval_ms));
  KEEL_TRY(integer_field(node, "concurrency", where, 1, 64, out.concurrency));
  KEEL_TRY(integer_field(node, "max_failures", where, 1, 100, out.max_failures));
  KEEL_TRY(integer_field(node, "backoff_ms", where, 0, 86400000, out.backoff_ms));
  KEEL_TRY(integer_field(node, "max_backoff_ms", where, 0, 86400000, out.max_backoff_ms));
  if (const YAML::Node b = node["budget"]) {
    const std::string bw = where + ".budget";
    if (!b.IsMap()) return section_error(bw, " must be a mapping of caps");
    KEEL_TRY(unknown_keys(b, bw, {"max_tokens_per_hour", "max_cost_per_hour", "max_tokens_per_run", "max_cost_per_run"}));
    KEEL_TRY(integer_field(b, "max_tokens_per_hour", bw, 1, int64_t{1} << 50, out.max_tokens_per_hour));
    KEEL_TRY(integer_field(b, "max_tokens_per_run", bw, 1, int64_t{1} << 50, out.max_tokens_per_run));
    KEEL_TRY(amount_field(b, "max_cost_per_hour", bw, out.max_cost_per_hour));
    KEEL_TRY(amount_field(b, "max_cost_per_run", bw, out.max_cost_per_run));
  }
  if (const YAML::Node n = node["sources"]) KEEL_TRY(parse_sources(n, where + ".sources", out));
  if (const YAML::Node n = node["triggers"]) KEEL_TRY(parse_triggers(n, where + ".triggers", out));
  return Status::Ok();
}

}  // namespace keel::detail
