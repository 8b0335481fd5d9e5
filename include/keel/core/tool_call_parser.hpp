// keel/core/tool_call_parser.hpp — finds tool calls that a model wrote as text (models without
// native tool calling, or that print calls instead of using it). Replaceable: the agent takes any
// ToolCallParser.
//
// The default parser is the universal one (keel/core/universal_parser.hpp): it separates
// reasoning, recognises every supported model family's call syntax, repairs small-model JSON
// (listing each fix), and reports calls that were cut off or broken instead of guessing. JSON
// that names no registered tool stays prose.
//
// Thread-safety: parse() is const and safe to call concurrently.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "keel/message.hpp"
#include "keel/tool_spec.hpp"

namespace keel {

struct ParsedReply {
  std::vector<ToolCall> calls;        // in text order; ids empty unless the format carries them
  std::string text;                   // the reply with the call segments (and reasoning) removed, trimmed
  std::vector<std::string> errors;    // calls that were clearly intended but unusable, with why
  std::string format;                 // the format that matched ("none" when no call syntax was found)
  std::string reasoning;              // reasoning separated from the visible text
  std::vector<std::string> repairs;   // fixes applied to recover the calls
};

class ToolCallParser {
 public:
  virtual ~ToolCallParser() = default;
  virtual ParsedReply parse(std::string_view reply, std::span<const ToolSpec> tools) const = 0;
};

// The universal parser with format auto-detection.
std::unique_ptr<ToolCallParser> make_default_tool_call_parser();
// One default parser shared by everything that uses it (it is immutable): building its marker
// tables for every format costs more than parsing a reply, so an agent run does not build its own.
std::shared_ptr<const ToolCallParser> shared_default_tool_call_parser();

}  // namespace keel
