// The MCP HTTP endpoint's session table and session ids; see mcp_http_sessions.hpp.
#include "mcp_server/mcp_http_sessions.hpp"

#include <array>
#include <cstdio>
#include <exception>
#include <random>
#include <utility>
#include <vector>

namespace keel::mcp::detail {

McpSessionTable::McpSessionTable(size_t max_sessions, std::chrono::milliseconds idle_timeout)
    : max_sessions_(max_sessions == 0 ? 1 : max_sessions), idle_timeout_(idle_timeout) {}

void McpSessionTable::expire_locked(SteadyTime now) {
  for (auto it = sessions_.begin(); it != sessions_.end();) {
    const McpSession& s = *it->second;
    if (s.in_use == 0 && now - s.last_used >= idle_timeout_) {
      it = sessions_.erase(it);
    } else {
      ++it;
    }
  }
}

bool McpSessionTable::add(std::shared_ptr<McpSession> session, SteadyTime now) {
  std::vector<std::shared_ptr<McpSession>> dropped;  // handlers end outside the lock
  std::lock_guard lock(mu_);
  expire_locked(now);
  if (sessions_.size() >= max_sessions_) {
    auto oldest = sessions_.end();
    for (auto it = sessions_.begin(); it != sessions_.end(); ++it) {
      if (it->second->in_use != 0) continue;
      if (oldest == sessions_.end() || it->second->last_used < oldest->second->last_used) oldest = it;
    }
    if (oldest == sessions_.end()) return false;
    dropped.push_back(std::move(oldest->second));
    sessions_.erase(oldest);
  }
  session->last_used = now;
  const std::string id = session->id;
  sessions_.emplace(id, std::move(session));
  return true;
}

std::shared_ptr<McpSession> McpSessionTable::acquire(std::string_view id, SteadyTime now) {
  std::lock_guard lock(mu_);
  expire_locked(now);
  auto it = sessions_.find(id);
  if (it == sessions_.end()) return nullptr;
  ++it->second->in_use;
  it->second->last_used = now;
  return it->second;
}

void McpSessionTable::release(McpSession& session, SteadyTime now) {
  std::lock_guard lock(mu_);
  if (session.in_use > 0) --session.in_use;
  session.last_used = now;
}

bool McpSessionTable::remove(std::string_view id) {
  std::shared_ptr<McpSession> dropped;
  std::lock_guard lock(mu_);
  auto it = sessions_.find(id);
  if (it == sessions_.end()) return false;
  dropped = std::move(it->second);
  sessions_.erase(it);
  return true;
}

void McpSessionTable::clear() {
  std::map<std::string, std::shared_ptr<McpSession>, std::less<>> dropped;
  std::lock_guard lock(mu_);
  dropped.swap(sessions_);
}

size_t McpSessionTable::size() const {
  std::lock_guard lock(mu_);
  return sessions_.size();
}

Result<std::string> new_session_id() {
  std::array<unsigned char, 16> bytes{};
  bool filled = false;
  try {
    std::random_device device;
    for (size_t i = 0; i < bytes.size(); i += 4) {
      const unsigned value = device();
      for (size_t k = 0; k < 4; ++k) bytes[i + k] = static_cast<unsigned char>(value >> (8 * k));
    }
    filled = true;
  } catch (const std::exception&) {
    // Fall back to reading the kernel's pool directly.
  }
  if (!filled) {
    std::FILE* f = std::fopen("/dev/urandom", "rb");
    if (f != nullptr) {
      filled = std::fread(bytes.data(), 1, bytes.size(), f) == bytes.size();
      std::fclose(f);
    }
  }
  if (!filled)
    return Status::Internal("cannot make a session id: no randomness source (std::random_device, /dev/urandom)");
  static constexpr char kHex[] = "0123456789abcdef";
  std::string id;
  id.reserve(32);
  for (unsigned char b : bytes) {
    id.push_back(kHex[b >> 4]);
    id.push_back(kHex[b & 0xf]);
  }
  return id;
}

}  // namespace keel::mcp::detail
