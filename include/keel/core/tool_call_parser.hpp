// keel/core/tool_call_parser.hpp — finds tool calls written as text by models without native
// tool calling. Replaceable: the agent takes any ToolCallParser.
//
// The default parser understands the prompted text protocol:
//   {"tool": "fs_read", "path": "a.txt"}                       (arguments inline, seed 004)
//   {"name": "fs_read", "arguments": {"path": "a.txt"}}        ("parameters" too; arguments may be a JSON string)
// bare, as an array of such objects, inside ```json fences, or inside <tool_call>...</tool_call>.
// Bare and fenced JSON counts as a call only when it names a registered tool, so prose that shows
// JSON to the user is not executed; inside <tool_call> tags the intent is explicit, so an unknown
// name is still returned (the agent answers it with "unknown tool") and broken JSON is an error.
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
  std::vector<ToolCall> calls;      // in text order; ids left empty (the agent assigns them)
  std::string text;                 // the reply with the call segments removed, trimmed
  std::vector<std::string> errors;  // calls that were clearly intended but unusable, with why
};

class ToolCallParser {
 public:
  virtual ~ToolCallParser() = default;
  virtual ParsedReply parse(std::string_view reply, std::span<const ToolSpec> tools) const = 0;
};

std::unique_ptr<ToolCallParser> make_default_tool_call_parser();

}  // namespace keel
