// Stable names of the vocabulary enums; they appear in prompts and JSON events.
#include <utility>

#include "keel/message.hpp"
#include "keel/tool_spec.hpp"

namespace keel {

std::string_view role_name(Role role) {
  switch (role) {
    case Role::kSystem: return "system";
    case Role::kUser: return "user";
    case Role::kAssistant: return "assistant";
    case Role::kTool: return "tool";
  }
  return "user";
}

std::string_view tool_status_name(ToolStatus status) {
  switch (status) {
    case ToolStatus::kOk: return "ok";
    case ToolStatus::kError: return "error";
    case ToolStatus::kTimeout: return "timeout";
    case ToolStatus::kDenied: return "denied";
    case ToolStatus::kBlocked: return "blocked";
    case ToolStatus::kCancelled: return "cancelled";
  }
  return "error";
}

ToolSpec make_tool_spec(std::string name, std::string description, std::string schema, ToolTraits traits) {
  ToolSpec spec;
  spec.name = std::move(name);
  spec.description = std::move(description);
  spec.parameters_schema = std::move(schema);
  spec.read_only = traits.read_only;
  spec.concurrency_safe = traits.read_only;
  spec.risk = traits.risk;
  spec.timeout_ms = traits.timeout_ms;
  spec.cacheable = traits.cacheable;
  return spec;
}

std::string_view risk_name(Risk risk) {
  switch (risk) {
    case Risk::kLow: return "low";
    case Risk::kMedium: return "medium";
    case Risk::kHigh: return "high";
  }
  return "low";
}

}  // namespace keel
