// Reasoning between a family's own tags (<seed:think>...</seed:think>, <mm:think>...</mm:think>),
// which the universal parser's <think> split does not know: the formats of those families split
// it off themselves, so that call syntax written while thinking is never taken as a call.
#pragma once

#include <string>
#include <string_view>

#include "keel/core/tool_call_format.hpp"

namespace keel::detail {

struct ReasoningTags {
  std::string_view open;   // "<seed:think>"
  std::string_view close;  // "</seed:think>"
};

// Appends the reasoning of `text` to out.reasoning (one line per block) and the rest to `visible`.
// A close tag before any open tag ends reasoning the prompt opened; a reply that ends inside a
// block is reasoning to its end. Linear.
void split_tagged_reasoning(std::string_view text, const ReasoningTags& tags, std::string& visible, FormatResult& out);

}  // namespace keel::detail
