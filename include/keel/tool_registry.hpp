// keel/tool_registry.hpp — the set of tools an agent may call, keyed by name.
//
// Thread-safety: add() must not race with anything; once populated, all const methods are safe
// from any thread.
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "keel/result.hpp"
#include "keel/tool.hpp"

namespace keel {

class ToolRegistry {
 public:
  // Adds a tool. InvalidArgument for an empty or malformed name, a duplicate name, or a
  // parameters_schema that is not a JSON object.
  Status add(std::unique_ptr<Tool> tool);
  // The tool called `name`, or nullptr.
  Tool* find(std::string_view name) const;
  // Specs of all tools, in the order they were added.
  std::vector<ToolSpec> specs() const;
  size_t size() const { return tools_.size(); }

 private:
  std::vector<std::unique_ptr<Tool>> tools_;
};

}  // namespace keel
