// store/pg_listener.hpp — LISTEN on a PostgreSQL connection of its own: what other connections
// NOTIFY on one of keel's topics is handed on from a thread of the listener's own.
//
// The channel is named by the topic and the connection's schema (kPgChannelSql), so deployments
// in different schemas of one database do not hear each other. A lost connection is remade (every
// second until it is back); then "" is handed on, as notifications may have been missed.
//
// Thread-safety: the callback runs on the listener's thread only; destruction stops and joins it.
#pragma once

#include <functional>
#include <memory>
#include <stop_token>
#include <string>
#include <thread>

#include "store/pg_db.hpp"

namespace keel::detail {

class PgListener final : public StoreWatch {
 public:
  // Connects and listens before returning when the server answers (so nothing notified afterwards
  // is missed); otherwise its thread keeps trying and hands on "" once it listens.
  static Result<std::unique_ptr<StoreWatch>> start(const PgConnectSettings& settings, std::string topic,
                                                   std::function<void(const std::string&)> on_notify);
  ~PgListener() override;

 private:
  PgListener(PgConnectSettings settings, std::string topic, std::function<void(const std::string&)> on_notify);
  // Opens the connection and LISTENs on the topic's channel.
  Status connect();
  void loop(std::stop_token stop);

  PgConnectSettings settings_;
  std::string topic_;
  std::function<void(const std::string&)> on_notify_;
  std::unique_ptr<PgDb> db_;
  bool connected_ = false;  // listening on db_ (the thread's own once it runs)
  std::jthread thread_;
};

}  // namespace keel::detail
