#include "assembly/store_access.hpp"

#include <cstdlib>
#include <string>

#include "keel/store/postgres_store.hpp"
#include "keel/store/sqlite_store.hpp"

namespace keel::assembly {
namespace {

Result<int> pool_size_from_env() {
  const char* text = std::getenv("KEEL_DATABASE_POOL_SIZE");
  if (text == nullptr || *text == '\0') return 8;
  char* end = nullptr;
  long n = std::strtol(text, &end, 10);
  if (*end != '\0' || n < 1 || n > 256) {
    return Status::InvalidArgument(std::string("KEEL_DATABASE_POOL_SIZE must be a number from 1 to 256, got '") +
                                   text + "'");
  }
  return static_cast<int>(n);
}

}  // namespace

Result<std::unique_ptr<Store>> open_default_store() {
  const char* url = std::getenv("KEEL_DATABASE_URL");
  std::string location = url != nullptr ? url : "";
  if (is_postgres_url(location)) {
    PostgresStoreOptions options;
    options.url = location;
    KEEL_ASSIGN_OR_RETURN(options.pool_size, pool_size_from_env());
    return open_postgres_store(options);
  }
  StoreOptions options;
  if (location.starts_with("sqlite:")) location = location.substr(7);
  if (location.find("://") != std::string::npos) {
    return Status::InvalidArgument("KEEL_DATABASE_URL '" + location.substr(0, location.find("://") + 3) +
                                   "...' names an engine keel does not know; use postgres://... or a SQLite file path");
  }
  if (!location.empty()) {
    options.path = location;
  } else {
    KEEL_ASSIGN_OR_RETURN(options.path, default_store_path());
  }
  return open_sqlite_store(options);
}

}  // namespace keel::assembly
