// tools/script/pattern_cost.hpp — an upper bound on the work Lua's pattern matcher may do.
//
// string.find/match/gmatch/gsub run in C, where the sandbox's hook never fires, and Lua's matcher
// backtracks: "a*a*a*a*b" against a long run of "a" takes time polynomial in the subject length
// with the number of quantifiers as exponent. The sandbox refuses a call whose bound exceeds its
// budget before the matcher runs.
//
// The bound: (n + 1) start positions (1 when the pattern is anchored with '^'), times the number
// of pattern items (one character comparison each), times (n + 1) for
// each '*', '+' or '-' item, each %b balance and each back-reference that is followed by more of
// the pattern, times 2 for each such '?' item. A quantifier at the very end of the pattern only
// extends a match already found, so it adds no factor. n is the subject's length in bytes. The
// bound is coarse but cheap; typical patterns on typical strings are far below any sane budget.
//
// Thread-safety: a pure function.
#pragma once

#include <cstddef>
#include <string_view>

namespace keel::detail {

// Worst-case matcher steps of `pattern` against a subject of `subject_length` bytes. `anchorable`:
// whether a leading '^' anchors the match (find, match, gsub; not gmatch).
double pattern_cost(std::string_view pattern, size_t subject_length, bool anchorable);

// Worst-case steps of a plain (no pattern) search for a `needle_length`-byte needle: a byte-wise
// comparison at each start position, counted as one step per 16 bytes (memcmp compares words).
double plain_find_cost(size_t subject_length, size_t needle_length);

}  // namespace keel::detail
