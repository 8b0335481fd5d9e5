// Test helper: a real PostgreSQL server on 127.0.0.1 and fresh schemas on it.
//
// Under ctest the server is the `postgres` fixture's (test/support/pg-test-server.sh, its folder
// in KEEL_TEST_PG_DIR); a test binary run by hand starts its own on first use and stops it when
// the process exits. When neither works the helpers return the error, and the tests fail: a
// missing PostgreSQL is never a skip.
#pragma once

#include <cstdint>
#include <string>

#include "keel/result.hpp"

namespace keel::testing {

// A PostgreSQL server of the caller's own, for tests and benchmarks that stop and start it
// (stopping the shared one would disturb the other tests): durable, so what was committed survives
// an abrupt stop; in /tmp/keel-pg-NAME-PID; stopped and removed on destruction.
class ScratchPostgres {
 public:
  explicit ScratchPostgres(const std::string& name);
  ~ScratchPostgres();
  ScratchPostgres(const ScratchPostgres&) = delete;
  ScratchPostgres& operator=(const ScratchPostgres&) = delete;

  // Empty when it did not start (the script's output is then on stderr).
  const std::string& url() const { return url_; }
  // pg-test-server.sh COMMAND on it (halt, shutdown, resume, resume-if-stopped): its exit code.
  int control(const std::string& command) const;

 private:
  std::string dir_;
  std::string url_;
};

// A superuser URL of the tests' server.
Result<std::string> test_postgres_url();

// The folder of the tests' server (for pg-test-server.sh restart).
Result<std::string> test_postgres_dir();

// A schema of its own on the tests' server, dropped (with everything in it) on destruction.
class PostgresSchema {
 public:
  static Result<PostgresSchema> create();
  PostgresSchema(PostgresSchema&& other) noexcept;
  PostgresSchema& operator=(PostgresSchema&&) = delete;
  ~PostgresSchema();

  // A URL whose connections use this schema (search_path).
  const std::string& url() const { return url_; }
  const std::string& name() const { return name_; }
  // The first column of the first row of `sql` run in this schema; -1 when there is none or on error.
  int64_t query_int(const std::string& sql) const;
  // Runs `sql` (one or more statements) as the superuser in this schema.
  Status exec(const std::string& sql) const;

 private:
  PostgresSchema(std::string name, std::string url) : name_(std::move(name)), url_(std::move(url)) {}
  std::string name_;
  std::string url_;
};

// Runs `sql` (one or more statements) on a connection of its own to `url`.
Status run_postgres_sql(const std::string& url, const std::string& sql);

// The first column of the first row of `sql` run on `url`; -1 when there is none or on error.
int64_t query_postgres_int(const std::string& url, const std::string& sql);

// `url` with its connections' search_path set to `schema`.
std::string url_with_schema(const std::string& url, const std::string& schema);

}  // namespace keel::testing
