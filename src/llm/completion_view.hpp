// A non-streamed chat completion read in place, without a JSON document: the usual reply (text,
// reasoning, tool calls with text arguments, usage) costs one validating scan. Anything rarer (an
// error, content parts, whole-object arguments, fractional counts, no choices) is left to the
// document reading in openai_wire, which gives the same reply for every body this one reads.
//
// Thread-safety: a pure function.
#pragma once

#include <optional>
#include <string_view>

#include "keel/model_io.hpp"

namespace keel::detail {

// The reply in `body`, or nothing when the body needs the document reading.
std::optional<ModelReply> read_plain_completion(std::string_view body);

}  // namespace keel::detail
