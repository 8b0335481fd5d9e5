// tools/call_preparation.hpp — the checks a tool call passes before it may run: the tool exists,
// its arguments are a JSON object, and they satisfy the tool's schema.
//
// Thread-safety: stateless function; safe from any thread while the registry is not modified.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "keel/message.hpp"
#include "keel/tool_registry.hpp"

namespace keel::detail {

// A call that passed every check, or the error message the model gets instead.
struct PreparedCall {
  Tool* tool = nullptr;     // null when `error` is set
  nlohmann::json args;      // the parsed, validated arguments object
  std::string error;        // e.g. "unknown tool 'x'; available: fs_read, shell"
  bool ok() const { return tool != nullptr; }
};

// Looks the tool up, parses `call.arguments` (empty text means {}) and validates them.
// Never throws.
PreparedCall prepare_call(const ToolRegistry& registry, const ToolCall& call);

}  // namespace keel::detail
