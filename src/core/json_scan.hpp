// Strict JSON validation without building a document. It accepts exactly what nlohmann::json::parse
// accepts (RFC 8259 values; strings with the JSON escapes, \u surrogate pairs and well-formed
// UTF-8; numbers whose value fits a double; a leading UTF-8 byte-order mark; a NUL byte after the
// value, which nlohmann reads as the end of the text), refusing nesting deeper than
// kLenientJsonMaxDepth. Model output is mostly valid JSON: validating it in place lets the parser
// keep the text as it is instead of building and serialising a DOM. Linear, no allocation.
#pragma once

#include <cstddef>
#include <string_view>

namespace keel::detail {

// Deepest nesting of arrays/objects accepted (deeper input is an error, never a stack overflow).
inline constexpr std::size_t kLenientJsonMaxDepth = 512;

// The span [begin, end) of the value inside the text that scan_strict_json() validated.
struct StrictJson {
  bool ok = false;
  std::size_t begin = 0;
  std::size_t end = 0;
};

// Validates the single JSON value that makes up `text` (whitespace around it allowed).
StrictJson scan_strict_json(std::string_view text);

// Validates the JSON value that starts at text[pos] (whitespace before it skipped); returns its
// end, or npos when no valid value starts there. Text after the value is not looked at.
std::size_t scan_json_value(std::string_view text, std::size_t pos);

// Whether `number` (a JSON number token, already validated) is an integer as nlohmann reads it:
// no fraction or exponent, and within int64 (negative) or uint64 (otherwise).
bool json_number_is_integer(std::string_view number);

}  // namespace keel::detail
