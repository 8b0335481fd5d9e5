// Opening keel's database for a host: the one keel/store_settings.hpp resolves — PostgreSQL for a
// postgres:// URL (several keel processes on one database), else a SQLite file (default
// $KEEL_HOME/keel.db, ~/.local/share/keel/keel.db).
#pragma once

#include <memory>

#include "keel/result.hpp"
#include "keel/store/store.hpp"

namespace keel::assembly {

// Opens (creating or migrating) the database. Errors name the file or the database (its URL
// without the password) and what is wrong with it, e.g. "…/keel.db is not a keel database (file
// is not a database)"; nothing is replaced or written when opening fails.
// A malformed user file or setting is the error, naming it.
Result<std::unique_ptr<Store>> open_default_store();

}  // namespace keel::assembly
