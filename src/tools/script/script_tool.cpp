// script — runs a short Lua script in the sandbox (lua_sandbox.hpp) and returns
// {"result": ..., "output": "..."} as compact JSON ("output" only when print() wrote something).
#include <nlohmann/json.hpp>

#include "tools/data/data_factories.hpp"
#include "tools/fs_common.hpp"
#include "tools/script/lua_sandbox.hpp"

namespace keel::detail {
namespace {

constexpr const char* kSchema = R"json({
  "type": "object",
  "properties": {
    "code": {"type": "string", "description": "Lua 5.4 source. The global `inputs` holds the inputs; `return` the result (tables become JSON arrays/objects); print() output is returned too"},
    "inputs": {"description": "Any JSON value; the script sees a copy as the global `inputs` (null becomes nil)"}
  },
  "required": ["code"],
  "additionalProperties": false
})json";

Result<std::string> run_script(const ScriptLimits& limits, const nlohmann::json& args, const ToolContext& ctx) {
  const std::string code = string_arg(args, "code", "");
  const auto it = args.find("inputs");
  const nlohmann::json inputs = it != args.end() ? *it : nlohmann::json(nullptr);
  KEEL_ASSIGN_OR_RETURN(ScriptRun run, run_lua_script(code, inputs, limits, ctx.stop));
  nlohmann::json out = nlohmann::json::object();
  out["result"] = std::move(run.result);
  if (run.output_truncated) {
    run.output += "\n[print output truncated at " + std::to_string(limits.max_output_bytes) + " bytes]";
  }
  if (!run.output.empty()) out["output"] = std::move(run.output);
  std::string text = to_json_text(out);
  if (text.size() > limits.max_result_bytes) {
    return Status::ResourceExhausted("the script's result is " + std::to_string(text.size()) +
                                     " bytes of JSON, over the limit of " + std::to_string(limits.max_result_bytes) +
                                     " bytes; return less (filter or aggregate inside the script)");
  }
  return text;
}

}  // namespace

std::unique_ptr<Tool> make_script_tool(const ScriptLimits& limits) {
  ToolSpec spec = data_tool_spec(
      "script",
      "Run a short Lua 5.4 script (at most " + std::to_string(limits.max_code_chars) +
          " characters) in a sandbox to compute or transform data: pass JSON as `inputs`, `return` a value and "
          "get it back as JSON. No files, network or OS access.",
      kSchema, /*cacheable=*/false);
  // The sandbox's own wall-clock limit fires first and says which limit was hit.
  spec.timeout_ms = limits.timeout_ms + 2000;
  return make_tool(std::move(spec), [limits](const nlohmann::json& args, const ToolContext& ctx) {
    return run_script(limits, args, ctx);
  });
}

}  // namespace keel::detail
