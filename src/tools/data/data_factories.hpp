// tools/data/data_factories.hpp — constructors of the data tools and the script tool, one per
// source file, used by register_data_tools() (data_tools.cpp) and by tests.
//
// Thread-safety: the tools' execute() may run concurrently with each other and themselves.
#pragma once

#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string>

#include "keel/data_tools.hpp"
#include "keel/tool.hpp"
#include "keel/tool_registry.hpp"

namespace keel::detail {

std::unique_ptr<Tool> make_script_tool(const ScriptLimits& limits);
std::unique_ptr<Tool> make_parse_json_tool(const DataToolOptions& options);
std::unique_ptr<Tool> make_parse_csv_tool(const DataToolOptions& options);
std::unique_ptr<Tool> make_math_aggregate_tool();
// `registry` must outlive the tool.
std::unique_ptr<Tool> make_tool_search_tool(const ToolRegistry& registry, const DataToolOptions& options);

// A spec for a read-only, concurrency-safe, low-risk tool.
ToolSpec data_tool_spec(std::string name, std::string description, std::string schema, bool cacheable);

// Compact JSON text for a model: invalid UTF-8 in strings becomes U+FFFD.
std::string to_json_text(const nlohmann::json& value);

}  // namespace keel::detail
