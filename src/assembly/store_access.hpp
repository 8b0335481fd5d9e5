// Opening keel's database for a host: $KEEL_HOME/keel.db (default ~/.local/share/keel/keel.db).
#pragma once

#include <memory>

#include "keel/result.hpp"
#include "keel/store/store.hpp"

namespace keel::assembly {

// Opens (creating or migrating) the database. Errors name the file and what is wrong with it,
// e.g. "…/keel.db is not a keel database (file is not a database)"; the file is never replaced.
Result<std::unique_ptr<Store>> open_default_store();

}  // namespace keel::assembly
