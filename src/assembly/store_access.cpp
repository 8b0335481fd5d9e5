#include "assembly/store_access.hpp"

#include <cstdlib>
#include <string>

#include "keel/store/postgres_store.hpp"
#include "keel/store/sqlite_store.hpp"
#include "keel/store_settings.hpp"

namespace keel::assembly {

Result<std::unique_ptr<Store>> open_default_store() {
  ConfigInputs in;
  in.env = current_environment();
  if (const char* home = std::getenv("HOME")) in.home = home;
  KEEL_ASSIGN_OR_RETURN(StoreSettings settings, resolve_store_settings(in));
  if (is_postgres_url(settings.url)) {
    PostgresStoreOptions options;
    options.url = settings.url;
    options.pool_size = settings.pool_size;
    options.reconnect_wait_ms = settings.reconnect_wait_ms;
    return open_postgres_store(options);
  }
  StoreOptions options;
  if (!settings.url.empty()) {
    options.path = settings.url;
  } else {
    KEEL_ASSIGN_OR_RETURN(options.path, default_store_path());
  }
  return open_sqlite_store(options);
}

}  // namespace keel::assembly
