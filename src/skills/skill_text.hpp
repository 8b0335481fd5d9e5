// Small text helpers of the skills layer.
//
// Thread-safety: pure functions.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>

namespace keel::detail {

// The parts joined without separators. (Appending avoids GCC 12's false -Warray-bounds warnings on
// chains of std::string operator+ with short literals.)
inline std::string concat(std::initializer_list<std::string_view> parts) {
  size_t n = 0;
  for (std::string_view p : parts) n += p.size();
  std::string out;
  out.reserve(n);
  for (std::string_view p : parts) out.append(p);
  return out;
}

}  // namespace keel::detail
