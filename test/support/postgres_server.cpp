#include "support/postgres_server.hpp"

#include <libpq-fe.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <random>
#include <sstream>

namespace keel::testing {
namespace {

std::string read_all(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  std::string s = text.str();
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

std::string script() {
  return std::string(KEEL_SOURCE_DIR) + "/test/support/pg-test-server.sh";
}

// The server this process started itself (no ctest fixture); stopped at exit.
std::string g_own_dir;
void stop_own_server() {
  if (g_own_dir.empty()) return;
  std::string cmd = script() + " stop '" + g_own_dir + "' >/dev/null 2>&1";
  (void)std::system(cmd.c_str());
}

struct Server {
  Status status = Status::Ok();
  std::string dir;
  std::string url;
};

const Server& server() {
  static Server s = [] {
    Server out;
    if (const char* dir = std::getenv("KEEL_TEST_PG_DIR"); dir != nullptr && *dir != '\0') {
      out.dir = dir;
      out.url = read_all(std::filesystem::path(dir) / "url");
      if (out.url.empty()) {
        out.status = Status::FailedPrecondition(std::string("the tests' PostgreSQL server did not start: no ") + dir +
                                                "/url (see the postgres_start test's output)");
      }
      return out;
    }
    out.dir = "/tmp/keel-pg-" + std::to_string(::getpid());
    std::string cmd = script() + " start '" + out.dir + "' >'" + out.dir + ".log' 2>&1";
    if (std::system(cmd.c_str()) != 0) {
      out.status =
          Status::FailedPrecondition("cannot start a PostgreSQL server for the tests: " + read_all(out.dir + ".log"));
      return out;
    }
    std::filesystem::remove(out.dir + ".log");
    g_own_dir = out.dir;
    std::atexit(stop_own_server);
    out.url = read_all(std::filesystem::path(out.dir) / "url");
    return out;
  }();
  return s;
}

std::string random_name() {
  static std::mutex mu;
  static std::mt19937_64 rng(std::random_device{}());
  std::lock_guard lock(mu);
  std::ostringstream name;
  name << "t_" << std::hex << rng();
  return name.str();
}


}  // namespace

ScratchPostgres::ScratchPostgres(const std::string& name)
    : dir_("/tmp/keel-pg-" + name + "-" + std::to_string(::getpid())) {
  if (std::system((script() + " start '" + dir_ + "' durable >/dev/null").c_str()) == 0) {
    url_ = read_all(std::filesystem::path(dir_) / "url");
  }
}

ScratchPostgres::~ScratchPostgres() {
  (void)control("stop");
}

int ScratchPostgres::control(const std::string& command) const {
  return std::system((script() + " " + command + " '" + dir_ + "' >/dev/null").c_str());
}

Result<std::string> test_postgres_url() {
  const Server& s = server();
  if (!s.status.ok()) return s.status;
  return s.url;
}

Result<std::string> test_postgres_dir() {
  const Server& s = server();
  if (!s.status.ok()) return s.status;
  return s.dir;
}

Status run_postgres_sql(const std::string& url, const std::string& sql) {
  PGconn* conn = PQconnectdb(url.c_str());
  if (PQstatus(conn) != CONNECTION_OK) {
    std::string why = PQerrorMessage(conn);
    PQfinish(conn);
    return Status::Unavailable("cannot connect to the tests' PostgreSQL server: " + why);
  }
  PGresult* result = PQexec(conn, sql.c_str());
  ExecStatusType st = PQresultStatus(result);
  Status out =
      st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK ? Status::Ok() : Status::Internal(PQresultErrorMessage(result));
  PQclear(result);
  PQfinish(conn);
  return out;
}

int64_t query_postgres_int(const std::string& url, const std::string& sql) {
  PGconn* conn = PQconnectdb(url.c_str());
  int64_t n = -1;
  if (PQstatus(conn) == CONNECTION_OK) {
    PGresult* result = PQexec(conn, sql.c_str());
    if (PQresultStatus(result) == PGRES_TUPLES_OK && PQntuples(result) > 0 && PQgetisnull(result, 0, 0) == 0) {
      n = std::strtoll(PQgetvalue(result, 0, 0), nullptr, 10);
    }
    PQclear(result);
  }
  PQfinish(conn);
  return n;
}

std::string url_with_schema(const std::string& url, const std::string& schema) {
  return url + (url.find('?') == std::string::npos ? "?" : "&") + "options=-csearch_path%3D" + schema;
}

Result<PostgresSchema> PostgresSchema::create() {
  KEEL_ASSIGN_OR_RETURN(std::string base, test_postgres_url());
  std::string name = random_name();
  KEEL_TRY(run_postgres_sql(base, "CREATE SCHEMA " + name));
  return PostgresSchema(name, url_with_schema(base, name));
}

PostgresSchema::PostgresSchema(PostgresSchema&& other) noexcept
    : name_(std::move(other.name_)), url_(std::move(other.url_)) {
  other.name_.clear();
}

PostgresSchema::~PostgresSchema() {
  if (name_.empty()) return;
  auto base = test_postgres_url();
  if (base.ok()) (void)run_postgres_sql(*base, "DROP SCHEMA IF EXISTS " + name_ + " CASCADE");
}

int64_t PostgresSchema::query_int(const std::string& sql) const {
  return query_postgres_int(url_, sql);
}

Status PostgresSchema::exec(const std::string& sql) const {
  return run_postgres_sql(url_, sql);
}

}  // namespace keel::testing
