// keel/data_tools.hpp — tools that compute on data the agent already has: a Lua sandbox and
// parsers for JSON and CSV, aggregation, and a search over the tool registry itself.
//
//   script         {code, inputs?}  runs a short Lua 5.4 script in a sandbox; `inputs` (any JSON)
//                  is the global `inputs`, the script's return value comes back as JSON:
//                  {"result": ..., "output": "<print output>"} ("output" only when non-empty).
//   parse_json     {text, path?}    parses JSON text (an error names line and column) and
//                  optionally extracts a JSONPath-style path ($, .key, ['key'], [0], [-1], [*], .*,
//                  ..key): a path of keys and indexes returns its value, one with a wildcard or ..
//                  an array of all matches; no match is an error naming the path.
//   parse_csv      {text, delimiter?, header?, max_rows?} RFC 4180 CSV (auto-detected , ; tab |)
//                  → {"columns", "rows", "row_count", "delimiter"} plus "truncated"/"total_rows"
//                  and "ragged_rows" when they apply. Unquoted fields in JSON number syntax become
//                  numbers ("007", "+5", "1,5" stay text), true/false booleans, empty ones null;
//                  quoted fields stay text ("" is the empty string).
//   math_aggregate {op, values? | rows? + field} sum/avg/min/max/count/median →
//                  {"op", "value", "count", "skipped"}; numeric strings count, other values are
//                  skipped; no numbers: sum and count are 0, the others an error; a `field` that no
//                  item has is an error naming the fields there are (a misnamed column).
//   tool_search    {query, limit?}  the registry's tools matching words of the query, name
//                  matches ranked above description matches.
//
// All five are read-only, concurrency-safe and risk low. parse_json, parse_csv and math_aggregate
// are cacheable (pure functions of their arguments); script is not (math.random), nor is
// tool_search (the registry grows).
//
// The sandbox: a fresh Lua state per call with only base (no dofile/loadfile; load takes source
// text only; collectgarbage only "collect"/"count"/"step"/"isrunning"), string (no string.dump;
// the string metatable hidden), table, math, utf8 and coroutine. No io, os, package, require or
// debug. Each limit in ScriptLimits is enforced and a hit is a tool error naming the limit and its
// value: the code size before anything runs; instructions, wall-clock time, call depth and the
// stop token by a count hook that also applies inside coroutines and keeps firing once tripped,
// so pcall cannot swallow it; memory by the state's allocator, which refuses growth over the
// budget ("not enough memory" in Lua). Code that Lua would run with the hook off is refused or
// skipped: __gc metamethods, and xpcall handlers and a failed coroutine's __close handlers once a
// limit has tripped. Library loops that run in C, where no hook fires, are bounded up front:
// table.concat/insert/remove/move/sort/unpack charge their iterations to the instruction limit,
// string.rep of an empty string returns at once, and string.find/match/gmatch/gsub refuse a pattern whose worst-case backtracking cost on its
// subject exceeds max_pattern_steps.
//
// JSON ↔ Lua: null becomes nil (a null array element leaves a hole); objects and arrays become
// fresh tables (a deep copy: the script cannot change the caller's JSON). Back to JSON: a table
// whose keys are exactly 1..n is an array, an empty table is an empty array [], any other table
// is an object (integer and float keys written as strings; other key types are an error); Lua
// integers stay integers and floats stay floats; functions, userdata, threads, cycles, NaN and
// infinities are errors. Several return values become an array, none becomes null.
//
//   keel::ToolRegistry tools;
//   keel::DataToolOptions data;
//   data.script.timeout_ms = 1000;
//   KEEL_TRY(keel::register_data_tools(tools, data));
//
// Thread-safety: register_data_tools() follows ToolRegistry::add()'s rules; the tools may run on
// any thread, concurrently with each other and themselves.
#pragma once

#include <cstddef>
#include <cstdint>

#include "keel/result.hpp"
#include "keel/tool_registry.hpp"

namespace keel {

// Limits of one `script` call.
struct ScriptLimits {
  size_t max_code_chars = 1000;              // longer code (in UTF-8 characters) is refused unrun
  int64_t max_instructions = 10'000'000;     // Lua VM instructions per call (checked every 1000)
  size_t max_memory_bytes = 32 * 1024 * 1024;  // bytes the Lua state may hold at once
  int timeout_ms = 2000;                     // wall-clock limit per call, in milliseconds
  int max_call_depth = 1000;                 // nested Lua function calls (deep recursion)
  size_t max_output_bytes = 16 * 1024;       // print() output kept; the rest is dropped with a note
  size_t max_result_bytes = 1024 * 1024;     // the result's compact JSON text
  double max_pattern_steps = 1e9;            // worst-case steps of one string pattern operation
};

struct DataToolOptions {
  ScriptLimits script;                  // the script tool's sandbox limits
  size_t max_text_bytes = 8 * 1024 * 1024;  // parse_json / parse_csv refuse longer `text`
  int csv_max_rows = 1000;              // parse_csv rows returned when max_rows is not given
  int csv_max_rows_limit = 100'000;     // the largest max_rows a call may ask for
  int tool_search_default_limit = 10;   // tool_search matches returned when limit is not given
};

// Registers script, parse_json, parse_csv, math_aggregate and tool_search in `registry`.
// tool_search keeps a reference to `registry`, which must outlive it; it sees tools added later.
// InvalidArgument for a limit that is not positive; an error from ToolRegistry::add (e.g. a name
// already taken) is returned as is, with the tools before it registered.
Status register_data_tools(ToolRegistry& registry, const DataToolOptions& options);

}  // namespace keel
