// The per-result size budget (the context-limit guard of this layer).
#pragma once

#include <cstddef>
#include <string>

namespace keel::detail {

// Cuts `content` to at most `budget` bytes (plus a note) at the last line break, else sentence
// end, else space in the final half of the budget, never inside a UTF-8 sequence, and appends
// "[result truncated — original size: N chars]". Returns whether it cut. budget 0: no limit.
bool apply_result_budget(std::string& content, size_t budget);

}  // namespace keel::detail
