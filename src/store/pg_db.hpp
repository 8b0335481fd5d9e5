// store/pg_db.hpp — Db over one libpq connection to PostgreSQL: statements prepared once per
// connection (`?N` written as `$N`), BEGIN ... COMMIT write transactions, SQLSTATEs turned into
// Statuses, a statement timeout on every query, and a dropped connection remade when the pool
// lends it again.
//
// Thread-safety: none; the store leases the connection to one thread at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "keel/result.hpp"
#include "store/sql_db.hpp"

typedef struct pg_conn PGconn;
typedef struct pg_result PGresult;

namespace keel::detail {

struct PgConnectSettings {
  std::string url;    // postgres://... or key=value connection string
  std::string label;  // how messages name the database (the URL without its password)
  int connect_timeout_ms = 5000;
  int statement_timeout_ms = 30000;
  // How long a call waits for a server that went away (a restart) to accept connections again
  // before it fails; 0: it fails at once.
  int reconnect_wait_ms = 30000;
};

class PgDb final : public Db {
 public:
  // Connects; Unavailable (server unreachable) or PermissionDenied (authentication) naming the
  // database otherwise.
  static Result<std::unique_ptr<PgDb>> open(const PgConnectSettings& settings);
  ~PgDb() override;

  Result<Stmt> prepare(std::string_view sql) override;
  Status exec(const std::string& sql) override;
  int64_t changes() const override { return changes_; }
  SqlDialect dialect() const override { return SqlDialect::kPostgres; }
  Status ready() override;
  Result<std::unique_ptr<StoreClaim>> claim(const std::string& key) override;
  Status notify(std::string_view topic, std::string_view payload) override;
  Result<std::unique_ptr<StoreWatch>> watch(std::string_view topic,
                                            std::function<void(const std::string&)> on_notify) override;

  // The Status for a failed result (or a null one: the connection is gone), while doing `action`.
  Status error(const PGresult* result, std::string_view action) const;
  void set_changes(int64_t n) { changes_ = n; }
  PGconn* raw() const { return conn_; }

 protected:
  Status begin_write() override;
  Status commit() override;
  void rollback() override;
  LostWrite after_lost_write(bool committing) override;

 private:
  class Statement;
  PgDb(PGconn* conn, PgConnectSettings settings);
  // Settings every new or remade connection gets (the statement timeout).
  Status configure();
  // True when the server has dropped the connection, as far as can be told without sending
  // anything (a restart's goodbye already read from the socket counts).
  bool dropped();
  // Remakes a dropped connection (waiting out an outage when the calling thread may wait);
  // prepared statements are prepared again on their next use.
  Status remake();
  // Bumped by every remade connection: a statement prepared under an older one is prepared again.
  int generation() const { return generation_; }

  PGconn* conn_;
  PgConnectSettings settings_;
  int64_t changes_ = 0;
  int next_name_ = 0;
  int generation_ = 0;
  bool commit_unsent_ = false;  // the last COMMIT found the connection dropped and never left
  std::string xid_;             // the open write transaction's id (txid_current()), to ask after a loss
  std::unordered_map<std::string, std::vector<std::unique_ptr<Statement>>, SqlTextHash, std::equal_to<>> cache_;
};

// The SQL expression naming the NOTIFY channel of `topic` ("?1") for keel's tables in the
// connection's schema: notifications are database-wide, and several keel deployments may share
// one database in different schemas.
inline constexpr std::string_view kPgChannelSql = "'keel_' || left(md5(current_schema() || ':' || ?1), 20)";

// `sql` with SQLite-style parameters ?1, ?2 ... written as $1, $2 ... (outside quoted text), and
// the highest parameter number.
std::pair<std::string, int> to_postgres_parameters(std::string_view sql);

// The URL as messages may show it: without a password (in the user part or a query parameter).
std::string redact_database_url(std::string_view url);

}  // namespace keel::detail
