// tools/fs/tree_copy.hpp — copying a file or a directory tree without ever following a symbolic
// link inside it: every directory and file is opened relative to its parent with O_NOFOLLOW, and
// destination entries are created with O_EXCL / mkdir, so neither end can be led elsewhere by a
// link. A link found in the tree is recreated (same target text) only when the caller's filter
// allows it, otherwise skipped and reported; fifos, sockets and devices are skipped.
//
// Permission bits are copied (without setuid/setgid/sticky); owners and times are not.
//
// Thread-safety: free function; safe from any thread.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include "keel/result.hpp"

namespace keel::detail {

struct CopyStats {
  uint64_t files = 0;
  uint64_t dirs = 0;   // directories created (the top one included)
  uint64_t links = 0;  // links recreated
  uint64_t bytes = 0;  // file bytes copied
  std::vector<std::string> skipped;  // paths (relative to the copied tree) left out, with why
};

// Whether the copy may create a link at `new_link` (its absolute path in the copy) with the
// target text `target` of the link it copies.
using LinkFilter = std::function<bool(const std::filesystem::path& new_link, const std::string& target)>;

struct CopyRequest {
  std::filesystem::path from;  // absolute; a regular file, a directory, or (moves) a link
  std::filesystem::path to;    // absolute, its parent existing and free of links; must not exist,
                               // except a regular file when replace_file is set
  std::string shown_from;      // how errors name the two ends
  std::string shown_to;
  bool replace_file = false;   // a regular file at `to` is overwritten (files only)
  LinkFilter keep_link;        // empty: every link is recreated
};

// Copies from → to. Polls `stop` between entries and every 1 MiB: Cancelled, leaving what was
// copied so far in place. Errors name the entry that failed.
Status copy_tree(const CopyRequest& request, const std::stop_token& stop, CopyStats& stats);

}  // namespace keel::detail
