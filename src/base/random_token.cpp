// Random hex from the kernel; see random_token.hpp.
#include "base/random_token.hpp"

#include <sys/random.h>

#include <cerrno>
#include <random>
#include <vector>

namespace keel::detail {

std::string random_hex(size_t bytes) {
  std::vector<unsigned char> raw(bytes);
  size_t got = 0;
  while (got < raw.size()) {
    const ssize_t n = ::getrandom(raw.data() + got, raw.size() - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  if (got < raw.size()) {
    std::random_device device;
    for (; got < raw.size(); ++got) raw[got] = static_cast<unsigned char>(device());
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * raw.size());
  for (unsigned char b : raw) {
    out.push_back(kHex[b >> 4]);
    out.push_back(kHex[b & 0xF]);
  }
  return out;
}

}  // namespace keel::detail
