// Reading command hooks from settings files; see hook_settings.hpp.
#include "runtime/hook_settings.hpp"

#include <re2/re2.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace keel::detail {
namespace {

using nlohmann::json;

std::string hook_env_value(const std::map<std::string, std::string>& env, const char* name) {
  auto it = env.find(name);
  return it == env.end() ? std::string() : it->second;
}

Status hook_shape_error(const std::string& path, const std::string& where, const std::string& what) {
  return Status::InvalidArgument(path + ": " + where + " " + what +
                                 " (expected {\"hooks\": {\"EVENT\": [{\"matcher\": \"...\", \"hooks\": "
                                 "[{\"type\": \"command\", \"command\": \"...\"}]}]}})");
}

}  // namespace

const std::vector<std::string>& hook_event_names() {
  static const std::vector<std::string> names = {"PreToolUse",   "PostToolUse", "UserPromptSubmit", "Stop",
                                                 "SubagentStop", "SessionStart", "SessionEnd",      "PreCompact",
                                                 "Notification", "PermissionRequest"};
  return names;
}

bool hook_matches(const HookCommand& command, std::string_view subject) {
  if (!command.pattern) return true;
  return RE2::FullMatch(subject, *command.pattern);
}

Status parse_hook_settings(std::string_view text, const std::string& path, bool from_workspace, HookSettings& into) {
  json doc = json::parse(text, nullptr, false);
  if (doc.is_discarded()) return Status::InvalidArgument(path + ": not valid JSON; fix or remove the file");
  if (!doc.is_object()) return hook_shape_error(path, "the file", "is not a JSON object");
  auto hooks = doc.find("hooks");
  if (hooks == doc.end() || hooks->is_null()) return Status::Ok();
  if (!hooks->is_object()) return hook_shape_error(path, "\"hooks\"", "is not an object");
  const std::vector<std::string>& known = hook_event_names();
  for (const auto& [event, groups] : hooks->items()) {
    if (std::find(known.begin(), known.end(), event) == known.end()) {
      into.warnings.push_back(path + ": hooks for '" + event + "' are ignored; keel runs hooks for PreToolUse, "
                              "PostToolUse, UserPromptSubmit, Stop, SubagentStop, SessionStart, SessionEnd, "
                              "PreCompact, Notification and PermissionRequest");
      continue;
    }
    const std::string where = "hooks." + event;
    if (!groups.is_array()) return hook_shape_error(path, where, "is not an array");
    for (size_t i = 0; i < groups.size(); ++i) {
      const json& group = groups[i];
      const std::string at = where + "[" + std::to_string(i) + "]";
      if (!group.is_object()) return hook_shape_error(path, at, "is not an object");
      std::string matcher;
      if (auto m = group.find("matcher"); m != group.end() && !m->is_null()) {
        if (!m->is_string()) return hook_shape_error(path, at + ".matcher", "is not a string");
        matcher = m->get<std::string>();
      }
      std::shared_ptr<const re2::RE2> pattern;
      if (!matcher.empty() && matcher != "*") {
        auto re = std::make_shared<re2::RE2>(matcher, RE2::Quiet);
        if (!re->ok()) {
          return Status::InvalidArgument(path + ": " + at + ".matcher '" + matcher +
                                         "' is not a valid regular expression (" + re->error() + ")");
        }
        pattern = std::move(re);
      }
      auto list = group.find("hooks");
      if (list == group.end() || !list->is_array()) return hook_shape_error(path, at + ".hooks", "is missing or not an array");
      for (size_t j = 0; j < list->size(); ++j) {
        const json& h = (*list)[j];
        const std::string hat = at + ".hooks[" + std::to_string(j) + "]";
        if (!h.is_object()) return hook_shape_error(path, hat, "is not an object");
        std::string type = h.value("type", std::string("command"));
        if (type != "command") {
          into.warnings.push_back(path + ": " + hat + " has type '" + type + "'; keel runs only \"command\" hooks");
          continue;
        }
        auto cmd = h.find("command");
        if (cmd == h.end() || !cmd->is_string() || cmd->get<std::string>().empty()) {
          return hook_shape_error(path, hat + ".command", "is missing or not a non-empty string");
        }
        HookCommand c;
        c.event = event;
        c.matcher = matcher;
        c.command = cmd->get<std::string>();
        if (auto t = h.find("timeout"); t != h.end() && !t->is_null()) {
          if (!t->is_number() || t->get<double>() <= 0) return hook_shape_error(path, hat + ".timeout", "is not a positive number of seconds");
          c.timeout_s = std::max(1, static_cast<int>(t->get<double>()));
        }
        c.source = path;
        c.from_workspace = from_workspace;
        c.pattern = pattern;
        into.commands.push_back(std::move(c));
      }
    }
  }
  return Status::Ok();
}

Status load_hook_settings_file(const std::string& path, bool from_workspace, HookSettings& into) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return Status::Ok();
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::InvalidArgument(path + ": cannot be read; fix its permissions or remove it");
  std::stringstream text;
  text << in.rdbuf();
  return parse_hook_settings(text.str(), path, from_workspace, into);
}

HookSettingsPaths hook_settings_paths(const std::string& workspace, const std::map<std::string, std::string>& env) {
  namespace fs = std::filesystem;
  HookSettingsPaths p;
  const std::string xdg = hook_env_value(env, "XDG_CONFIG_HOME");
  const std::string home = hook_env_value(env, "HOME");
  if (!xdg.empty() && xdg.front() == '/') {
    p.user.push_back((fs::path(xdg) / "keel" / "settings.json").string());
  } else if (!home.empty()) {
    p.user.push_back((fs::path(home) / ".config" / "keel" / "settings.json").string());
  }
  if (!home.empty()) p.user.push_back((fs::path(home) / ".claude" / "settings.json").string());
  if (!workspace.empty()) {
    for (const char* rel : {".keel/settings.json", ".claude/settings.json"}) {
      std::string path = (fs::path(workspace) / rel).string();
      // A workspace that is the home folder: its .claude/settings.json is the user's own file.
      if (std::find(p.user.begin(), p.user.end(), path) == p.user.end()) p.workspace.push_back(std::move(path));
    }
  }
  return p;
}

Result<HookSettings> load_hook_settings(const std::string& workspace, const std::map<std::string, std::string>& env) {
  HookSettings s;
  HookSettingsPaths paths = hook_settings_paths(workspace, env);
  for (const std::string& p : paths.user) KEEL_TRY(load_hook_settings_file(p, false, s));
  for (const std::string& p : paths.workspace) KEEL_TRY(load_hook_settings_file(p, true, s));
  return s;
}

}  // namespace keel::detail
