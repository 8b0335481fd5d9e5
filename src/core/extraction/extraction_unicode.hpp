// Private code-point helpers of the extraction guard: the normalization tables
// (composition, case folding, whitespace, quotes and dashes) and a table-free character
// classification good enough to find token boundaries. No ICU: each function says what it covers.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "core/text/utf8_text.hpp"  // decode_utf8, decode_utf8_before, kReplacementChar

namespace keel::detail {

// The whitespace normalization collapses (see normalize_for_matching).
bool is_unicode_space(char32_t cp);
// Invisible characters normalization removes: soft hyphen, zero-width space/joiners, word joiner, BOM.
bool is_ignorable(char32_t cp);
// Typographic quotes and dashes as their ASCII counterparts; any other code point unchanged.
char32_t ascii_punctuation(char32_t cp);
// U+0300-U+036F (the combining diacritical marks block).
bool is_combining_mark(char32_t cp);
// The precomposed letter for `base` followed by `mark` (Latin-1 Supplement, Latin Extended-A,
// Greek, basic Cyrillic), or 0 when the pair has none there.
char32_t compose_pair(char32_t base, char32_t mark);
// Appends the case folding of `cp` (see normalize_for_matching) to `out` as UTF-8.
void append_case_folded(std::string& out, char32_t cp);

// Approximate classes without Unicode tables: a non-ASCII code point counts as a letter unless it
// lies in a known block or range of punctuation, symbols, digits, marks, spaces or private use.
bool is_letter(char32_t cp);
// Letters, decimal digits (ASCII and a few common non-ASCII sets), combining marks and '_'.
bool is_word_char(char32_t cp);
// Scripts written without spaces between words: Han, Hiragana, Katakana, Bopomofo, Thai, Lao,
// Khmer, Myanmar.
bool is_unspaced_script(char32_t cp);

}  // namespace keel::detail
