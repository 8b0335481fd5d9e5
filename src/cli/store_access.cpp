#include "cli/store_access.hpp"

#include "keel/store/sqlite_store.hpp"

namespace keel::cli {

Result<std::unique_ptr<Store>> open_cli_store() {
  KEEL_ASSIGN_OR_RETURN(std::filesystem::path path, default_store_path());
  StoreOptions options;
  options.path = path;
  return open_sqlite_store(options);
}

}  // namespace keel::cli
