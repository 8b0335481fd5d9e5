// tools/script/lua_sandbox.hpp — runs one Lua 5.4 script in a fresh, limited state.
//
//   ScriptLimits limits;                       // keel/data_tools.hpp
//   auto run = run_lua_script("return #inputs", nlohmann::json::array({1, 2}), limits, stop);
//   // run->result == 2, run->output == ""
//
// Errors (each message names the limit and its value where one was hit):
//   InvalidArgument    code over max_code_chars, a binary chunk, a syntax error, a runtime error
//                      ("script error: script:3: attempt to index a nil value ..."), a result
//                      that has no JSON form
//   ResourceExhausted  instruction, memory or call-depth limit; Lua's own stack overflow
//   DeadlineExceeded   the wall-clock limit (timeout_ms)
//   Cancelled          `stop` was requested
// See keel/data_tools.hpp for the libraries the script sees and the JSON conversion rules.
//
// Thread-safety: every call has its own lua_State; calls may run concurrently on any threads.
#pragma once

#include <nlohmann/json.hpp>
#include <stop_token>
#include <string>
#include <string_view>

#include "keel/data_tools.hpp"
#include "keel/result.hpp"

namespace keel::detail {

struct ScriptRun {
  nlohmann::json result;          // the returned value(s) as JSON
  std::string output;             // what print() wrote (at most limits.max_output_bytes)
  bool output_truncated = false;  // print() wrote more than that
};

// Runs `code` with `inputs` as the global `inputs`.
Result<ScriptRun> run_lua_script(std::string_view code, const nlohmann::json& inputs, const ScriptLimits& limits,
                                 std::stop_token stop);

}  // namespace keel::detail
