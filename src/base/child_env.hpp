// base/child_env.hpp — the environment of every process keel starts (the shell tool's commands,
// stdio MCP servers): a short allowlist of harmless names taken from keel's own environment, the
// names the operator lists explicitly, and explicit values. Nothing else passes, so provider keys
// and tokens (OPENAI_API_KEY, ANTHROPIC_API_KEY, HF_TOKEN, KEEL_SERVE_TOKEN, ...) never reach a
// child unless the operator names them.
//
// The allowlist, and why each name is there:
//   PATH                 programs are found as in the user's terminal
//   HOME, USER, LOGNAME  who and where the user is; many tools refuse to start without HOME
//   SHELL                programs that start a subshell pick the user's
//   LANG, LANGUAGE, LC_* the user's locale: messages and sorting as in their terminal
//   TERM, COLORTERM, NO_COLOR  how (and whether) to colour output
//   TZ                   local times in the user's zone
//   TMPDIR               where temporary files go
// Anything a program needs beyond these (a proxy, a toolchain's home) is named by the operator.
//
// Thread-safety: reads ::environ; safe as long as nothing calls setenv() at the same time.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace keel::detail {

// True when `name` is on the allowlist above.
bool is_base_environment_name(std::string_view name);

// "NAME=value" entries: keel's variables on the allowlist or in `pass_names` (absent ones are
// skipped), then `set_values`, which replace a passed variable of the same name. Sorted by name.
std::vector<std::string> clean_environment(const std::vector<std::string>& pass_names,
                                           const std::map<std::string, std::string>& set_values);

}  // namespace keel::detail
