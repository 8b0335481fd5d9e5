// Private pieces shared by the extraction files: trimming, the date grammar (used both to check a
// value and to find dates in text) and the per-target token classes of the boundary check.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "keel/core/extraction.hpp"

namespace keel::detail {

// ASCII character classes of the extraction files (a non-ASCII byte or code point is in none).
constexpr bool is_ascii_digit(char32_t c) { return c >= '0' && c <= '9'; }
constexpr bool is_ascii_alpha(char32_t c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
constexpr bool is_ascii_alnum(char32_t c) { return is_ascii_digit(c) || is_ascii_alpha(c); }

// normalize_for_matching()'s output with, for each of its bytes, the input bytes it came from:
// input[from[i], to[i]) (a letter together with the marks composed into it).
struct MappedText {
  std::string text;
  std::vector<uint32_t> from;
  std::vector<uint32_t> to;
};
// Precondition: input.size() < 2^32.
MappedText normalize_mapped(std::string_view input);

// `s` without the leading and trailing whitespace normalize_for_matching() collapses. Invalid
// UTF-8 is kept (it is not whitespace).
std::string_view trim_unicode_space(std::string_view s);

// The length of the longest date (as is_valid_date() describes) that starts at text[pos]; 0 when
// none does. Reads a bounded number of bytes, so scanning a text with it stays linear.
size_t match_date(std::string_view text, size_t pos);

// Whether `cp` belongs to a value of `target` written next to it, so that a match ending or
// starting beside it is only part of a longer token: email characters for email, anything but
// spaces, quotes, brackets and <> for url, letters and digits (word characters) for date and entity.
bool continues_token(ExtractionTarget target, char32_t cp);
// Whether the occurrence text[begin, end) of `value` stands as a whole token of `target`: the
// guard's boundary rule. Both are normalized; `value` is not empty.
bool whole_token(std::string_view text, size_t begin, size_t end, std::string_view value, ExtractionTarget target);

// Punctuation that may follow a value at the end of a sentence or a parenthesis without belonging
// to it ("see https://a.b/c." or "mail a@b.rs."): checked past, to the character after it.
bool is_trailing_punctuation(ExtractionTarget target, char32_t cp);

}  // namespace keel::detail
