// tools/fs/tree_remove.hpp — deleting a file, link or directory tree without ever following a
// symbolic link: a link is removed, never what it points to, and every directory is opened
// relative to its parent with O_NOFOLLOW, so a directory swapped for a link mid-delete cannot
// lead the deletion outside the tree.
//
// Thread-safety: free function; safe from any thread (concurrent changes to the same tree make
// it fail part-way, never escape).
#pragma once

#include <cstdint>
#include <filesystem>
#include <stop_token>
#include <string_view>

#include "keel/result.hpp"

namespace keel::detail {

struct RemoveStats {
  uint64_t files = 0;  // files, links and other non-directories removed
  uint64_t dirs = 0;   // directories removed (the top one included)
};

// Removes `path` (absolute, its parent free of links) and, when it is a directory, everything in
// it. `shown` names it in errors. Polls `stop` between entries: Cancelled, with what was removed
// so far in the message. A failure part-way leaves the rest in place and says what was removed.
Status remove_tree(const std::filesystem::path& path, std::string_view shown, const std::stop_token& stop,
                   RemoveStats& stats);

}  // namespace keel::detail
