// The store's shared parts: construction, its clock, ids and the schema version.
#include "store/sql_store.hpp"

#include <set>

#include "base/clock.hpp"
#include "base/random_token.hpp"
#include "store/migrations.hpp"

namespace keel::detail {

SqlStore::SqlStore(std::vector<std::unique_ptr<Db>> connections, SqlStoreSettings settings)
    : pool_(std::move(connections), settings.lease_wait), settings_(std::move(settings)), notice_tag_(random_id("n_")) {}

int64_t SqlStore::now_ms() const {
  if (settings_.now_ms) return settings_.now_ms();
  return wall_now_ms();
}

Result<int> SqlStore::schema_version() {
  KEEL_ASSIGN_OR_RETURN(auto lease, pool_.lease());
  return read_schema_version(*db_);
}

StoreHealth SqlStore::health() {
  StoreHealth out;
  Db& any = pool_.first();
  out.engine = any.dialect() == SqlDialect::kPostgres ? "postgres" : "sqlite";
  out.location = any.path();
  out.connections = static_cast<int>(pool_.size());
  Result<int> version = [&]() -> Result<int> {  // answers at once while the server is down
    KEEL_ASSIGN_OR_RETURN(auto lease, pool_.lease_quickly());
    return read_schema_version(*db_);
  }();
  out.reachable = version.ok();
  if (version.ok()) {
    out.schema_version = *version;
  } else {
    out.error = version.status().message();
  }
  return out;
}

Result<std::unique_ptr<StoreClaim>> SqlStore::claim_server(std::string_view workspace) {
  KEEL_ASSIGN_OR_RETURN(auto lease, pool_.lease());
  Result<std::unique_ptr<StoreClaim>> claim = db_->claim("serve:" + std::string(workspace));
  if (claim.status().code() == ErrorCode::kFailedPrecondition) {
    return Status::FailedPrecondition("another keel serve already serves workspace " + std::string(workspace) +
                                      " from database " + db_->path() +
                                      "; stop it first (several instances need a PostgreSQL database: "
                                      "KEEL_DATABASE_URL=postgres://...)");
  }
  return claim;
}

Status check_cache_scopes(const std::vector<CacheScope>& scopes) {
  std::set<std::string, std::less<>> names;
  for (const CacheScope& scope : scopes) {
    if (scope.name.empty()) return Status::InvalidArgument("a cache scope has an empty name");
    if (!names.insert(scope.name).second) {
      return Status::InvalidArgument("cache scope '" + scope.name + "' is configured twice");
    }
    if (scope.ttl_ms < 0 || scope.max_entries < 0 || scope.max_bytes < 0) {
      return Status::InvalidArgument("cache scope '" + scope.name +
                                     "' has a negative ttl_ms, max_entries or max_bytes");
    }
  }
  return Status::Ok();
}

std::string random_id(std::string_view prefix) {
  // 128 bits: ids of sessions, runs and skill proposals are handles a client of keel serve
  // presents, so they must not be guessable from one another.
  return std::string(prefix) + random_hex(16);
}

}  // namespace keel::detail
