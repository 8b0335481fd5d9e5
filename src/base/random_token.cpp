// Random tokens from the kernel; see random_token.hpp.
#include "base/random_token.hpp"

#include <sys/random.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace keel::detail {

Result<std::string> random_hex_token(size_t bytes) {
  std::vector<unsigned char> raw(bytes);
  size_t got = 0;
  while (got < raw.size()) {
    const ssize_t n = ::getrandom(raw.data() + got, raw.size() - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return Status::Unavailable(std::string("cannot read the kernel's random source: ") + std::strerror(errno));
    got += static_cast<size_t>(n);
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string token;
  token.reserve(2 * raw.size());
  for (unsigned char b : raw) {
    token.push_back(kHex[b >> 4]);
    token.push_back(kHex[b & 0xF]);
  }
  return token;
}

}  // namespace keel::detail
