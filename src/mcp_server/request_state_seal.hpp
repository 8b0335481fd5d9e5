// mcp_server/request_state_seal.hpp — the requestState keel's server hands out when a call in the
// 2026-07-28 revision needs the client's input first (an approval, say). The state comes back
// through the client, so it is sealed: an HMAC-SHA256 under a key made at server start binds it
// to the request it answers (method, tool and arguments) and to an expiry. A state that fails the
// check is treated as absent, so the client is asked again; nothing is trusted from it.
//
// Thread-safety: immutable after construction.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

namespace keel::mcp {

// HMAC-SHA256 (RFC 2104) of `message` under `key`, as 64 lowercase hex digits.
std::string hmac_sha256_hex(std::string_view key, std::string_view message);

class RequestStateSeal {
 public:
  RequestStateSeal();  // a fresh random key
  explicit RequestStateSeal(std::string key) : key_(std::move(key)) {}

  // The state for a request described by `binding`, valid until `expires_ms` (Unix ms).
  std::string seal(std::string_view binding, int64_t expires_ms) const;
  // True when `state` is one seal() gave for the same `binding` and it has not expired at `now_ms`.
  bool verify(std::string_view state, std::string_view binding, int64_t now_ms) const;

 private:
  std::string key_;
};

}  // namespace keel::mcp
