// Cache: a key-value cache split into scopes, each with its own TTL and size caps.
#include "store/sql_store.hpp"

namespace keel::detail {

Result<const CacheScope*> SqlStore::find_scope(std::string_view name) const {
  std::string known;
  for (const CacheScope& scope : settings_.cache_scopes) {
    if (scope.name == name) return &scope;
    known += (known.empty() ? "" : ", ") + scope.name;
  }
  return Status::InvalidArgument("unknown cache scope '" + std::string(name) +
                                 "'; configured scopes: " + (known.empty() ? "none" : known));
}

Result<std::optional<std::string>> SqlStore::cache_get(std::string_view scope_name, std::string_view key) {
  KEEL_TRY(find_scope(scope_name));
  KEEL_ASSIGN_OR_RETURN(auto lease, pool_.lease());
  int64_t now = now_ms();
  {
    KEEL_ASSIGN_OR_RETURN(Stmt stmt, db_->prepare("SELECT value, expires_ms FROM cache WHERE scope = ?1 AND key = ?2"));
    stmt.bind(1, scope_name).bind(2, key);
    KEEL_ASSIGN_OR_RETURN(bool found, stmt.step());
    if (!found) return std::optional<std::string>();
    if (stmt.is_null(1) || stmt.int64(1) > now) return std::optional<std::string>(stmt.text(0));
  }
  // Expired: a miss. Deleting it is housekeeping, so a read-only store just skips it.
  if (!db_->read_only()) {
    KEEL_TRY(db_->write([&]() -> Status {
      KEEL_ASSIGN_OR_RETURN(Stmt del,
                            db_->prepare("DELETE FROM cache WHERE scope = ?1 AND key = ?2 AND expires_ms <= ?3"));
      del.bind(1, scope_name).bind(2, key).bind(3, now);
      return del.run();
    }));
  }
  return std::optional<std::string>();
}

Status SqlStore::cache_put(std::string_view scope_name, std::string_view key, std::string_view value) {
  KEEL_ASSIGN_OR_RETURN(const CacheScope* scope, find_scope(scope_name));
  auto bytes = static_cast<int64_t>(value.size());
  if (scope->max_bytes > 0 && bytes > scope->max_bytes) {
    return Status::ResourceExhausted("a value of " + std::to_string(bytes) + " bytes does not fit cache scope '" +
                                     scope->name + "' (max_bytes " + std::to_string(scope->max_bytes) + ")");
  }
  KEEL_ASSIGN_OR_RETURN(auto lease, pool_.lease());
  int64_t now = now_ms();
  return db_->write([&]() -> Status {
    {
      // A rewritten key is deleted and inserted again: its new rowid makes it the newest.
      KEEL_ASSIGN_OR_RETURN(Stmt old, db_->prepare("DELETE FROM cache WHERE scope = ?1 AND key = ?2"));
      old.bind(1, scope_name).bind(2, key);
      KEEL_TRY(old.run());
      KEEL_ASSIGN_OR_RETURN(Stmt put, db_->prepare("INSERT INTO cache (scope, key, value, bytes, created_ms, expires_ms) "
                                                   "VALUES (?1, ?2, ?3, ?4, ?5, ?6)"));
      put.bind(1, scope_name).bind(2, key).bind_blob(3, value).bind(4, bytes).bind(5, now);
      if (scope->ttl_ms > 0) put.bind(6, now + scope->ttl_ms);
      KEEL_TRY(put.run());
    }
    {
      KEEL_ASSIGN_OR_RETURN(Stmt expired, db_->prepare("DELETE FROM cache WHERE scope = ?1 AND expires_ms <= ?2"));
      expired.bind(1, scope_name).bind(2, now);
      KEEL_TRY(expired.run());
    }
    if (scope->max_entries > 0) {
      KEEL_ASSIGN_OR_RETURN(Stmt evict,
                            db_->prepare("DELETE FROM cache WHERE rowid IN (SELECT rowid FROM (SELECT rowid, row_number() "
                                         "OVER (ORDER BY created_ms DESC, rowid DESC) AS n FROM cache WHERE "
                                         "scope = ?1) AS ranked WHERE n > ?2)"));
      evict.bind(1, scope_name).bind(2, scope->max_entries);
      KEEL_TRY(evict.run());
    }
    if (scope->max_bytes > 0) {
      // Keep the newest entries while their running total fits; drop the rest.
      KEEL_ASSIGN_OR_RETURN(
          Stmt evict,
          db_->prepare(
              "DELETE FROM cache WHERE rowid IN (SELECT rowid FROM (SELECT rowid, sum(bytes) OVER "
              "(ORDER BY created_ms DESC, rowid DESC) AS total FROM cache WHERE scope = ?1) AS ranked WHERE total > ?2)"));
      evict.bind(1, scope_name).bind(2, scope->max_bytes);
      KEEL_TRY(evict.run());
    }
    return Status::Ok();
  });
}

Status SqlStore::cache_clear(std::string_view scope_name) {
  KEEL_TRY(find_scope(scope_name));
  KEEL_ASSIGN_OR_RETURN(auto lease, pool_.lease());
  return db_->write([&]() -> Status {
    KEEL_ASSIGN_OR_RETURN(Stmt stmt, db_->prepare("DELETE FROM cache WHERE scope = ?1"));
    stmt.bind(1, scope_name);
    return stmt.run();
  });
}

}  // namespace keel::detail
