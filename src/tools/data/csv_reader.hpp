// tools/data/csv_reader.hpp — reading CSV text (RFC 4180 and the dialects seen in practice) and
// typing its fields.
//
// Records end at "\r\n", "\n" or a lone "\r". A field that starts with '"' is quoted: it may hold
// delimiters and line breaks, and "" inside it is one '"'; characters between its closing quote
// and the next delimiter are kept (lenient). A '"' inside an unquoted field is literal. A UTF-8
// byte order mark at the start is skipped; blank lines (nothing but spaces or tabs) are skipped. A quoted field that is never
// closed is an error naming the line it starts on.
//
// Field typing (csv_field_value), for unquoted fields only — a quoted field is always a string:
//   empty                                   → null (a quoted empty field "" is the string "")
//   true / false (any case)                 → boolean
//   -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?, after trimming spaces and tabs
//                                           → number: integer when there is no fraction or
//                                             exponent and it fits int64, else float
//   anything else (007, +5, .5, 1., 1,5, 1 000, 12345678901234567890) → the text unchanged
//
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "keel/result.hpp"

namespace keel::detail {

struct CsvField {
  std::string text;
  bool quoted = false;
};

struct CsvRecord {
  std::vector<CsvField> fields;
  size_t line = 0;  // 1-based line on which the record starts
};

// Reads records of `text` split by `delimiter`; at most `max_records` when that is non-zero (the
// rest of the text is not looked at then).
Result<std::vector<CsvRecord>> read_csv_records(std::string_view text, char delimiter, size_t max_records = 0);

// The delimiter among ',', ';', '\t' and '|' that splits the first records most consistently into
// two or more fields (ties: more fields, then that order); ',' when none does.
char detect_csv_delimiter(std::string_view text);

// The typed JSON value of a field (rules above).
nlohmann::json csv_field_value(const CsvField& field);

}  // namespace keel::detail
