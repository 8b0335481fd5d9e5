// The text of json_codec's forms (keel/core/json_codec.hpp), written without a document: what the
// HostedMachine sends a host at every step. The document functions there parse this text, so each
// form has one writer.
//
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>

#include "core/parsing/json/json_text.hpp"
#include "keel/core/decision.hpp"
#include "keel/message.hpp"
#include "keel/model_io.hpp"
#include "keel/tool_spec.hpp"

namespace keel::detail {

// chat_message_to_json's text.
void append_message_json(std::string& out, const Message& message);
// {"arguments","id","name"}.
void append_tool_call_json(std::string& out, const ToolCall& call);
// tools_to_json's text.
std::string tools_json_text(std::span<const ToolSpec> tools);
// model_request_to_json's text; `tools_text` is tools_json_text(request.tools) (a caller that sends
// the same tools again keeps it) and is ignored when tools are disabled. `tools_as_before`: "tools"
// is left out and "tools_unchanged": true says the host holds them from the previous request.
void append_model_request_json(std::string& out, const ModelRequest& request, std::size_t first_message,
                               std::string_view tools_text, bool tools_as_before = false);
// decision_to_json's members, for a caller that adds its own before the object is written.
void add_decision_members(SortedJsonObject& object, const Decision& decision);

}  // namespace keel::detail
