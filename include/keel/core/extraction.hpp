// keel/core/extraction.hpp — the extraction guard: extracted values must be real and in the text.
//
// The built-in `extract` skill asks a model for the email addresses, URLs, dates or named entities
// in a text. A model can return values that look right but are not in the text (seed 004: for
// "Contact us anytime" it answers {"email": ["contact@example.com"]}). check_extraction() rejects
// such output: every value must pass its target's type check and appear in the source text, as a
// whole token, after both are normalized the same way (normalize_for_matching below).
//
//   KEEL_ASSIGN_OR_RETURN(auto target, keel::parse_extraction_target("email"));
//   keel::Status s = keel::check_extraction(output, target, source_text);
//   // !s.ok(): s.message() is "HallucinationDetected: 'contact@example.com' not found in ..."
//
// Pure functions: no I/O, no locale; linear in the size of the source text for each checked value.
// Thread-safety: pure functions, safe from any thread.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "keel/result.hpp"

namespace keel {

// What an extraction looks for.
enum class ExtractionTarget {
  kEmail,   // email addresses (addr-spec: local@domain.tld)
  kUrl,     // http, https and ftp URLs, and bare www.host.tld
  kDate,    // calendar dates and ISO 8601 date-times
  kEntity,  // named entities: people, places, organisations, products (needs a model)
};

// "email", "url", "date", "entity" — also the key of the extraction output.
std::string_view extraction_target_name(ExtractionTarget target);
// The target spelled `name` (exactly, lowercase). Unknown: kInvalidArgument listing the four.
Result<ExtractionTarget> parse_extraction_target(std::string_view name);

// The text both sides of a match are reduced to. In this order, per code point:
//  1. UTF-8 is decoded; each byte that does not start a valid sequence (stray continuation bytes,
//     truncated, overlong or surrogate encodings, values above U+10FFFF) becomes U+FFFD.
//  2. Removed: U+00AD soft hyphen, U+200B-U+200D zero-width space/non-joiner/joiner, U+2060 word
//     joiner, U+FEFF zero-width no-break space (BOM).
//  3. Whitespace — tab, LF, VT, FF, CR, space, U+0085, U+00A0 (NBSP), U+1680, U+2000-U+200A,
//     U+2028, U+2029, U+202F, U+205F, U+3000 — runs become one ASCII space; leading and trailing
//     whitespace is dropped.
//  4. Quotes and dashes become ASCII: U+2018, U+2019, U+201A, U+201B, U+2032 → ' ; U+201C, U+201D,
//     U+201E, U+201F, U+2033 → " ; U+2010-U+2015 and U+2212 (minus) → - .
//  5. Canonical composition (NFC) of a letter followed by combining marks, where the result is in
//     Latin-1 Supplement, Latin Extended-A, Greek (U+0386-U+03CE) or basic Cyrillic (U+0400-U+045F):
//     e + U+0301 → é, Z + U+030C → Ž, и + U+0306 → й, ι + U+0308 + U+0301 → ΐ. Other combining marks
//     are kept as they are (so a decomposed letter outside these blocks still matches only itself).
//  6. Case folding: A-Z; Latin-1 À-Þ (not ×); the Latin Extended-A pairs (İ → i, ſ → s, Ÿ → ÿ);
//     µ → μ; ß and ẞ → ss; Greek Ά-Ϋ (final ς → σ); Cyrillic Ѐ-Я.
// Nothing else changes: other scripts, digits, punctuation and symbols pass through unchanged, and
// the output is valid UTF-8. Linear in the input size.
std::string normalize_for_matching(std::string_view text);

// Type checks of single values (the value is first trimmed of the whitespace listed above).
// Email: dot-atom local part (letters, digits, !#$%&'*+/=?^_`{|}~- and non-ASCII; dots not first,
//   last or doubled; at most 64 bytes) @ a domain of at least two dot-separated labels (letters,
//   digits, hyphens not at a label's ends, non-ASCII; at most 63 bytes each) whose last label has
//   a letter; at most 254 bytes; no spaces, no quoted local parts, no [address literals].
bool is_valid_email(std::string_view value);
// URL: http://, https:// or ftp:// (any case) with a host (a name, an IPv4 address or [IPv6]),
//   an optional :port (at most 65535) and a path, query or fragment without spaces, control
//   characters or <>"{}|\^`; or a bare www.host.tld (three labels or more) with the same rest.
bool is_valid_url(std::string_view value);
// Date: a real Gregorian calendar date (Feb 29 only in leap years, years 1-9999) written as
//   ISO 8601 "2024-03-04" (or "2024-3-4"), optionally with a time "T10:30", "T10:30:15.5Z",
//   " 10:30+02:00", "T10:30-0700"; "2024/03/04", "2024.03.04"; numeric "03/04/2024", "3/4/24",
//   "03-04-2024", "03.04.2024" (day/month or month/day: one reading must be real; a two-digit year
//   is 20YY and not allowed with dots, so version numbers are not dates); written "March 3, 2024",
//   "Mar. 3rd 2024", "Sunday, March 3, 2024", "3 March 2024", "3rd of March, 2024", and the same
//   without a year ("March 3"; then February 29 counts as real). No weekday is checked.
//   Month and weekday names are English, full or three-letter (and "Sept"), in any case; the words
//   of a written date are separated by one to four whitespace characters.
bool is_valid_date(std::string_view value);
// Entity: non-empty after trimming, at most 200 code points, with at least one letter (ASCII or a
//   non-ASCII letter of the Latin, Greek, Cyrillic, or other alphabetic and ideographic scripts).
bool is_valid_entity(std::string_view value);
// The check for `target`.
bool is_valid_extraction_value(ExtractionTarget target, std::string_view value);

// The anti-hallucination guard. Ok when `output` is an object with exactly one key, the target's
// name, whose value is an array of strings (empty = nothing found), and every string
//  - passes the target's type check once normalized (so "2024–03–04" with en dashes is a date and
//    an invisible soft hyphen does not break an address), else kInvalidArgument
//      "InvalidValue: 'x' is not a valid email address. ..."
//  - occurs in `source` after normalize_for_matching() of both, as a whole token: the characters
//    next to the occurrence must not continue it (for email and url, email/url characters; for
//    date and entity, letters and digits; "hello@agent.r" is not found in "hello@agent.rs").
//    Sentence punctuation after an email (".") or a URL (".,;:!?") is passed over when nothing of
//    the token follows it, and a date may be followed by "T" and a time (the date of a date-time).
//    Else kInvalidArgument "HallucinationDetected: 'contact@example.com' not found in source text. ..."
// Scripts written without spaces (Han, Hiragana, Katakana, Thai, Lao, Khmer, Myanmar) have no
// visible word ends, so a match edge next to one of their characters always counts as a boundary:
// "東京" is found in "東京都に住む", as it is a substring there.
// A wrong shape (not an object, another or an extra key, a single string instead of an array, a
// non-string element) is kInvalidArgument naming what was expected. Several offending values are
// all named (the first 8, then a count), each cut to 80 bytes.
Status check_extraction(const nlohmann::json& output, ExtractionTarget target, std::string_view source);

// A deterministic extractor for email, url and date: the values found in `text`, each copied
// verbatim (so it passes check_extraction), in order of first appearance; a value equal to an
// earlier one after normalization is left out.
// URLs lose trailing sentence punctuation (".,;:!?'" and a ")" without its "("); emails in
// <angle brackets> lose the brackets. Entity: kFailedPrecondition (a model is needed).
Result<std::vector<std::string>> find_extraction_candidates(ExtractionTarget target, std::string_view text);

}  // namespace keel
