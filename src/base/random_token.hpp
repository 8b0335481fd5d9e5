// base/random_token.hpp — secrets and ids nobody can guess: bytes from the kernel's random source
// (getrandom(2)), as lowercase hex.
//
// Thread-safety: free function without shared state.
#pragma once

#include <cstddef>
#include <string>

#include "keel/result.hpp"

namespace keel::detail {

// `bytes` random bytes as 2*bytes lowercase hex digits. Unavailable when the kernel's source
// cannot be read.
Result<std::string> random_hex_token(size_t bytes = 32);

}  // namespace keel::detail
