// Parses one keel config file. yaml-cpp throws on type errors, so every access happens inside one
// try block and each value is checked before it is converted; messages name the file and the full
// key path ("retry.max_attempts", "intents[1].patterns") so a user can find the line to fix.
#include "runtime/config_file.hpp"
#include "runtime/model_spec.hpp"  // env_value

#include <re2/re2.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <climits>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <regex>
#include <sstream>
#include <string_view>
#include <system_error>

namespace keel::detail {
namespace {

// Edit distance, to suggest the key a typo meant.
size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

std::string join(std::initializer_list<const char*> words) {
  std::string out;
  for (const char* w : words) {
    if (!out.empty()) out += ", ";
    out += w;
  }
  return out;
}

// Reads values out of one file, producing messages that name it.
class FileReader {
 public:
  explicit FileReader(const std::string& path) : path_(path) {}

  Status error(const std::string& key, const std::string& what) const {
    return Status::InvalidArgument(path_ + ": " + key + " " + what);
  }

  // Every key of `map` (a mapping named `where`, "" for the top level) must be in `known`.
  Status check_keys(const YAML::Node& map, const std::string& where, std::initializer_list<const char*> known) const {
    for (auto it = map.begin(); it != map.end(); ++it) {
      if (!it->first.IsScalar()) return error(where.empty() ? "a key" : where, "has a key that is not a plain name");
      const std::string& key = it->first.Scalar();
      if (std::find_if(known.begin(), known.end(), [&](const char* k) { return key == k; }) != known.end()) continue;
      std::string msg = path_ + ": unknown key '" + (where.empty() ? key : where + "." + key) + "'";
      const char* closest = nullptr;
      size_t best = 3;  // suggest only near misses: at most two edits away
      for (const char* k : known) {
        size_t d = edit_distance(key, k);
        if (d < best) {
          best = d;
          closest = k;
        }
      }
      if (closest != nullptr) msg += " (did you mean '" + std::string(closest) + "'?)";
      msg += "; known keys" + (where.empty() ? std::string() : " in " + where) + ": " + join(known);
      return Status::InvalidArgument(msg);
    }
    return Status::Ok();
  }

  Status mapping(const YAML::Node& node, const std::string& key) const {
    if (!node.IsMap()) return error(key, "must be a mapping of keys to values");
    return Status::Ok();
  }

  Result<std::string> string(const YAML::Node& node, const std::string& key) const {
    if (!node.IsScalar()) return error(key, "must be a string");
    return node.Scalar();
  }

  Result<int64_t> integer(const YAML::Node& node, const std::string& key, int64_t min, int64_t max) const {
    std::string range = "must be an integer >= " + std::to_string(min);
    if (max != INT64_MAX) range += " and <= " + std::to_string(max);
    if (!node.IsScalar()) return error(key, range);
    const std::string& text = node.Scalar();
    int64_t value = 0;
    const char* begin = text.data() + (text.starts_with('+') ? 1 : 0);
    auto [end, ec] = std::from_chars(begin, text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size() || begin == end || value < min || value > max) {
      return error(key, range + ", got '" + text + "'");
    }
    return value;
  }

  Result<bool> boolean(const YAML::Node& node, const std::string& key) const {
    std::string word = node.IsScalar() ? node.Scalar() : std::string();
    std::transform(word.begin(), word.end(), word.begin(), [](unsigned char c) { return std::tolower(c); });
    if (word == "true" || word == "yes" || word == "on") return true;
    if (word == "false" || word == "no" || word == "off") return false;
    return error(key, "must be true or false" + (node.IsScalar() ? ", got '" + node.Scalar() + "'" : std::string()));
  }

  Result<std::vector<std::string>> strings(const YAML::Node& node, const std::string& key) const {
    if (!node.IsSequence()) return error(key, "must be a list of strings, e.g. [a, b]");
    std::vector<std::string> out;
    for (const YAML::Node& item : node) {
      if (!item.IsScalar()) return error(key, "must be a list of strings, e.g. [a, b]");
      out.push_back(item.Scalar());
    }
    return out;
  }

 private:
  const std::string& path_;
};

constexpr int64_t kIntMax = INT_MAX;
constexpr int64_t kNoMax = INT64_MAX;

// Fills optional fields from the keys of one mapping, when present. `prefix` names the mapping in
// messages ("" at the top level, "retry." inside retry).
class SectionReader {
 public:
  SectionReader(const FileReader& r, const YAML::Node& map, std::string prefix)
      : r_(r), map_(map), prefix_(std::move(prefix)) {}

  template <class T>
  Status integer(const char* key, int64_t min, int64_t max, std::optional<T>& field) const {
    const YAML::Node n = map_[key];
    if (!n) return Status::Ok();
    KEEL_ASSIGN_OR_RETURN(int64_t value, r_.integer(n, prefix_ + key, min, max));
    field = static_cast<T>(value);  // in range: checked against min and max above
    return Status::Ok();
  }
  Status boolean(const char* key, std::optional<bool>& field) const {
    const YAML::Node n = map_[key];
    if (!n) return Status::Ok();
    KEEL_ASSIGN_OR_RETURN(field, r_.boolean(n, prefix_ + key));
    return Status::Ok();
  }
  Status string(const char* key, std::optional<std::string>& field) const {
    const YAML::Node n = map_[key];
    if (!n) return Status::Ok();
    KEEL_ASSIGN_OR_RETURN(field, r_.string(n, prefix_ + key));
    return Status::Ok();
  }
  // A number >= 0 (an integer or a decimal).
  Status amount(const char* key, std::optional<double>& field) const {
    const YAML::Node n = map_[key];
    if (!n) return Status::Ok();
    double value = -1;
    try {
      value = n.as<double>();
    } catch (const YAML::Exception&) {
    }
    if (!(value >= 0)) return r_.error(prefix_ + key, "must be a number >= 0, e.g. 2.5");
    field = value;
    return Status::Ok();
  }
  Status strings(const char* key, std::vector<std::string>& field) const {
    const YAML::Node n = map_[key];
    if (!n) return Status::Ok();
    KEEL_ASSIGN_OR_RETURN(field, r_.strings(n, prefix_ + key));
    return Status::Ok();
  }

 private:
  const FileReader& r_;
  const YAML::Node& map_;
  std::string prefix_;
};

Result<IntentRule> parse_intent(const FileReader& r, const YAML::Node& node, const std::string& where) {
  KEEL_TRY(r.mapping(node, where));
  KEEL_TRY(r.check_keys(node, where, {"name", "keywords", "patterns", "tools"}));
  std::optional<std::string> name;
  KEEL_TRY(SectionReader(r, node, where + ".").string("name", name));
  if (!name || name->empty()) return r.error(where, "needs a non-empty name");
  IntentRule rule;
  rule.name = *name;
  std::string label = where + " ('" + rule.name + "')";
  SectionReader fields(r, node, label + ".");
  KEEL_TRY(fields.strings("keywords", rule.keywords));
  KEEL_TRY(fields.strings("patterns", rule.patterns));
  KEEL_TRY(fields.strings("tools", rule.tools));
  if (rule.keywords.empty() && rule.patterns.empty()) {
    return r.error(label, "needs at least one keyword or pattern, or it can never match");
  }
  for (const std::string& pattern : rule.patterns) {
    try {
      std::regex compiled(pattern, std::regex::ECMAScript | std::regex::icase);
      (void)compiled;
    } catch (const std::regex_error& e) {
      return r.error(label + ".patterns",
                     "has '" + pattern + "', which is not a valid regular expression (" + e.what() + ")");
    }
  }
  return rule;
}

Result<ApprovalMode> parse_mode(const FileReader& r, const YAML::Node& node, const std::string& key) {
  KEEL_ASSIGN_OR_RETURN(std::string word, r.string(node, key));
  std::optional<ApprovalMode> mode = parse_approval_mode(word);
  if (!mode) return r.error(key, "must be auto, confirm or deny, got '" + word + "'");
  return *mode;
}

// The node of `key` or of its camelCase spelling `camel`; an error when both are set.
Result<YAML::Node> either(const FileReader& r, const YAML::Node& map, const std::string& where, const char* key,
                          const char* camel) {
  YAML::Node a = map[key];
  YAML::Node b = map[camel];
  if (a && b) return r.error(where + key, "and " + where + camel + " are the same setting; keep one");
  return a ? a : b;
}

// approvals.tools.NAME: {mode, allow_patterns, deny_patterns}; every pattern must compile (RE2).
Status parse_tool_approval(const FileReader& r, const YAML::Node& node, const std::string& where,
                           ToolApprovalPolicy& out) {
  KEEL_TRY(r.mapping(node, where));
  KEEL_TRY(r.check_keys(node, where, {"mode", "allow_patterns", "deny_patterns", "allowPatterns", "denyPatterns"}));
  if (const YAML::Node mode = node["mode"]) {
    KEEL_ASSIGN_OR_RETURN(out.mode, parse_mode(r, mode, where + ".mode"));
  }
  struct List {
    const char* key;
    const char* camel;
    std::vector<std::string>* field;
  };
  for (const List& list : {List{"allow_patterns", "allowPatterns", &out.allow_patterns},
                           List{"deny_patterns", "denyPatterns", &out.deny_patterns}}) {
    KEEL_ASSIGN_OR_RETURN(YAML::Node n, either(r, node, where + ".", list.key, list.camel));
    if (!n) continue;
    std::string key = where + "." + list.key;
    KEEL_ASSIGN_OR_RETURN(*list.field, r.strings(n, key));
    for (const std::string& pattern : *list.field) {
      RE2 re(pattern, RE2::Quiet);
      if (!re.ok()) {
        return r.error(key, "has '" + pattern + "', which is not a valid regular expression (" + re.error() + ")");
      }
    }
  }
  return Status::Ok();
}

Status parse_approvals(const FileReader& r, const YAML::Node& n, const std::string& path, ApprovalPolicy& out) {
  KEEL_TRY(r.mapping(n, "approvals"));
  KEEL_TRY(r.check_keys(n, "approvals", {"default_mode", "defaultMode", "client_may_loosen", "clientMayLoosen", "tools"}));
  KEEL_ASSIGN_OR_RETURN(YAML::Node mode, either(r, n, "approvals.", "default_mode", "defaultMode"));
  if (mode) {
    KEEL_ASSIGN_OR_RETURN(out.default_mode, parse_mode(r, mode, "approvals.default_mode"));
    out.default_source = path;
  }
  KEEL_ASSIGN_OR_RETURN(YAML::Node loosen, either(r, n, "approvals.", "client_may_loosen", "clientMayLoosen"));
  if (loosen) {
    KEEL_ASSIGN_OR_RETURN(out.client_may_loosen, r.boolean(loosen, "approvals.client_may_loosen"));
    out.client_may_loosen_source = path;
  }
  const YAML::Node tools = n["tools"];
  if (!tools) return Status::Ok();
  KEEL_TRY(r.mapping(tools, "approvals.tools"));
  for (auto it = tools.begin(); it != tools.end(); ++it) {
    if (!it->first.IsScalar() || it->first.Scalar().empty()) {
      return r.error("approvals.tools", "has a key that is not a tool name (or \"*\" for every tool)");
    }
    const std::string& name = it->first.Scalar();
    ToolApprovalPolicy& tool = out.tools[name];
    tool.source = path;
    KEEL_TRY(parse_tool_approval(r, it->second, "approvals.tools." + name, tool));
  }
  auto star = out.tools.find("*");
  if (star != out.tools.end() && star->second.mode) {
    if (out.default_mode) {
      return r.error("approvals.default_mode", "and approvals.tools.\"*\".mode are the same setting; keep one");
    }
    out.default_mode = star->second.mode;
    out.default_source = path;
    star->second.mode.reset();
  }
  return Status::Ok();
}

// The nested sections: retry, tools.shell, planner, intents, approvals, skills.
Status parse_sections(const FileReader& r, const YAML::Node& root, ConfigLayer& out) {
  if (const YAML::Node n = root["retry"]) {
    KEEL_TRY(r.mapping(n, "retry"));
    KEEL_TRY(r.check_keys(n, "retry", {"max_attempts", "initial_delay_ms", "max_delay_ms"}));
    SectionReader retry(r, n, "retry.");
    KEEL_TRY(retry.integer("max_attempts", 1, 100, out.retry_max_attempts));
    KEEL_TRY(retry.integer("initial_delay_ms", 0, kNoMax, out.retry_initial_delay_ms));
    KEEL_TRY(retry.integer("max_delay_ms", 0, kNoMax, out.retry_max_delay_ms));
  }
  if (const YAML::Node n = root["tools"]) {
    KEEL_TRY(r.mapping(n, "tools"));
    KEEL_TRY(r.check_keys(n, "tools", {"shell", "web", "fs", "mcp"}));
    if (const YAML::Node mcp_node = n["mcp"]) {
      KEEL_TRY(r.mapping(mcp_node, "tools.mcp"));
      KEEL_TRY(r.check_keys(mcp_node, "tools.mcp", {"defer_above_tokens"}));
      SectionReader mcp(r, mcp_node, "tools.mcp.");
      KEEL_TRY(mcp.integer("defer_above_tokens", 0, kNoMax, out.mcp_defer_above_tokens));
    }
    if (const YAML::Node shell_node = n["shell"]) {
      KEEL_TRY(r.mapping(shell_node, "tools.shell"));
      KEEL_TRY(r.check_keys(shell_node, "tools.shell",
                            {"enabled", "timeout_ms", "sandbox", "network", "env", "max_processes"}));
      SectionReader shell(r, shell_node, "tools.shell.");
      KEEL_TRY(shell.boolean("enabled", out.shell_enabled));
      KEEL_TRY(shell.integer("timeout_ms", 1, kIntMax, out.shell_timeout_ms));
      KEEL_TRY(shell.string("sandbox", out.shell_sandbox));  // checked by apply_shell_layer (config_sandbox.cpp)
      KEEL_TRY(shell.boolean("network", out.shell_network));
      if (shell_node["env"]) KEEL_TRY(shell.strings("env", out.shell_env.emplace()));
      KEEL_TRY(shell.integer("max_processes", 0, 1000000, out.shell_max_processes));
    }
    if (const YAML::Node web_node = n["web"]) {
      KEEL_TRY(r.mapping(web_node, "tools.web"));
      KEEL_TRY(r.check_keys(web_node, "tools.web", {"enabled", "allowed", "timeout_ms"}));
      SectionReader web(r, web_node, "tools.web.");
      KEEL_TRY(web.boolean("enabled", out.web_enabled));
      KEEL_TRY(web.strings("allowed", out.web_allowed));
      KEEL_TRY(web.integer("timeout_ms", 1, kIntMax, out.web_timeout_ms));
    }
    if (const YAML::Node fs_node = n["fs"]) {
      KEEL_TRY(r.mapping(fs_node, "tools.fs"));
      KEEL_TRY(r.check_keys(fs_node, "tools.fs", {"roots"}));
      if (const YAML::Node roots = fs_node["roots"]) {
        if (!roots.IsSequence()) return r.error("tools.fs.roots", "must be a list of {name, path, read_only}");
        for (size_t i = 0; i < roots.size(); ++i) {
          const std::string where = "tools.fs.roots[" + std::to_string(i) + "]";
          const YAML::Node entry = roots[i];  // SectionReader keeps a reference: no temporary
          KEEL_TRY(r.mapping(entry, where));
          KEEL_TRY(r.check_keys(entry, where, {"name", "path", "read_only"}));
          SectionReader fields(r, entry, where + ".");
          std::optional<std::string> name, path;
          std::optional<bool> read_only;
          KEEL_TRY(fields.string("name", name));
          KEEL_TRY(fields.string("path", path));
          KEEL_TRY(fields.boolean("read_only", read_only));
          if (!name || name->empty() || !path || path->empty()) return r.error(where, "needs a name and a path");
          FsRootConfig root;
          root.name = *name;
          root.path = *path;
          root.read_only = read_only.value_or(false);
          out.fs_roots.push_back(std::move(root));
        }
      }
    }
  }
  if (const YAML::Node n = root["context"]) {
    KEEL_TRY(r.mapping(n, "context"));
    KEEL_TRY(r.check_keys(n, "context", {"window", "threshold_percent", "recency_rounds", "summary_cooldown_rounds"}));
    SectionReader context(r, n, "context.");
    KEEL_TRY(context.integer("window", 0, kIntMax, out.context_window));
    KEEL_TRY(context.integer("threshold_percent", 1, 100, out.context_threshold_percent));
    KEEL_TRY(context.integer("recency_rounds", 0, 1000, out.context_recency_rounds));
    KEEL_TRY(context.integer("summary_cooldown_rounds", 0, 1000, out.context_summary_cooldown_rounds));
  }
  if (const YAML::Node n = root["local"]) {
    KEEL_TRY(r.mapping(n, "local"));
    KEEL_TRY(r.check_keys(n, "local", {"context_size", "gpu_layers", "threads", "max_tokens", "tool_choice", "max_calls_per_reply", "max_string_chars", "grammar", "chat_template",
                                       "temperature", "seed", "tokenizer", "kv_cache"}));
    SectionReader local(r, n, "local.");
    KEEL_TRY(local.integer("context_size", 0, kIntMax, out.local_context_size));
    KEEL_TRY(local.integer("gpu_layers", -1, 100000, out.local_gpu_layers));
    KEEL_TRY(local.integer("threads", 0, 1024, out.local_threads));
    KEEL_TRY(local.integer("max_tokens", 1, kIntMax, out.local_max_tokens));
    KEEL_TRY(local.integer("max_calls_per_reply", 1, 16, out.local_max_calls));
    KEEL_TRY(local.integer("max_string_chars", 0, kIntMax, out.local_max_string_chars));
    KEEL_TRY(local.string("tool_choice", out.local_tool_choice));
    if (out.local_tool_choice && *out.local_tool_choice != "auto" && *out.local_tool_choice != "required") {
      return r.error("local.tool_choice", "must be auto or required, not '" + *out.local_tool_choice + "'");
    }
    KEEL_TRY(local.boolean("grammar", out.local_grammar));
    KEEL_TRY(local.boolean("kv_cache", out.local_kv_cache));
    KEEL_TRY(local.string("chat_template", out.local_chat_template));
    KEEL_TRY(local.string("tokenizer", out.local_tokenizer));
    KEEL_TRY(local.integer("seed", 0, 0xFFFFFFFFLL, out.local_seed));
    if (const YAML::Node t = n["temperature"]) {
      try {
        out.local_temperature = t.as<double>();
      } catch (const YAML::Exception&) {
        return r.error("local.temperature", "must be a number, e.g. 0.7");
      }
    }
  }
  if (const YAML::Node n = root["planner"]) {
    KEEL_TRY(r.mapping(n, "planner"));
    KEEL_TRY(r.check_keys(n, "planner", {"enabled", "timeout_ms"}));
    SectionReader planner(r, n, "planner.");
    KEEL_TRY(planner.boolean("enabled", out.planner_enabled));
    KEEL_TRY(planner.integer("timeout_ms", 1, kNoMax, out.planner_timeout_ms));
  }
  if (const YAML::Node n = root["approvals"]) {
    KEEL_TRY(parse_approvals(r, n, out.path, out.approvals));
  }
  if (const YAML::Node n = root["skills"]) {
    KEEL_TRY(r.mapping(n, "skills"));
    KEEL_TRY(r.check_keys(n, "skills", {"enabled", "disclosure_percent"}));
    SectionReader skills(r, n, "skills.");
    KEEL_TRY(skills.boolean("enabled", out.skills_enabled));
    KEEL_TRY(skills.integer("disclosure_percent", 1, 50, out.skills_disclosure_percent));
  }
  if (const YAML::Node n = root["intents"]) {
    if (!n.IsSequence()) return r.error("intents", "must be a list of {name, keywords, patterns, tools}");
    for (size_t i = 0; i < n.size(); ++i) {
      KEEL_ASSIGN_OR_RETURN(IntentRule rule, parse_intent(r, n[i], "intents[" + std::to_string(i) + "]"));
      out.intents.push_back(std::move(rule));
    }
  }
  return Status::Ok();
}

// YAML as JSON for the MCP server definitions: mappings, sequences, and scalars as strings
// (quoted or not; the MCP reader converts the few numbers and booleans it expects).
nlohmann::json yaml_to_json(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map: {
      nlohmann::json out = nlohmann::json::object();
      for (auto it = node.begin(); it != node.end(); ++it) out[it->first.as<std::string>()] = yaml_to_json(it->second);
      return out;
    }
    case YAML::NodeType::Sequence: {
      nlohmann::json out = nlohmann::json::array();
      for (const auto& item : node) out.push_back(yaml_to_json(item));
      return out;
    }
    case YAML::NodeType::Scalar: return node.Scalar();
    default: return nullptr;
  }
}

// `store: URL` or `store: {url, pool_size, reconnect_wait_ms}`: where keel keeps its records.
Status parse_store(const FileReader& r, const YAML::Node& node, ConfigLayer& out) {
  if (node.IsScalar()) {
    out.store_url = node.Scalar();
  } else {
    KEEL_TRY(r.mapping(node, "store"));
    KEEL_TRY(r.check_keys(node, "store", {"url", "pool_size", "reconnect_wait_ms"}));
    SectionReader store(r, node, "store.");
    KEEL_TRY(store.string("url", out.store_url));
    KEEL_TRY(store.integer("pool_size", 1, 256, out.store_pool_size));
    KEEL_TRY(store.integer("reconnect_wait_ms", 0, 3600000, out.store_reconnect_wait_ms));
    if (!out.store_url) return r.error("store", "needs url: a postgres:// URL or the path of a SQLite file");
  }
  const std::string& url = *out.store_url;
  const bool postgres = url.starts_with("postgres://") || url.starts_with("postgresql://");
  const std::string file = url.starts_with("sqlite:") ? url.substr(7) : url;
  if (!postgres && (file.empty() || file.front() != '/' || url.find("://") != std::string::npos)) {
    return r.error("store", "must be a postgres:// URL or the absolute path of a SQLite file (sqlite:PATH or PATH), got '" +
                                (url.find("://") != std::string::npos ? url.substr(0, url.find("://") + 3) + "..."
                                                                      : url) +
                                "'");
  }
  return Status::Ok();
}

Status parse_root(const FileReader& r, const YAML::Node& root, ConfigLayer& out) {
  if (!root || root.IsNull()) return Status::Ok();  // an empty file sets nothing
  if (!root.IsMap()) return r.error("the top level", "must be a mapping of keys to values (e.g. `model: rules`)");
  KEEL_TRY(r.check_keys(root, "",
                        {"model", "base_url", "api_key", "api_key_env", "max_rounds", "stream", "request_timeout_ms",
                         "stream_idle_timeout_ms", "connect_timeout_ms", "retry", "tools", "intents", "planner",
                         "context", "approvals", "mcpServers", "skills", "profiles", "lanes", "local", "secrets",
                         "a2a_agents", "budget", "prices", "autopilot", "store"}));
  SectionReader top(r, root, "");
  KEEL_TRY(top.string("model", out.model));
  KEEL_TRY(top.string("base_url", out.base_url));
  KEEL_TRY(top.string("api_key", out.api_key));
  KEEL_TRY(top.string("api_key_env", out.api_key_env));
  if (out.api_key && out.api_key_env) return r.error("api_key", "and api_key_env are both set; keep one");
  if (out.api_key_env && out.api_key_env->empty()) return r.error("api_key_env", "must name an environment variable");
  KEEL_TRY(top.integer("max_rounds", 1, 1000, out.max_rounds));
  KEEL_TRY(top.boolean("stream", out.stream));
  KEEL_TRY(top.integer("request_timeout_ms", 1, kNoMax, out.request_timeout_ms));
  KEEL_TRY(top.integer("stream_idle_timeout_ms", 1, kNoMax, out.stream_idle_timeout_ms));
  KEEL_TRY(top.integer("connect_timeout_ms", 1, kNoMax, out.connect_timeout_ms));
  if (const YAML::Node n = root["mcpServers"]) {
    KEEL_TRY(r.mapping(n, "mcpServers"));
    out.mcp_servers = yaml_to_json(n);
  }
  KEEL_TRY(top.strings("secrets", out.secrets));
  for (const std::string& name : out.secrets) {
    if (name.empty()) return r.error("secrets", "must list names of environment variables, not empty strings");
  }
  if (const YAML::Node n = root["profiles"]) KEEL_TRY(parse_profiles(n, out.path, out.profiles));
  if (const YAML::Node n = root["lanes"]) KEEL_TRY(parse_lanes(n, out.path, out.lanes.emplace()));
  if (const YAML::Node n = root["a2a_agents"]) KEEL_TRY(parse_a2a_agents(n, out.path, out.a2a_agents));
  if (const YAML::Node n = root["autopilot"]) KEEL_TRY(parse_autopilot(n, out.path, out.autopilot.emplace()));
  if (const YAML::Node n = root["budget"]) {
    KEEL_TRY(r.mapping(n, "budget"));
    KEEL_TRY(r.check_keys(n, "budget", {"max_tokens", "max_cost"}));
    SectionReader budget(r, n, "budget.");
    KEEL_TRY(budget.integer("max_tokens", 1, kNoMax, out.budget_max_tokens));
    KEEL_TRY(budget.amount("max_cost", out.budget_max_cost));
  }
  if (const YAML::Node n = root["store"]) KEEL_TRY(parse_store(r, n, out));
  if (const YAML::Node n = root["prices"]) {
    KEEL_TRY(r.mapping(n, "prices"));
    for (auto it = n.begin(); it != n.end(); ++it) {
      const std::string model = it->first.as<std::string>();
      const std::string where = "prices." + model;
      const YAML::Node entry = it->second;  // SectionReader keeps a reference: no temporary
      KEEL_TRY(r.mapping(entry, where));
      KEEL_TRY(r.check_keys(entry, where, {"input", "output"}));
      SectionReader fields(r, entry, where + ".");
      std::optional<double> input, output;
      KEEL_TRY(fields.amount("input", input));
      KEEL_TRY(fields.amount("output", output));
      if (!input || !output) return r.error(where, "needs input and output: the price of a million tokens of each");
      out.prices[model] = ModelPrice{*input, *output};
    }
  }
  return parse_sections(r, root, out);
}

}  // namespace

Result<ConfigLayer> parse_config_text(const std::string& text, const std::string& path) {
  ConfigLayer layer;
  layer.path = path;
  FileReader reader(path);
  try {
    YAML::Node root = YAML::Load(text);
    KEEL_TRY(parse_root(reader, root, layer));
  } catch (const YAML::Exception& e) {
    return Status::InvalidArgument(path + ": not valid YAML at line " + std::to_string(e.mark.line + 1) + ", column " +
                                   std::to_string(e.mark.column + 1) + ": " + e.msg);
  } catch (const std::exception& e) {
    return Status::InvalidArgument(path + ": cannot be parsed: " + e.what());
  }
  return layer;
}

void apply_skills_layer(const ConfigLayer& layer, KeelConfig& config) {
  if (layer.skills_enabled) config.skills.enabled = *layer.skills_enabled;
  if (layer.skills_disclosure_percent) config.skills.disclosure_percent = *layer.skills_disclosure_percent;
}

std::string user_config_path(const ConfigInputs& in) {
  std::string xdg = env_value(in.env, "XDG_CONFIG_HOME");
  if (!xdg.empty() && xdg.front() == '/') return (std::filesystem::path(xdg) / "keel" / "config.yaml").string();
  if (!in.home.empty()) return (std::filesystem::path(in.home) / ".config" / "keel" / "config.yaml").string();
  return {};
}

Result<std::optional<ConfigLayer>> load_config_file(const std::string& path) {
  std::error_code ec;
  std::filesystem::file_status st = std::filesystem::status(path, ec);
  if (st.type() == std::filesystem::file_type::not_found) return std::optional<ConfigLayer>();
  if (ec) return Status::InvalidArgument("cannot read config file " + path + ": " + ec.message());
  if (std::filesystem::is_directory(st)) {
    return Status::InvalidArgument("cannot read config file " + path + ": it is a directory");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::InvalidArgument("cannot read config file " + path + ": " + std::strerror(errno));
  std::stringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) return Status::InvalidArgument("cannot read config file " + path + ": read error");
  KEEL_ASSIGN_OR_RETURN(ConfigLayer layer, parse_config_text(buffer.str(), path));
  return std::optional<ConfigLayer>(std::move(layer));
}

}  // namespace keel::detail
