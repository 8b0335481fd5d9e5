// Base64 (RFC 4648 §4) and its URL-safe alphabet without padding (§5): binary resources over MCP,
// PKCE code challenges and HTTP Basic credentials.
//
//   base64_encode("hi")             // "aGk="
//   base64url_encode(sha256_bytes)  // no '+', '/' or '='
//
// Thread-safety: pure functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace keel::detail {

std::string base64_encode(std::string_view bytes);
std::string base64url_encode(std::string_view bytes);
// The bytes of standard Base64 text (padding required, no whitespace); nullopt when `text` is not
// Base64: MCP's `=?base64?...?=` header values.
std::optional<std::string> base64_decode(std::string_view text);

// Percent-encodes every byte of `text` but RFC 3986's unreserved characters (A-Z a-z 0-9 - . _ ~)
// and those in `keep` (e.g. "/" for a path): form bodies, query strings, file URIs.
std::string percent_encode(std::string_view text, std::string_view keep = "");

}  // namespace keel::detail
