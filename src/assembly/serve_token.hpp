// assembly/serve_token.hpp — the token a keel server requires when the operator gives none: made
// once from the kernel's random source and kept in $KEEL_HOME/serve-token (mode 0600), so the
// printed sign-in URL and scripts that read the file keep working across restarts.
//
// Thread-safety: free function; two processes creating the file at once both end up with the
// one that was written first (O_EXCL).
#pragma once

#include <filesystem>
#include <string>

#include "keel/result.hpp"

namespace keel::assembly {

struct ServeToken {
  std::string token;
  std::filesystem::path path;  // where it is kept
  bool created = false;        // made by this call
};

// Reads the token in `path` (empty: $KEEL_HOME/serve-token, next to the database), or makes and
// writes one. Errors: a file that is not a regular file of this user, is readable or writable by
// others, or holds no usable token (the message says what to do: chmod 600, or delete it).
Result<ServeToken> load_or_create_serve_token(std::filesystem::path path = {});

}  // namespace keel::assembly
