#include "store/connection_pool.hpp"

#include <algorithm>
#include <utility>

#include "keel/store/outage_wait.hpp"

namespace keel::detail {
namespace {

// The leases the calling thread holds: (pool, connection, depth). Nearly always zero or one.
struct HeldLease {
  const ConnectionPool* pool;
  Db* db;
  int depth;
};
thread_local std::vector<HeldLease> t_held;

HeldLease* held_by_this_thread(const ConnectionPool* pool) {
  for (HeldLease& h : t_held) {
    if (h.pool == pool) return &h;
  }
  return nullptr;
}

}  // namespace

ConnectionPool::ConnectionPool(std::vector<std::unique_ptr<Db>> connections, std::chrono::milliseconds wait)
    : connections_(std::move(connections)), wait_(wait) {
  for (auto& c : connections_) free_.push_back(c.get());
}

ConnectionPool::~ConnectionPool() = default;

ConnectionPool::Lease::Lease(Lease&& other) noexcept
    : pool_(std::exchange(other.pool_, nullptr)), db_(std::exchange(other.db_, nullptr)) {}

ConnectionPool::Lease::~Lease() {
  if (pool_ == nullptr) return;
  HeldLease* held = held_by_this_thread(pool_);
  if (held == nullptr) return;
  if (--held->depth > 0) return;
  t_held.erase(t_held.begin() + (held - t_held.data()));
  pool_->give_back(db_);
}

Result<ConnectionPool::Lease> ConnectionPool::lease_quickly() {
  StoreOutageWaitOff quick;
  return lease(std::min(wait_, std::chrono::milliseconds(1000)));
}

Result<ConnectionPool::Lease> ConnectionPool::lease() {
  return lease(wait_);
}

Result<ConnectionPool::Lease> ConnectionPool::lease(std::chrono::milliseconds wait) {
  // A caller that must not wait for the database does not wait long for a connection either
  // while others are waiting for the database to come back.
  if (!store_outage_wait_on_this_thread() && reconnecting_.load() > 0) {
    wait = std::min(wait, std::chrono::milliseconds(200));
  }
  if (HeldLease* held = held_by_this_thread(this)) {
    ++held->depth;
    return Lease(this, held->db);
  }
  Db* db = nullptr;
  {
    std::unique_lock lock(mu_);
    if (!freed_.wait_for(lock, wait, [&] { return !free_.empty(); })) {
      if (const int waiting = reconnecting_.load(); waiting > 0) {
        return Status::Unavailable("database " + connections_.front()->path() + " is not answering: " +
                                   std::to_string(waiting) + " of its " + std::to_string(connections_.size()) +
                                   " connections are waiting for it to come back");
      }
      return Status::Unavailable("all " + std::to_string(connections_.size()) + " connections to database " +
                                 connections_.front()->path() + " stayed busy for " + std::to_string(wait.count()) +
                                 " ms; raise the pool size or lower the load");
    }
    db = free_.back();
    free_.pop_back();
  }
  ++reconnecting_;  // counted while it may wait for the server (ready() is quick otherwise)
  Status ready = db->ready();
  --reconnecting_;
  if (!ready.ok()) {
    give_back(db);
    return ready;
  }
  t_held.push_back({this, db, 1});
  return Lease(this, db);
}

Db* ConnectionPool::current() const {
  HeldLease* held = held_by_this_thread(this);
  return held != nullptr ? held->db : nullptr;
}

void ConnectionPool::give_back(Db* db) {
  {
    std::lock_guard lock(mu_);
    free_.push_back(db);
  }
  freed_.notify_one();
}

}  // namespace keel::detail
