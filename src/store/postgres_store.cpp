// Opening the PostgreSQL store: connections, the role's write access, the schema.
#include "keel/store/postgres_store.hpp"

#include "store/pg_db.hpp"
#include "store/postgres_schema.hpp"
#include "store/sql_store.hpp"

namespace keel {
namespace {

// PermissionDenied, before anything is written, when this role cannot write: a read-only
// transaction default (a standby, or default_transaction_read_only), or no INSERT on an existing
// keel table (an empty schema is checked by creating the tables).
Status check_writable(detail::Db& db) {
  KEEL_ASSIGN_OR_RETURN(int64_t read_only,
                        detail::query_int(db,
                                          "SELECT CASE WHEN current_setting('transaction_read_only') = 'on' "
                                          "THEN 1 ELSE 0 END"));
  if (read_only != 0) {
    return Status::PermissionDenied("database " + db.path() +
                                    " only allows reading (transaction_read_only is on: a standby or a read-only "
                                    "default for this role); connect to the primary with a role that can write");
  }
  KEEL_ASSIGN_OR_RETURN(int64_t can_write,
                        detail::query_int(db,
                                          "SELECT CASE WHEN to_regclass('messages') IS NULL THEN 1 "
                                          "WHEN has_table_privilege(to_regclass('messages'), 'INSERT') "
                                          "AND has_table_privilege(to_regclass('runs'), 'UPDATE') THEN 1 ELSE 0 END"));
  if (can_write == 0) {
    return Status::PermissionDenied("the role connecting to database " + db.path() +
                                    " cannot write keel's tables (no INSERT or UPDATE privilege); grant them or "
                                    "open the store read-only");
  }
  return Status::Ok();
}

}  // namespace

bool is_postgres_url(std::string_view location) {
  return location.starts_with("postgres://") || location.starts_with("postgresql://");
}

Result<std::unique_ptr<Store>> open_postgres_store(const PostgresStoreOptions& options) {
  KEEL_TRY(detail::check_cache_scopes(options.cache_scopes));
  if (options.url.empty()) return Status::InvalidArgument("no PostgreSQL URL given (postgres://user@host/database)");
  if (options.pool_size < 1 || options.pool_size > 256) {
    return Status::InvalidArgument("pool_size must be between 1 and 256, got " + std::to_string(options.pool_size));
  }
  if (options.connect_timeout_ms <= 0 || options.statement_timeout_ms <= 0 || options.lease_wait_ms <= 0) {
    return Status::InvalidArgument("connect_timeout_ms, statement_timeout_ms and lease_wait_ms must be positive");
  }
  if (options.reconnect_wait_ms < 0) {
    return Status::InvalidArgument("reconnect_wait_ms must be 0 or more, got " +
                                   std::to_string(options.reconnect_wait_ms));
  }
  detail::PgConnectSettings settings;
  settings.url = options.url;
  settings.label = detail::redact_database_url(options.url);
  settings.connect_timeout_ms = options.connect_timeout_ms;
  settings.statement_timeout_ms = options.statement_timeout_ms;
  settings.reconnect_wait_ms = options.reconnect_wait_ms;

  std::vector<std::unique_ptr<detail::Db>> connections;
  KEEL_ASSIGN_OR_RETURN(std::unique_ptr<detail::PgDb> first, detail::PgDb::open(settings));
  if (!options.read_only) KEEL_TRY(check_writable(*first));
  KEEL_TRY(detail::prepare_postgres_schema(*first, options.read_only).status());
  if (options.read_only) first->set_read_only(true);
  connections.push_back(std::move(first));
  for (int i = 1; i < options.pool_size; ++i) {
    KEEL_ASSIGN_OR_RETURN(std::unique_ptr<detail::PgDb> more, detail::PgDb::open(settings));
    if (options.read_only) more->set_read_only(true);
    connections.push_back(std::move(more));
  }
  detail::SqlStoreSettings store_settings{options.cache_scopes, options.now_ms,
                                          std::chrono::milliseconds(options.lease_wait_ms)};
  return std::unique_ptr<Store>(new detail::SqlStore(std::move(connections), std::move(store_settings)));
}

}  // namespace keel
