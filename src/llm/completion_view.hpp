// A non-streamed chat completion read in place, without a JSON document: the usual reply (text,
// reasoning, tool calls with text arguments, usage) costs one validating scan. Anything rarer (an
// error, content parts, whole-object arguments, fractional counts, no choices) is left to the
// document reading in openai_wire, which gives the same reply for every body this one reads.
//
// Thread-safety: a pure function.
#pragma once

#include <optional>
#include <string_view>

#include "core/parsing/json/json_view.hpp"
#include "keel/model_io.hpp"

namespace keel::detail {

// The reply in `body`, or nothing when the body needs the document reading.
std::optional<ModelReply> read_plain_completion(std::string_view body);

// Parts that a streamed chunk has too (the stream assembler reads them with these):
// Whether the counts of a usage object are integers, which read_usage_counts() reads as the
// document reading does.
bool plain_usage(const JsonView& usage);
// Sets `out`'s prompt and completion tokens from the numbers `usage` holds (a count it lacks is
// left as it was) and its cached prompt tokens (0 without).
void read_usage_counts(const JsonView& usage, Usage& out);
// Whether a tool call's function arguments are text or missing (whole objects go through the
// document reading).
bool text_arguments(const JsonView& call);

}  // namespace keel::detail
