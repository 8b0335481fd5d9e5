#include "assembly/store_access.hpp"

#include "keel/store/sqlite_store.hpp"

namespace keel::assembly {

Result<std::unique_ptr<Store>> open_default_store() {
  KEEL_ASSIGN_OR_RETURN(std::filesystem::path path, default_store_path());
  StoreOptions options;
  options.path = path;
  return open_sqlite_store(options);
}

}  // namespace keel::assembly
