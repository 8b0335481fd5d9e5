// server/bearer_token.hpp — the secret a keel server's clients present, read from the
// Authorization header and compared in constant time (base/random_token.hpp makes one).
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>

namespace keel::server {

// True when `given` equals `expected` (non-empty). Every byte of `expected` is looked at whatever
// `given` holds, so the time taken does not tell how long a prefix of a guess was right.
bool same_secret(std::string_view given, std::string_view expected);

// The token of an "Authorization: Bearer <token>" value (scheme in any case, spaces trimmed);
// "" when the value is not a bearer credential.
std::string_view bearer_credential(std::string_view authorization);

}  // namespace keel::server
