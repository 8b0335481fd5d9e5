// keel/store_settings.hpp — which database keel keeps its records in, resolved from every place a
// user can name it.
//
// Precedence, highest first: KEEL_DATABASE_URL (and KEEL_DATABASE_POOL_SIZE) > `store:` in the
// user file `$XDG_CONFIG_HOME/keel/config.yaml` (default `$HOME/.config/keel/config.yaml`) > the
// SQLite file `$KEEL_HOME/keel.db` (default `~/.local/share/keel/keel.db`).
//
//   store: postgres://keel@db.internal/keel        # or a SQLite file: /srv/keel/keel.db
//   store: {url: postgres://keel@db.internal/keel, pool_size: 16, reconnect_wait_ms: 30000}
//
// The database is the user's (every workspace's sessions are in it), so a workspace keel.yaml may
// not choose it: a repository could otherwise send its runs to a server of its choosing.
// resolve_config() refuses `store:` there with an error pointing at the user file.
//
// Thread-safety: a free function that reads only the file it is pointed at.
#pragma once

#include <string>

#include "keel/config.hpp"
#include "keel/result.hpp"

namespace keel {

struct StoreSettings {
  // A postgres:// URL, or the path of a SQLite file; empty: the default SQLite file.
  std::string url;
  int pool_size = 8;               // PostgreSQL connections kept open (1 to 256)
  int reconnect_wait_ms = 30000;   // how long a call waits for a restarting PostgreSQL (0 to 3600000)
  std::string source = "default";  // where url came from: "KEEL_DATABASE_URL", the user file, "default"
};

// Resolves the store settings from `in.env` and the user file (in.home / XDG_CONFIG_HOME; the
// workspace is not read). Errors (kInvalidArgument) name the variable or the file and key.
Result<StoreSettings> resolve_store_settings(const ConfigInputs& in);

}  // namespace keel
