// Percent-decoding (RFC 3986 escapes), shared by the HTTP server's request targets and the
// OTEL_* variables' key=value lists.
//
//   percent_decode("a%20b", false)  // "a b"
//   percent_decode("a+b", true)     // "a b" (query strings)
//
// Thread-safety: a pure function.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace keel::detail {

// Percent-decodes `text` ('+' becomes a space when `plus_is_space`). nullopt for a bad escape
// ("%zz", a cut "%4") or an escaped NUL.
std::optional<std::string> percent_decode(std::string_view text, bool plus_is_space);

}  // namespace keel::detail
