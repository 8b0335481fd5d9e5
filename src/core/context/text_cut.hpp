// UTF-8-aware text shortening shared by the digests and the summary request.
//
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "core/text/utf8_text.hpp"  // utf8_prefix_bytes

namespace keel::detail {

// `s` when it has at most `max_chars` code points; otherwise its start cut at the last space
// within the limit (when that keeps at least half of it, else at a code-point boundary), trailing
// spaces removed, followed by "…".
std::string cut_at_word(std::string_view s, size_t max_chars);

// The first line of `s` that holds more than whitespace; empty when there is none.
std::string_view first_nonempty_line(std::string_view s);

}  // namespace keel::detail
