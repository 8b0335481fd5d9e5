// store/connection_pool.hpp — the store's connections, lent to one thread at a time.
//
// A store method takes a Lease for its whole duration; while it holds one, `current()` is that
// connection, so the store's helpers reach it without passing it around. A thread that already
// holds a lease of this pool (a method called inside Store::write_together, or one method calling
// another) gets the same connection again: its writes join the open transaction instead of
// waiting for a second connection that could deadlock against the first.
//
// SQLite uses a pool of one (one connection per process; the file serialises writers), PostgreSQL
// a pool of several, each checked (and reconnected when the server dropped it) before it is lent.
//
// Thread-safety: every method may be called from any thread.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "keel/result.hpp"
#include "store/sql_db.hpp"

namespace keel::detail {

class ConnectionPool {
 public:
  // `connections` must not be empty; a borrower waits at most `wait` for a free one.
  ConnectionPool(std::vector<std::unique_ptr<Db>> connections, std::chrono::milliseconds wait);
  ~ConnectionPool();
  ConnectionPool(const ConnectionPool&) = delete;
  ConnectionPool& operator=(const ConnectionPool&) = delete;

  class Lease {
   public:
    Lease(Lease&& other) noexcept;
    Lease& operator=(Lease&&) = delete;
    Lease(const Lease&) = delete;
    ~Lease();
    Db* operator->() const { return db_; }
    Db& operator*() const { return *db_; }

   private:
    friend class ConnectionPool;
    Lease(ConnectionPool* pool, Db* db) : pool_(pool), db_(db) {}
    ConnectionPool* pool_;
    Db* db_;
  };

  // A connection for the calling thread (the one it already holds, if any), ready for use.
  // Unavailable when none is free within the wait or a dropped connection cannot be remade (within
  // the engine's reconnect wait where the thread may wait: a restarting server pauses the caller).
  Result<Lease> lease();
  // For a health check: no outage wait, and at most a second for a free connection.
  Result<Lease> lease_quickly();
  // The connection the calling thread holds; nullptr when it holds none.
  Db* current() const;
  // Any connection, for reads of fixed facts (the first; callers hold no lease).
  Db& first() { return *connections_.front(); }
  size_t size() const { return connections_.size(); }

 private:
  Result<Lease> lease(std::chrono::milliseconds wait);
  void give_back(Db* db);

  std::vector<std::unique_ptr<Db>> connections_;
  std::chrono::milliseconds wait_;
  std::mutex mu_;
  std::condition_variable freed_;
  std::vector<Db*> free_;
  std::atomic<int> reconnecting_{0};  // borrowers in ready(): during an outage, waiting for the server
};

// `db_->...` in the store's methods: the connection the calling thread leased.
class CurrentConnection {
 public:
  explicit CurrentConnection(const ConnectionPool* pool) : pool_(pool) {}
  Db* operator->() const { return pool_->current(); }
  Db& operator*() const { return *pool_->current(); }

 private:
  const ConnectionPool* pool_;
};

}  // namespace keel::detail
