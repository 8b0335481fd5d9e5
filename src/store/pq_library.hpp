// libpq's entry points, resolved when keel first opens a PostgreSQL store rather than linked into
// keel: libpq's dependencies (TLS, Kerberos, LDAP) would otherwise load at every start of every
// command, and most runs use SQLite.
//
// pq() may be used only after pq_load_status() returned Ok (PgDb::open checks it first).
// Thread-safety: safe from any thread (loaded once).
#pragma once

#include <libpq-fe.h>

#include "keel/result.hpp"

#define KEEL_PQ_ENTRY_POINTS(X)                                                                              \
  X(PQclear)                                                                                                 \
  X(PQcmdTuples) X(PQconnectdbParams) X(PQerrorMessage) X(PQexec) X(PQexecPrepared) X(PQfinish) X(PQftype)   \
      X(PQgetisnull) X(PQgetlength) X(PQgetvalue) X(PQntuples) X(PQprepare) X(PQreset) X(PQresultErrorField) \
          X(PQresultErrorMessage) X(PQresultStatus) X(PQstatus) X(PQtransactionStatus) X(PQsocket)           \
              X(PQconsumeInput) X(PQnotifies) X(PQfreemem)

namespace keel::detail {

struct PqLibrary {
#define KEEL_PQ_MEMBER(name) decltype(&::name) name = nullptr;
  KEEL_PQ_ENTRY_POINTS(KEEL_PQ_MEMBER)
#undef KEEL_PQ_MEMBER
};

// The entry points (null until pq_load_status() succeeded).
const PqLibrary& pq();
// Ok, or why libpq could not be loaded (with what to install).
Status pq_load_status();

}  // namespace keel::detail
