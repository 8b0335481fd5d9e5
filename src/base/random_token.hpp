// base/random_token.hpp — secrets and ids nobody can guess: bytes from the kernel's random source
// (getrandom(2)), as lowercase hex. Every random id of keel (sessions, runs, skill proposals) and
// the server token come from here.
//
// Thread-safety: free function without shared state; each call reads the kernel afresh, so ids
// stay distinct across fork().
#pragma once

#include <cstddef>
#include <string>

namespace keel::detail {

// `bytes` random bytes as 2*bytes lowercase hex digits (16 bytes: 128 bits). Should getrandom fail
// (a kernel without it), std::random_device fills in.
std::string random_hex(size_t bytes);

}  // namespace keel::detail
