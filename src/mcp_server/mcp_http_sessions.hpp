// mcp/mcp_http_sessions.hpp — the sessions of the MCP Streamable HTTP endpoint: one MessageHandler
// per session id, a cap on their number and expiry of idle ones.
//
// Time is an input (`now`), so expiry is tested without sleeping. A session in use (acquired and
// not yet released) is never expired or evicted; removing it (DELETE) only unlists it, and the
// request holding it finishes with its handler.
//
//   McpSessionTable table(256, std::chrono::hours(1));
//   table.add(session, now);                          // false: full of busy sessions
//   if (auto s = table.acquire(id, now)) { ... s->handler->handle(...) ...; table.release(*s, later); }
//
// Thread-safety: all members may be called from any thread.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "keel/result.hpp"
#include "mcp_server/message_handler.hpp"

namespace keel::mcp::detail {

using SteadyTime = std::chrono::steady_clock::time_point;

struct McpSession {
  // Ends the standalone stream (GET) when the session ends, then the handler.
  ~McpSession() {
    std::function<void()> end;
    {
      std::lock_guard lock(stream_mu);
      end = std::move(end_stream);
    }
    if (end) end();
  }
  std::string id;
  std::unique_ptr<MessageHandler> handler;
  std::atomic<uint64_t> next_event_id{1};  // SSE event ids, unique within the session
  std::mutex stream_mu;
  uint64_t stream_generation = 0;     // guarded by stream_mu: the GET stream now open
  std::function<void()> end_stream;   // guarded by stream_mu: ends it; empty when none is open
  // Guarded by the table's mutex:
  SteadyTime last_used{};
  int in_use = 0;  // requests being handled
};

class McpSessionTable {
 public:
  McpSessionTable(size_t max_sessions, std::chrono::milliseconds idle_timeout);

  // Lists `session` (its id must be new). When the table is full, the least recently used idle
  // session is dropped to make room; false when every session is busy.
  bool add(std::shared_ptr<McpSession> session, SteadyTime now);

  // The session with `id`, marked in use; nullptr when unknown, ended or expired.
  std::shared_ptr<McpSession> acquire(std::string_view id, SteadyTime now);

  // Ends a use begun by acquire().
  void release(McpSession& session, SteadyTime now);

  // Ends the session; false when there is none with `id`.
  bool remove(std::string_view id);

  void clear();
  size_t size() const;

 private:
  void expire_locked(SteadyTime now);

  const size_t max_sessions_;
  const std::chrono::milliseconds idle_timeout_;
  mutable std::mutex mu_;
  std::map<std::string, std::shared_ptr<McpSession>, std::less<>> sessions_;
};

// A new session id: 128 random bits as 32 lowercase hex digits (std::random_device, else
// /dev/urandom). kInternal when no randomness source works.
Result<std::string> new_session_id();

}  // namespace keel::mcp::detail
