#include "store/pg_db.hpp"

#include <poll.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <utility>
#include <vector>

#include "core/text/text_util.hpp"
#include "keel/store/outage_wait.hpp"
#include "store/pg_listener.hpp"
#include "store/pq_library.hpp"

namespace keel::detail {
namespace {

constexpr unsigned kByteaOid = 17;

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// bytea in PostgreSQL's text output ("\x" then two hex digits a byte).
std::string decode_bytea_hex(std::string_view text) {
  if (text.size() < 2 || text[0] != '\\' || text[1] != 'x') return std::string(text);
  std::string out;
  out.reserve((text.size() - 2) / 2);
  for (size_t i = 2; i + 1 < text.size(); i += 2) {
    out.push_back(static_cast<char>(hex_value(text[i]) * 16 + hex_value(text[i + 1])));
  }
  return out;
}

std::string sqlstate_of(const PGresult* result) {
  const char* state = result != nullptr ? pq().PQresultErrorField(result, PG_DIAG_SQLSTATE) : nullptr;
  return state != nullptr ? state : "";
}

}  // namespace

// ---------------------------------------------------------------- statements

// A statement prepared on the connection under a name of its own. Parameters are collected as
// text (bytes in binary format) and sent with the execution on the first step; rows are then read
// from the result.
class PgDb::Statement final : public StmtBackend {
 public:
  Statement(PgDb* db, std::string name, std::string text, int params)
      : db_(db), name_(std::move(name)), text_(std::move(text)) {
    resize(params);
    is_read_ = text_.starts_with("SELECT") || text_.starts_with("WITH");
  }

  bool busy = false;

  void bind_text(int i, std::string_view text) override {
    if (!slot(i)) return;
    if (text.find('\0') != std::string_view::npos) nul_in_text_ = true;
    values_[i - 1].assign(text.data(), text.size());
    null_[i - 1] = false;
    formats_[i - 1] = 0;
  }
  void bind_int(int i, int64_t value) override {
    if (!slot(i)) return;
    values_[i - 1] = std::to_string(value);
    null_[i - 1] = false;
    formats_[i - 1] = 0;
  }
  void bind_double(int i, double value) override {
    if (!slot(i)) return;
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.17g", value);
    values_[i - 1] = buf;
    null_[i - 1] = false;
    formats_[i - 1] = 0;
  }
  void bind_blob(int i, std::string_view bytes) override {
    if (!slot(i)) return;
    values_[i - 1].assign(bytes.data(), bytes.size());
    null_[i - 1] = false;
    formats_[i - 1] = 1;
  }
  void bind_null(int i) override {
    if (!slot(i)) return;
    null_[i - 1] = true;
  }

  Result<bool> step() override {
    if (result_ == nullptr) KEEL_TRY(execute());
    ++row_;
    return row_ < pq().PQntuples(result_);
  }

  std::string text(int col) const override {
    if (pq().PQgetisnull(result_, row_, col) != 0) return {};
    std::string_view value(pq().PQgetvalue(result_, row_, col),
                           static_cast<size_t>(pq().PQgetlength(result_, row_, col)));
    if (pq().PQftype(result_, col) == kByteaOid) return decode_bytea_hex(value);
    return std::string(value);
  }
  int64_t int64(int col) const override {
    if (pq().PQgetisnull(result_, row_, col) != 0) return 0;
    return std::strtoll(pq().PQgetvalue(result_, row_, col), nullptr, 10);
  }
  double real(int col) const override {
    if (pq().PQgetisnull(result_, row_, col) != 0) return 0;
    return std::strtod(pq().PQgetvalue(result_, row_, col), nullptr);
  }
  bool is_null(int col) const override { return pq().PQgetisnull(result_, row_, col) != 0; }

  void release() override {
    if (result_ != nullptr) pq().PQclear(result_);
    result_ = nullptr;
    row_ = -1;
    nul_in_text_ = false;
    for (size_t i = 0; i < null_.size(); ++i) null_[i] = true;
    busy = false;
  }

  ~Statement() {
    if (result_ != nullptr) pq().PQclear(result_);
  }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

 private:
  void resize(int params) {
    values_.resize(params);
    null_.assign(params, true);  // an unbound parameter is NULL, as in SQLite
    formats_.assign(params, 0);
  }
  bool slot(int i) const { return i >= 1 && static_cast<size_t>(i) <= values_.size(); }

  // Runs the statement. A read outside a transaction whose connection the server dropped (a
  // restart) runs again on the remade connection: reading twice changes nothing. Everything else
  // reports the loss (Db::write decides about the transaction).
  Status execute() {
    if (nul_in_text_) {
      return Status::InvalidArgument("database " + db_->path() + " refused text holding a NUL character");
    }
    const bool alone = pq().PQtransactionStatus(db_->raw()) == PQTRANS_IDLE;
    for (int attempt = 1;; ++attempt) {
      Status status = execute_once();
      if (status.ok() || !is_read_ || !alone || attempt >= Db::kWriteAttempts ||
          pq().PQstatus(db_->raw()) == CONNECTION_OK || !db_->ready().ok()) {
        return status;
      }
    }
  }

  Status execute_once() {
    if (generation_ != db_->generation()) {  // not prepared yet, or on a connection since remade
      PGresult* prepared = pq().PQprepare(db_->raw(), name_.c_str(), text_.c_str(), 0, nullptr);
      const bool ok = prepared != nullptr && pq().PQresultStatus(prepared) == PGRES_COMMAND_OK;
      Status error = ok ? Status::Ok() : db_->error(prepared, "preparing a query");
      if (prepared != nullptr) pq().PQclear(prepared);
      KEEL_TRY(error);
      generation_ = db_->generation();
    }
    std::vector<const char*> values(values_.size());
    std::vector<int> lengths(values_.size());
    for (size_t i = 0; i < values_.size(); ++i) {
      values[i] = null_[i] ? nullptr : values_[i].c_str();
      lengths[i] = static_cast<int>(values_[i].size());
    }
    result_ = pq().PQexecPrepared(db_->raw(), name_.c_str(), static_cast<int>(values.size()), values.data(),
                                  lengths.data(), formats_.data(), 0);
    ExecStatusType status = result_ != nullptr ? pq().PQresultStatus(result_) : PGRES_FATAL_ERROR;
    if (status != PGRES_TUPLES_OK && status != PGRES_COMMAND_OK) {
      Status error = db_->error(result_, "");
      if (result_ != nullptr) pq().PQclear(result_);
      result_ = nullptr;
      return error;
    }
    const char* tuples = pq().PQcmdTuples(result_);
    db_->set_changes(tuples != nullptr && *tuples != '\0' ? std::strtoll(tuples, nullptr, 10) : 0);
    row_ = -1;
    return Status::Ok();
  }

  PgDb* db_;
  std::string name_;
  std::string text_;  // as sent to the server ($N parameters)
  int generation_ = -1;  // the connection's generation it was prepared under; -1: not yet
  bool is_read_ = false;
  std::vector<std::string> values_;
  std::vector<char> null_;
  std::vector<int> formats_;
  PGresult* result_ = nullptr;
  int row_ = -1;
  bool nul_in_text_ = false;
};

// ---------------------------------------------------------------- PgDb

PgDb::PgDb(PGconn* conn, PgConnectSettings settings)
    : Db(settings.label), conn_(conn), settings_(std::move(settings)) {}

Result<std::unique_ptr<PgDb>> PgDb::open(const PgConnectSettings& settings) {
  // Defaults first, then the URL, whose own settings win (libpq expands the dbname entry).
  const std::string connect_timeout = std::to_string(std::max(1, (settings.connect_timeout_ms + 999) / 1000));
  const std::string user_timeout = std::to_string(std::max(1000, settings.statement_timeout_ms + 5000));
  const char* keys[] = {"connect_timeout", "application_name", "tcp_user_timeout", "keepalives",
                        "keepalives_idle", "client_encoding",  "dbname",           nullptr};
  const char* values[] = {connect_timeout.c_str(), "keel", user_timeout.c_str(), "1", "30", "UTF8",
                          settings.url.c_str(),    nullptr};
  KEEL_TRY(pq_load_status());
  PGconn* conn = pq().PQconnectdbParams(keys, values, 1);
  if (conn == nullptr) return Status::ResourceExhausted("out of memory connecting to database " + settings.label);
  if (pq().PQstatus(conn) != CONNECTION_OK) {
    std::string why = collapse_spaces(pq().PQerrorMessage(conn));
    pq().PQfinish(conn);
    bool auth = why.find("authentication") != std::string::npos || why.find("password") != std::string::npos;
    std::string message = "cannot connect to PostgreSQL database " + settings.label + " (" + why + ")";
    if (auth) return Status::PermissionDenied(message + "; check the user and password in the URL");
    return Status::Unavailable(message + "; check the URL and that the server is running");
  }
  std::unique_ptr<PgDb> db(new PgDb(conn, settings));
  KEEL_TRY(db->configure());
  return db;
}

PgDb::~PgDb() {
  cache_.clear();
  pq().PQfinish(conn_);
}

Status PgDb::configure() {
  // Every query of this connection ends within the timeout (the server cancels it).
  return exec("SET statement_timeout = " + std::to_string(std::max(0, settings_.statement_timeout_ms)) +
              "; SET lock_timeout = " + std::to_string(std::max(0, settings_.statement_timeout_ms)) +
              "; SET client_min_messages = warning");
}

bool PgDb::dropped() {
  // An idle connection has nothing to read unless the server said goodbye (a restart's
  // "terminating connection", then the end of the stream): read that now rather than send into a
  // dead socket. Each read takes what has arrived; the end shows on a later one.
  for (int reads = 0; reads < 8; ++reads) {
    if (pq().PQstatus(conn_) != CONNECTION_OK) return true;
    pollfd p{pq().PQsocket(conn_), POLLIN, 0};
    if (p.fd < 0) return true;
    if (::poll(&p, 1, 0) <= 0) return false;
    if (pq().PQconsumeInput(conn_) == 0) return true;
  }
  return pq().PQstatus(conn_) != CONNECTION_OK;
}

Status PgDb::remake() {
  using Clock = std::chrono::steady_clock;
  const bool wait_out_outage = store_outage_wait_on_this_thread();
  const auto give_up = Clock::now() + std::chrono::milliseconds(wait_out_outage ? settings_.reconnect_wait_ms : 0);
  auto pause = std::chrono::milliseconds(50);
  for (;;) {
    pq().PQreset(conn_);
    if (pq().PQstatus(conn_) == CONNECTION_OK) break;
    if (Clock::now() + pause > give_up || (wait_out_outage && !store_outage_wait_on_this_thread())) {
      std::string waited = wait_out_outage && settings_.reconnect_wait_ms > 0
                               ? " within " + std::to_string(settings_.reconnect_wait_ms) + " ms"
                               : "";
      return Status::Unavailable("lost the connection to PostgreSQL database " + path() + " and cannot remake it" +
                                 waited + " (" + collapse_spaces(pq().PQerrorMessage(conn_)) +
                                 "); keel retries when it is back");
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(1000));
  }
  ++generation_;  // the server forgot the prepared statements with the session
  return configure();
}

Status PgDb::ready() {
  if (dropped()) KEEL_TRY(remake());
  if (pq().PQtransactionStatus(conn_) != PQTRANS_IDLE) (void)exec("ROLLBACK");
  return Status::Ok();
}

namespace {

// Several keel serve instances serve a workspace from one PostgreSQL database together; the run
// queue's leases keep them from taking the same run, so the claim holds nothing.
class SharedClaim final : public StoreClaim {
 public:
  bool exclusive() const override { return false; }
};

}  // namespace

Result<std::unique_ptr<StoreClaim>> PgDb::claim(const std::string&) {
  return std::unique_ptr<StoreClaim>(new SharedClaim());
}

Status PgDb::notify(std::string_view topic, std::string_view payload) {
  KEEL_ASSIGN_OR_RETURN(Stmt stmt, prepare("SELECT pg_notify(" + std::string(kPgChannelSql) + ", ?2)"));
  stmt.bind(1, topic).bind(2, payload);
  return stmt.run();
}

Result<std::unique_ptr<StoreWatch>> PgDb::watch(std::string_view topic,
                                                std::function<void(const std::string&)> on_notify) {
  return PgListener::start(settings_, std::string(topic), std::move(on_notify));
}

Result<Stmt> PgDb::prepare(std::string_view sql) {
  auto it = cache_.find(sql);
  if (it != cache_.end()) {
    for (auto& copy : it->second) {
      if (!copy->busy) {
        copy->busy = true;
        return Stmt(copy.get());
      }
    }
  }
  // First use, or every copy is lent out (a statement used inside another's loop): one more,
  // kept for later like the first, prepared on the server when it first runs.
  auto [text, params] = to_postgres_parameters(sql);
  std::string name = "keel_" + std::to_string(next_name_++);
  if (it == cache_.end()) it = cache_.emplace(std::string(sql), std::vector<std::unique_ptr<Statement>>()).first;
  it->second.push_back(std::make_unique<Statement>(this, std::move(name), std::move(text), params));
  it->second.back()->busy = true;
  return Stmt(it->second.back().get());
}

Status PgDb::exec(const std::string& sql) {
  PGresult* result = pq().PQexec(conn_, sql.c_str());
  ExecStatusType status = result != nullptr ? pq().PQresultStatus(result) : PGRES_FATAL_ERROR;
  Status out = status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK ? Status::Ok() : error(result, "");
  if (result != nullptr) pq().PQclear(result);
  return out;
}

Status PgDb::begin_write() {
  KEEL_TRY(refuse_if_read_only());
  // The transaction's id comes with BEGIN (one round trip): after a connection lost while
  // committing, txid_status() tells whether the commit took effect.
  xid_.clear();
  PGresult* result = pq().PQexec(conn_, "BEGIN; SELECT txid_current()");
  const bool ok = result != nullptr && pq().PQresultStatus(result) == PGRES_TUPLES_OK && pq().PQntuples(result) == 1;
  Status out = ok ? Status::Ok() : error(result, "starting a write");
  if (ok) xid_ = pq().PQgetvalue(result, 0, 0);
  if (result != nullptr) pq().PQclear(result);
  return out;
}

Status PgDb::commit() {
  commit_unsent_ = dropped();
  if (commit_unsent_) {
    return Status::Unavailable("lost the connection to PostgreSQL database " + path() +
                               " before its write could commit; keel retries when it is back");
  }
  return exec("COMMIT");
}

Db::LostWrite PgDb::after_lost_write(bool committing) {
  if (pq().PQstatus(conn_) == CONNECTION_OK && !dropped()) return LostWrite::kFailed;  // another reason
  if (!ready().ok()) return LostWrite::kFailed;
  if (!committing || commit_unsent_) return LostWrite::kRunAgain;  // never asked to commit
  // COMMIT left before the connection went: the server knows whether it took effect.
  if (xid_.empty() || xid_.find_first_not_of("0123456789") != std::string::npos) return LostWrite::kFailed;
  const std::string ask = "SELECT txid_status(" + xid_ + ")";  // digits the server gave
  for (int asked = 0; asked < 50; ++asked) {
    PGresult* result = pq().PQexec(conn_, ask.c_str());
    std::string state;
    const bool ok = result != nullptr && pq().PQresultStatus(result) == PGRES_TUPLES_OK && pq().PQntuples(result) == 1;
    if (ok && pq().PQgetisnull(result, 0, 0) == 0) state = pq().PQgetvalue(result, 0, 0);
    if (result != nullptr) pq().PQclear(result);
    if (!ok) return LostWrite::kFailed;
    if (state == "committed") return LostWrite::kCommitted;
    if (state == "aborted") return LostWrite::kRunAgain;
    if (state != "in progress") return LostWrite::kFailed;  // unknown (too old to tell)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));  // its session is ending
  }
  return LostWrite::kFailed;
}

void PgDb::rollback() {
  if (pq().PQstatus(conn_) == CONNECTION_OK && pq().PQtransactionStatus(conn_) != PQTRANS_IDLE) (void)exec("ROLLBACK");
}

Status PgDb::error(const PGresult* result, std::string_view action) const {
  const std::string db = path();
  const std::string while_doing = action.empty() ? "" : " while " + std::string(action);
  if (result == nullptr || pq().PQstatus(conn_) != CONNECTION_OK) {
    return Status::Unavailable("lost the connection to PostgreSQL database " + db + while_doing + " (" +
                               collapse_spaces(pq().PQerrorMessage(conn_)) + "); keel retries when it is back");
  }
  const std::string state = sqlstate_of(result);
  const std::string why = "(" + collapse_spaces(pq().PQresultErrorMessage(result)) + ")";
  const std::string cls = state.substr(0, 2);
  if (state == "42501" || state == "25006") {
    return Status::PermissionDenied("database " + db + " refused the write " + why + while_doing +
                                    "; the role needs write access to keel's tables");
  }
  if (cls == "23") return Status::InvalidArgument("refused by database " + db + " " + why + while_doing);
  if (state == "22021" || state == "22P05" || state == "54000") {
    return Status::InvalidArgument("value refused by database " + db + " " + why + while_doing);
  }
  if (state == "57014") {
    return Status::DeadlineExceeded("a query on database " + db + " ran past its statement timeout " + why +
                                    while_doing);
  }
  if (state == "53100") {
    return Status::ResourceExhausted("database " + db + " is full " + why + while_doing + "; free disk space");
  }
  if (cls == "53" || cls == "08" || cls == "57" || state == "40001" || state == "40P01" || state == "55P03") {
    return Status::Unavailable("database " + db + " cannot serve the query now " + why + while_doing + "; retry");
  }
  return Status::Internal("database " + db + " error " + why + while_doing);
}

// ---------------------------------------------------------------- text helpers

std::pair<std::string, int> to_postgres_parameters(std::string_view sql) {
  std::string out;
  out.reserve(sql.size() + 8);
  int highest = 0;
  bool quoted = false;
  for (size_t i = 0; i < sql.size(); ++i) {
    char c = sql[i];
    if (c == '\'') quoted = !quoted;
    if (c == '?' && !quoted) {
      size_t j = i + 1;
      int n = 0;
      while (j < sql.size() && sql[j] >= '0' && sql[j] <= '9') n = n * 10 + (sql[j++] - '0');
      if (j == i + 1) n = highest + 1;  // a bare ? is the next parameter
      highest = std::max(highest, n);
      out += '$';
      out += std::to_string(n);
      i = j - 1;
      continue;
    }
    out += c;
  }
  return {out, highest};
}

std::string redact_database_url(std::string_view url) {
  std::string out(url);
  if (size_t q = out.find('?'); q != std::string::npos && out.find("://") != std::string::npos) out.resize(q);
  size_t scheme = out.find("://");
  if (scheme != std::string::npos) {
    size_t host_start = scheme + 3;
    size_t at = out.find('@', host_start);
    size_t slash = out.find('/', host_start);
    if (at != std::string::npos && (slash == std::string::npos || at < slash)) {
      size_t colon = out.find(':', host_start);
      if (colon != std::string::npos && colon < at) out.erase(colon, at - colon);
    }
    return out;
  }
  // key=value form: drop a password=... pair.
  size_t p = out.find("password=");
  if (p != std::string::npos) {
    size_t end = out.find(' ', p);
    out.erase(p, end == std::string::npos ? std::string::npos : end - p + 1);
  }
  return out;
}

}  // namespace keel::detail
