#include "keel/data_tools.hpp"

#include <nlohmann/json.hpp>

#include "tools/data/data_factories.hpp"

namespace keel {
namespace detail {

ToolSpec data_tool_spec(std::string name, std::string description, std::string schema, bool cacheable) {
  ToolTraits t;
  t.read_only = true;
  t.timeout_ms = 10000;
  t.cacheable = cacheable;
  return make_tool_spec(std::move(name), std::move(description), std::move(schema), t);
}

std::string to_json_text(const nlohmann::json& value) {
  return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

namespace {

Status check_options(const DataToolOptions& o) {
  const ScriptLimits& s = o.script;
  if (s.max_code_chars == 0 || s.max_instructions <= 0 || s.max_memory_bytes == 0 || s.timeout_ms <= 0 ||
      s.max_call_depth <= 0 || s.max_result_bytes == 0 || !(s.max_pattern_steps > 0)) {
    return Status::InvalidArgument(
        "script limits must be positive (max_code_chars, max_instructions, max_memory_bytes, timeout_ms, "
        "max_call_depth, max_result_bytes, max_pattern_steps)");
  }
  if (o.max_text_bytes == 0 || o.csv_max_rows <= 0 || o.csv_max_rows_limit < o.csv_max_rows ||
      o.tool_search_default_limit <= 0) {
    return Status::InvalidArgument(
        "data tool limits must be positive (max_text_bytes, csv_max_rows, tool_search_default_limit) and "
        "csv_max_rows_limit at least csv_max_rows");
  }
  return Status::Ok();
}

}  // namespace
}  // namespace detail

Status register_data_tools(ToolRegistry& registry, const DataToolOptions& options) {
  if (Status checked = detail::check_options(options); !checked.ok()) return checked;
  try {
    KEEL_TRY(registry.add(detail::make_script_tool(options.script)));
    KEEL_TRY(registry.add(detail::make_parse_json_tool(options)));
    KEEL_TRY(registry.add(detail::make_parse_csv_tool(options)));
    KEEL_TRY(registry.add(detail::make_math_aggregate_tool()));
    KEEL_TRY(registry.add(detail::make_tool_search_tool(registry, options)));
  } catch (const std::exception& e) {
    return Status::Internal(std::string("cannot register the data tools: ") + e.what());
  }
  return Status::Ok();
}

}  // namespace keel
