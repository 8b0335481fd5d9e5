// runtime/hook_settings.hpp — command hooks as Claude Code's settings files declare them:
//   {"hooks": {"PreToolUse": [{"matcher": "Bash|shell",
//                              "hooks": [{"type": "command", "command": "...", "timeout": 60}]}]}}
// (format: https://docs.anthropic.com/en/docs/claude-code/hooks). Reading and matching only;
// runtime/command_hooks.hpp runs them.
//
// Matchers are regular expressions matched in full (RE2): against the tool name for
// PreToolUse, PostToolUse and PermissionRequest, SessionStart's `source`, PreCompact's `trigger`
// and Notification's `notification_type`; "*", "" or no matcher match everything, and the other
// events ignore the matcher.
//
// Thread-safety: plain values; matches() may run on several threads at once.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "keel/result.hpp"

namespace re2 {
class RE2;
}

namespace keel::detail {

// The events keel runs hooks for, by their settings names.
const std::vector<std::string>& hook_event_names();

// One command of a settings file.
struct HookCommand {
  std::string event;            // "PreToolUse", ...
  std::string matcher;          // as written ("" when absent)
  std::string command;          // run with /bin/sh -c in the workspace
  int timeout_s = 60;           // "timeout", seconds
  std::string source;           // the settings file it came from
  bool from_workspace = false;  // declared by the workspace (a repository), not the user
  std::shared_ptr<const re2::RE2> pattern;  // compiled matcher; nullptr: matches everything
};

// Whether `command`'s matcher accepts `subject` (tool name, source, trigger or notification type).
bool hook_matches(const HookCommand& command, std::string_view subject);

// Every command of the settings files read, in file order.
struct HookSettings {
  std::vector<HookCommand> commands;
  std::vector<std::string> warnings;  // things left out (an unknown event, a non-command hook type)
};

// Adds the hooks of settings text `text` read from `path`. InvalidArgument naming `path` for text
// that is not JSON or a "hooks" section of the wrong shape; a file without "hooks" adds nothing.
Status parse_hook_settings(std::string_view text, const std::string& path, bool from_workspace, HookSettings& into);

// Reads `path` (absent: nothing) and adds its hooks, as parse_hook_settings.
Status load_hook_settings_file(const std::string& path, bool from_workspace, HookSettings& into);

// The settings files hooks are read from, user files first:
//   user:      $XDG_CONFIG_HOME/keel/settings.json (else $HOME/.config/keel/settings.json),
//              $HOME/.claude/settings.json
//   workspace: <workspace>/.keel/settings.json, <workspace>/.claude/settings.json
struct HookSettingsPaths {
  std::vector<std::string> user;
  std::vector<std::string> workspace;
};
HookSettingsPaths hook_settings_paths(const std::string& workspace, const std::map<std::string, std::string>& env);

// Reads every file of hook_settings_paths(); the first unusable file's error.
Result<HookSettings> load_hook_settings(const std::string& workspace, const std::map<std::string, std::string>& env);

}  // namespace keel::detail
