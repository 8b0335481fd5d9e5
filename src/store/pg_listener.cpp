#include "store/pg_listener.hpp"

#include <poll.h>

#include <chrono>
#include <utility>

#include "store/pq_library.hpp"

namespace keel::detail {

PgListener::PgListener(PgConnectSettings settings, std::string topic, std::function<void(const std::string&)> on_notify)
    : settings_(std::move(settings)), topic_(std::move(topic)), on_notify_(std::move(on_notify)) {}

Result<std::unique_ptr<StoreWatch>> PgListener::start(const PgConnectSettings& settings, std::string topic,
                                                      std::function<void(const std::string&)> on_notify) {
  std::unique_ptr<PgListener> listener(new PgListener(settings, std::move(topic), std::move(on_notify)));
  // Not reachable now: the thread keeps trying, and says "" once it listens.
  listener->connected_ = listener->connect().ok();
  PgListener* self = listener.get();
  listener->thread_ = std::jthread([self](std::stop_token stop) { self->loop(stop); });
  return std::unique_ptr<StoreWatch>(std::move(listener));
}

PgListener::~PgListener() {
  thread_.request_stop();
  if (thread_.joinable()) thread_.join();
}

Status PgListener::connect() {
  db_.reset();
  KEEL_ASSIGN_OR_RETURN(std::unique_ptr<PgDb> db, PgDb::open(settings_));
  std::string channel;
  {
    KEEL_ASSIGN_OR_RETURN(Stmt stmt, db->prepare("SELECT " + std::string(kPgChannelSql)));
    stmt.bind(1, topic_);
    KEEL_ASSIGN_OR_RETURN(bool row, stmt.step());
    if (row) channel = stmt.text(0);
    KEEL_TRY(stmt.run());
  }
  // The channel is 'keel_' and hex digits: a plain identifier.
  KEEL_TRY(db->exec("LISTEN " + channel));
  db_ = std::move(db);
  return Status::Ok();
}

void PgListener::loop(std::stop_token stop) {
  while (!stop.stop_requested()) {
    if (!connected_ || !db_ || pq().PQstatus(db_->raw()) != CONNECTION_OK) {
      if (!connect().ok()) {
        for (int i = 0; i < 10 && !stop.stop_requested(); ++i)
          std::this_thread::sleep_for(std::chrono::milliseconds(100));
        continue;
      }
      connected_ = true;
      on_notify_("");  // back after a gap: anything may have changed meanwhile
    }
    PGconn* conn = db_->raw();
    pollfd fd{pq().PQsocket(conn), POLLIN, 0};
    if (fd.fd < 0) {
      connected_ = false;
      continue;
    }
    int ready = ::poll(&fd, 1, 200);  // wakes to see a stop request
    if (ready <= 0) continue;
    if (pq().PQconsumeInput(conn) == 0) {
      connected_ = false;  // the connection broke: remade on the next turn
      continue;
    }
    while (PGnotify* n = pq().PQnotifies(conn)) {
      std::string payload = n->extra != nullptr ? n->extra : "";
      pq().PQfreemem(n);
      on_notify_(payload);
    }
  }
}

}  // namespace keel::detail
