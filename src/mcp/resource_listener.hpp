// mcp/resource_listener.hpp — resource subscriptions in MCP 2026-07-28, which replaces
// `resources/subscribe` with one long-lived `subscriptions/listen` request: the server first
// acknowledges what it honours of the filter (`notifications/subscriptions/acknowledged`), then
// sends `notifications/resources/updated` on that request's stream until it is cancelled. keel's
// client keeps one such request per server; subscribing to another URI replaces it with one
// naming every URI so far.
// Specification: https://modelcontextprotocol.io/specification/2026-07-28/schema#subscriptionslistenrequest
//
//   mcp::ResourceListener listener(transport, [&] { return next_id++; }, add_meta);
//   KEEL_TRY(listener.subscribe("file:///notes.md", 10s, stop));
//   ... in the client's message handler: if (listener.consume(message)) return; ...
//
// Thread-safety: thread-safe. The transport must outlive the listener; close() before it closes.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <stop_token>
#include <string>
#include <thread>

#include "keel/result.hpp"
#include "mcp/transport.hpp"

namespace keel::mcp {

class ResourceListener {
 public:
  // `next_id` hands out the client's next JSON-RPC request id; `add_meta` adds the revision's
  // per-request _meta to a request's params.
  ResourceListener(Transport& transport, std::function<int64_t()> next_id,
                   std::function<void(nlohmann::json&)> add_meta);
  ~ResourceListener() { close(); }
  ResourceListener(const ResourceListener&) = delete;
  ResourceListener& operator=(const ResourceListener&) = delete;

  // Opens (or reopens) the listen request with `uri` added and waits up to `timeout` for the
  // acknowledgment. FailedPrecondition when the server does not honour updates of `uri`,
  // DeadlineExceeded without an acknowledgment, the server's error when it refused the request.
  Status subscribe(const std::string& uri, std::chrono::milliseconds timeout, std::stop_token stop);

  // True when `message` belongs to the listen request (its acknowledgment, or its response when
  // the server ends it) and was taken here; updates themselves are left to the client.
  bool consume(const nlohmann::json& message);

  // Ends the listen request (cancelled; its stream closed) and waits for its sender.
  void close();

 private:
  void stop_current();  // with the lock released: cancels and joins the current request

  Transport& transport_;
  const std::function<int64_t()> next_id_;
  const std::function<void(nlohmann::json&)> add_meta_;
  std::mutex mu_;
  std::condition_variable_any changed_;
  std::set<std::string> uris_;
  int64_t id_ = 0;                // the open listen request, 0 when none
  bool acknowledged_ = false;     // the server acknowledged request id_
  nlohmann::json honoured_;       // ... and honours these notifications
  nlohmann::json ended_;          // its response (an error or the result ending it); null while open
  std::stop_source stream_stop_;  // ends the HTTP stream of request id_
  std::thread sender_;            // sends request id_ (over HTTP: reads its stream)
};

}  // namespace keel::mcp
