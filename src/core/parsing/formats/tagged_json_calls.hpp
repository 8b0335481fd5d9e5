// Calls written as JSON between an opening and a closing tag, shared by the formats that frame a
// list of {"name", "arguments"} objects that way:
//   <tool_calls>[{"name": ..., "arguments": {...}}, ...]</tool_calls>      (Jamba, Hunyuan A13B)
//   <tool_calls>\n{"name": ...}\n{"name": ...}\n</tool_calls>              (MiniMax-M1)
//   <TOOLCALL>[...]</TOOLCALL>                                            (Nemotron)
//   <|action_start|><|plugin|>{"name": ..., "parameters": {...}}<|action_end|> (InternLM2)
//   <|tools_prefix|>[{"get_weather": {"city": "Paris"}}]<|tools_suffix|>   (Apertus)
// Between the tags stand one or more JSON values (a call object or a list of them), separated by
// whitespace or commas. A missing close tag is accepted only where the reply ends after complete
// JSON; JSON cut off or not closed before the close tag is an error, never completed.
#pragma once

#include <initializer_list>
#include <string_view>

#include "keel/core/tool_call_format.hpp"

namespace keel::detail {

struct TaggedJsonFraming {
  std::string_view open;         // the tag that starts a block
  std::string_view second_open;  // a token that must follow `open` (whitespace between), or ""
  std::string_view close;        // the tag that ends it
  // A body that is not JSON: true, always a broken call (special tokens); false, a broken call only
  // where the tag starts a line, else a mention of the tag in prose.
  bool tokens = false;
  // A body that starts with this belongs to another family sharing the open tag: left alone.
  std::string_view other_body = {};
  // Each call is {"NAME": {arguments}} (Apertus) rather than {"name", "arguments"}.
  bool name_as_key = false;
};

// Reads every block of `framing` in `text` (outside markdown code) into `out`: the calls, the
// first error, and the content (text outside the blocks, trimmed, without the `drop` tokens).
void parse_tagged_json_calls(std::string_view text, const TaggedJsonFraming& framing, FormatResult& out,
                             std::initializer_list<std::string_view> drop = {});

}  // namespace keel::detail
