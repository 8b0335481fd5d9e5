// keel/tool_registry.hpp — the set of tools an agent may call, keyed by name.
//
// add() checks each tool up front: its name, uniqueness and its parameters_schema, which is
// compiled once (draft 7) and kept, so validating a call's arguments later costs no parsing.
//
// Thread-safety: add() must not race with anything; once populated, all const methods are safe
// from any thread.
#pragma once

#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string_view>
#include <vector>

#include "keel/result.hpp"
#include "keel/tool.hpp"

namespace keel {

namespace detail {
class CompiledSchema;  // src/tools/schema_validator.hpp
}  // namespace detail

class ToolRegistry {
 public:
  // Adds a tool. InvalidArgument for an empty or malformed name ([A-Za-z0-9_.-], 1-64
  // characters), a duplicate name, or a parameters_schema that is not a JSON object or not a
  // valid JSON Schema.
  Status add(std::unique_ptr<Tool> tool);
  // The tool called `name`, or nullptr.
  Tool* find(std::string_view name) const;
  // Specs of all tools, in the order they were added.
  std::vector<ToolSpec> specs() const;
  size_t size() const { return tools_.size(); }

  // Checks `args` against the schema of tool `name`. NotFound for an unknown tool;
  // InvalidArgument "invalid arguments for <name>: /path: missing required property; ..." naming
  // every failing field by its JSON pointer.
  Status validate_arguments(std::string_view name, const nlohmann::json& args) const;

 private:
  std::vector<std::unique_ptr<Tool>> tools_;
  std::vector<std::shared_ptr<const detail::CompiledSchema>> schemas_;  // parallel to tools_
};

}  // namespace keel
