// Private to the skills layer: the path rules shared by discovery, load_skill and import. A link
// or file name is usable only when it is relative and has no ".." (checked lexically, before
// touching the disk) and, once symbolic links are resolved, still lies inside the skill's folder.
//
// Thread-safety: pure functions.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace keel::detail {

// Whether `link` names a URL or another scheme ("https://x", "//host/x", "mailto:x").
bool is_url_link(std::string_view link);

// Why `rel` may not be used as a path inside a skill's folder ("is an absolute path", "goes up
// with '..'"), or "" when it may.
std::string relative_path_problem(const std::filesystem::path& rel);

// Whether the canonical `path` is the canonical `root` or lies below it.
bool path_inside(const std::filesystem::path& path, const std::filesystem::path& root);

}  // namespace keel::detail
