// The clean environment of child processes; see child_env.hpp.
#include "base/child_env.hpp"

#include <algorithm>

extern char** environ;

namespace keel::detail {

bool is_base_environment_name(std::string_view name) {
  static constexpr std::string_view kNames[] = {"PATH",     "HOME", "USER", "LOGNAME",   "SHELL",    "LANG",
                                                "LANGUAGE", "TERM", "TZ",   "COLORTERM", "NO_COLOR", "TMPDIR"};
  if (name.starts_with("LC_")) return true;
  return std::find(std::begin(kNames), std::end(kNames), name) != std::end(kNames);
}

std::vector<std::string> clean_environment(const std::vector<std::string>& pass_names,
                                           const std::map<std::string, std::string>& set_values) {
  std::map<std::string, std::string> chosen;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const std::string_view entry = *e;
    const size_t eq = entry.find('=');
    if (eq == std::string_view::npos || eq == 0) continue;
    const std::string_view name = entry.substr(0, eq);
    const bool named = std::find(pass_names.begin(), pass_names.end(), name) != pass_names.end();
    if (!named && !is_base_environment_name(name)) continue;
    chosen.emplace(std::string(name), std::string(entry.substr(eq + 1)));  // the first of duplicates wins, as getenv
  }
  for (const auto& [name, value] : set_values) chosen[name] = value;
  std::vector<std::string> out;
  out.reserve(chosen.size());
  for (const auto& [name, value] : chosen) {
    std::string line = name;
    line.append("=").append(value);
    out.push_back(std::move(line));
  }
  return out;
}

}  // namespace keel::detail
