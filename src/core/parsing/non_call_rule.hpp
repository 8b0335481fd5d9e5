// What is not a call: the rule the universal parser applies after a format has read calls.
//
// Call syntax is a call only where the reply acts. A reply that shows call syntax — to explain a
// format, to document a tool, to quote a log — is content, whatever family's syntax it shows.
// The formats already leave markdown code and prose mentions alone; this rule covers what holds
// for every format, and runs only when a format has read calls or reported a broken one:
//
//  1. Examples. Call syntax inside an example region is content. The regions are
//     a. a fenced code block (``` or ~~~ starting a line, to the closing fence of the same
//        character and at least the same length, or to the end of the text) whose info string
//        names a programming language, a shell, or a console, log, text or output listing
//        (kExampleLanguages in non_call_rule.cpp). A fence with no info string, json, tool_call,
//        tool_code, xml or any other tag is left to the formats: calls may stand in it;
//     b. a block quote: consecutive lines starting (after at most three spaces) with '>' followed
//        by a blank or the end of the line (Functionary's ">>>name" is not a quote);
//     c. a log excerpt: consecutive lines that each start with a log prefix — a timestamp
//        (YYYY-MM-DD or YYYY/MM/DD followed by 'T' or ' ' and HH:MM, or HH:MM:SS; bare or in
//        [brackets]), a level (TRACE, DEBUG, INFO, WARN, WARNING, ERROR, FATAL, CRITICAL) followed
//        by ':', ']', '|' or a blank, or in [brackets], or "time=" / "level=".
//     The reply is read again as if the regions held no text. When a call read that way would
//     contain part of a region (a fenced script inside a call's argument), the regions belong to
//     the call and the reply is read as written.
//  2. Placeholders. A call shows a form, not values, when a string value anywhere in its
//     arguments is entirely a template placeholder: <NAME> (a letter, then letters, digits, '_',
//     '-', '.', ' '), {name} or {{name}} (an identifier), [NAME] (an upper-case identifier), an
//     identifier starting with "your_" or "your-" in any case (YOUR_API_KEY), or an ellipsis
//     ("...", "…"). A failed call whose text holds an unquoted <name> where a JSON value goes
//     (right after ':', '[' or ','; {"name": <function-name>, "arguments": <args-json-object>})
//     shows a form too, when the reply has text besides it.
//     - When every call of the reply shows a form and the reply has text besides the calls, the
//       reply is documentation: no calls, the whole text is content, the format is "none".
//     - Otherwise (nothing but the call, or real calls beside it) the call was meant and left
//       unfilled: an error naming the argument and the placeholder's offset.
//  3. Unmarked formats. Syntax without a marker of intent — bare JSON (format json), a bare
//     pythonic list (pythonic without <|python_start|>), Llama 3's bare {"name", "parameters"}
//     (llama3 without <|python_tag|>) — is a call only when every name is a registered tool.
//     The formats hold to this; the universal parser checks it again and reads any other such
//     text as content.
//
// Everything here is linear in the text and runs only on replies a format has read calls from (or
// a broken call). Rule 1 first looks at the visible text the format kept: a region that holds a
// call opens outside the call (its fence line, quote marker or log prefix), so a reply whose
// visible text opens none is not scanned further.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "keel/message.hpp"
#include "keel/tool_spec.hpp"

namespace keel::detail {

// A byte range [begin, end) of the text.
struct TextRegion {
  size_t begin = 0;
  size_t end = 0;
};

// The example regions of rule 1, in text order, not overlapping.
std::vector<TextRegion> example_regions(std::string_view text);

// Whether `text` holds a byte that may open a region (a fence or quote character, a bracket, a
// digit, two capitals, time= or level=): false means example_regions() finds none. Cheap.
bool may_open_region(std::string_view text);

// The byte that stands for region text in the masked reply; never part of call syntax.
inline constexpr char kMaskByte = '\x1A';

// `text` with every byte of `regions` but line breaks replaced by kMaskByte (same length, so
// offsets in messages stay true).
std::string mask_regions(std::string_view text, std::span<const TextRegion> regions);

// Whether `s` holds a masked byte, raw or JSON-escaped.
bool holds_mask(std::string_view s);

// Puts the text of `regions` back into `content`, the visible text read from the masked reply.
// False when a region's masked bytes are not all in `content`, in order (a format cut into it).
bool unmask_content(std::string& content, std::string_view text, std::span<const TextRegion> regions);

// Whether a string value is entirely a template placeholder (rule 2).
bool is_placeholder(std::string_view value);

// Whether some string in `arguments` (a JSON object's text) starts like a placeholder: false
// means placeholder_argument() finds none. Cheap.
bool may_hold_placeholder(std::string_view arguments);

// The first placeholder among the string values of `arguments` (a JSON object's text), with the
// member key that holds it (the innermost object key); nullopt when there is none.
struct PlaceholderArgument {
  std::string key;
  std::string value;
};
std::optional<PlaceholderArgument> placeholder_argument(std::string_view arguments);

// The offset of the first <name> placeholder in `text` that stands where a JSON value goes
// (right after ':', '[' or ',', blanks aside; not a MiniMax-M3 tag after its delimiter); npos
// when none.
size_t unquoted_placeholder(std::string_view text);

// Rule 3: whether `format` may read calls without a marker of intent (json, pythonic, llama3).
inline bool unmarked_format(std::string_view format) {
  return format == "json" || format == "pythonic" || format == "llama3";
}

// Rule 3: whether format `format` read `text` without its marker of intent.
bool unmarked_reading(std::string_view format, std::string_view text);

// Whether every call names a registered tool.
bool all_registered(std::span<const ToolCall> calls, std::span<const ToolSpec> tools);

}  // namespace keel::detail
