// HMAC-SHA256 (RFC 2104) sealed requestState; see request_state_seal.hpp.
#include "mcp_server/request_state_seal.hpp"

#include <array>
#include <charconv>

#include "base/random_token.hpp"
#include "llm/sha256.hpp"

namespace keel::mcp {

namespace {

constexpr std::string_view kSealPrefix = "keel1.";

// Constant-time comparison: a mismatch position must not show in the time taken.
bool same_text(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

}  // namespace

RequestStateSeal::RequestStateSeal() : key_(keel::detail::random_hex(32)) {}

std::string hmac_sha256_hex(std::string_view key, std::string_view message) {
  constexpr size_t kBlock = 64;
  std::array<uint8_t, kBlock> padded{};
  if (key.size() > kBlock) {
    keel::detail::Sha256 long_key;
    long_key.update(key);
    std::array<uint8_t, 32> hashed = long_key.digest();
    for (size_t i = 0; i < hashed.size(); ++i) padded[i] = hashed[i];
  } else {
    for (size_t i = 0; i < key.size(); ++i) padded[i] = static_cast<uint8_t>(key[i]);
  }
  std::array<uint8_t, kBlock> inner_pad{};
  std::array<uint8_t, kBlock> outer_pad{};
  for (size_t i = 0; i < kBlock; ++i) {
    inner_pad[i] = padded[i] ^ 0x36;
    outer_pad[i] = padded[i] ^ 0x5c;
  }
  keel::detail::Sha256 inner;
  inner.update(inner_pad.data(), inner_pad.size());
  inner.update(message);
  std::array<uint8_t, 32> inner_digest = inner.digest();
  keel::detail::Sha256 outer;
  outer.update(outer_pad.data(), outer_pad.size());
  outer.update(inner_digest.data(), inner_digest.size());
  return outer.hex_digest();
}

std::string RequestStateSeal::seal(std::string_view binding, int64_t expires_ms) const {
  std::string expires = std::to_string(expires_ms);
  std::string message(expires);
  message.append("\n").append(binding);
  std::string state(kSealPrefix);
  state.append(expires).append(".").append(hmac_sha256_hex(key_, message));
  return state;
}

bool RequestStateSeal::verify(std::string_view state, std::string_view binding, int64_t now_ms) const {
  if (state.substr(0, kSealPrefix.size()) != kSealPrefix) return false;
  state.remove_prefix(kSealPrefix.size());
  const size_t dot = state.find('.');
  if (dot == std::string_view::npos) return false;
  std::string_view expires = state.substr(0, dot);
  int64_t expires_ms = 0;
  auto [end, ec] = std::from_chars(expires.data(), expires.data() + expires.size(), expires_ms);
  if (ec != std::errc() || end != expires.data() + expires.size() || expires_ms < now_ms) return false;
  std::string message(expires);
  message.append("\n").append(binding);
  return same_text(state.substr(dot + 1), hmac_sha256_hex(key_, message));
}

}  // namespace keel::mcp
