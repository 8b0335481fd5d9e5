// SHA-256 (FIPS 180-4), incremental: model downloads are hashed while they stream to disk, so a
// multi-gigabyte file is checked without being read twice.
//
//   detail::Sha256 h;
//   h.update("ab");
//   h.update("c");
//   std::string hex = h.hex_digest();  // "ba7816bf..."
//
// Thread-safety: a Sha256 is a value; one thread at a time.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace keel::detail {

class Sha256 {
 public:
  Sha256() { reset(); }

  // Starts over, as if newly constructed.
  void reset();
  // Adds bytes to the message.
  void update(std::string_view bytes);
  void update(const void* data, size_t size);
  // Finishes the message and returns the 32-byte digest. The object must be reset() before reuse.
  std::array<uint8_t, 32> digest();
  // digest() as 64 lowercase hex characters.
  std::string hex_digest();

 private:
  void compress(const uint8_t* block);

  std::array<uint32_t, 8> state_{};
  std::array<uint8_t, 64> block_{};
  size_t block_used_ = 0;
  uint64_t total_bytes_ = 0;
};

// The SHA-256 of `bytes` as lowercase hex.
std::string sha256_hex(std::string_view bytes);

// True when `text` is exactly 64 hex digits (either case).
bool is_sha256_hex(std::string_view text);

}  // namespace keel::detail
