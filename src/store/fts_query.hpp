// store/fts_query.hpp — turns free text (from a user or a model) into a safe FTS5 query.
//
// FTS5 has its own query language (AND, OR, NOT, NEAR, quotes, parentheses, column filters,
// '*', '^'); handing it raw text makes `what's "x" AND (` a syntax error. Instead every
// whitespace-separated word becomes a quoted phrase (inner quotes doubled) and the phrases are
// joined with OR, so operators are just words and bm25 ranks notes matching more words higher.
//
// Thread-safety: pure function.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace keel::detail {

// `"what's" OR """x""" OR "AND" OR "("`; empty when `text` has no words. At most `max_terms`
// distinct words are kept (the first ones).
std::string fts5_match_any(std::string_view text, size_t max_terms = 32);

// The same for PostgreSQL's to_tsquery: each run of letters and digits (bytes >= 0x80 count as
// letters, so words in any script stay whole) becomes a quoted term, terms joined with '|'; every
// other character only separates terms, so no text can be query syntax. `'what' | 's' | 'x'`.
std::string tsquery_match_any(std::string_view text, size_t max_terms = 32);

}  // namespace keel::detail
