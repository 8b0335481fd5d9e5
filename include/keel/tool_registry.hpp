// keel/tool_registry.hpp — the set of tools an agent may call, keyed by name.
//
// add() checks each tool up front: its name, uniqueness and its parameters_schema, which is
// compiled once (draft 7) and kept, so validating a call's arguments later costs no parsing.
// keel's own tools, whose schemas its tests compile, are added with schema compilation deferred
// to their first call (see defer_schema_compilation): a start-up does not pay for thirty.
//
// Thread-safety: add() and defer_schema_compilation() must not race with anything; once
// populated, all const methods are safe from any thread.
#pragma once

#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string_view>
#include <vector>

#include "keel/result.hpp"
#include "keel/tool.hpp"

namespace keel {

// Ok when `name` can name a tool: 1 to 64 of [A-Za-z0-9_.-]; else InvalidArgument saying why.
Status check_tool_name(std::string_view name);

namespace detail {
struct ToolSchema;  // src/tools/tool_registry.cpp
}  // namespace detail

class ToolRegistry {
 public:
  ToolRegistry();
  ~ToolRegistry();
  ToolRegistry(ToolRegistry&&) noexcept;
  ToolRegistry& operator=(ToolRegistry&&) noexcept;

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
  // A tool added while deferred whose schema turns out not to compile fails here, with add()'s
  // message.
  Status validate_arguments(std::string_view name, const nlohmann::json& args) const;

  // While on, add() still checks that a schema is a JSON object but compiles it at the tool's
  // first validate_arguments(). Only for schemas known to compile (keel's own tools, which its
  // tests compile); everything else should be added with it off (the default).
  void defer_schema_compilation(bool on) { defer_ = on; }

 private:
  std::vector<std::unique_ptr<Tool>> tools_;
  std::vector<std::unique_ptr<detail::ToolSchema>> schemas_;  // parallel to tools_
  bool defer_ = false;
};

}  // namespace keel
