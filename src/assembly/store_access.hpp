// Opening keel's database for a host: PostgreSQL when KEEL_DATABASE_URL is a postgres:// URL
// (several keel processes on one database), else the SQLite file $KEEL_HOME/keel.db (default
// ~/.local/share/keel/keel.db), or the file KEEL_DATABASE_URL names (a path or sqlite:PATH).
#pragma once

#include <memory>

#include "keel/result.hpp"
#include "keel/store/store.hpp"

namespace keel::assembly {

// Opens (creating or migrating) the database. Errors name the file or the database (its URL
// without the password) and what is wrong with it, e.g. "…/keel.db is not a keel database (file
// is not a database)"; nothing is replaced or written when opening fails.
// KEEL_DATABASE_POOL_SIZE sets the PostgreSQL connection pool (default 8).
Result<std::unique_ptr<Store>> open_default_store();

}  // namespace keel::assembly
