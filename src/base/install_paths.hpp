// Files an installed keel finds beside its executable: `cmake --install` (and the .deb) put the
// web UI under <prefix>/share/keel/web and llama.cpp's libraries under <prefix>/lib/keel, while a
// build tree uses the paths compiled in. Callers try the installed location first.
//
// Thread-safety: safe from any thread (reads /proc/self/exe once).
#pragma once

#include <filesystem>
#include <string_view>

namespace keel::detail {

// The folder holding the running executable (empty when it cannot be found).
const std::filesystem::path& executable_dir();

// <executable_dir>/../<relative> when that exists, else empty. E.g. installed_path("share/keel/web").
std::filesystem::path installed_path(std::string_view relative);

}  // namespace keel::detail
