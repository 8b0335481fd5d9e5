// tools/script/lua_json.hpp — converting between JSON and Lua values for the sandbox.
//
// JSON → Lua (push_json): fresh values, so the script works on a deep copy. null becomes nil (an
// object member that is null is absent; a null array element leaves a hole); integers stay Lua
// integers (an unsigned beyond int64 becomes a float), floats stay floats.
//
// Lua → JSON (lua_to_json): a table whose keys are exactly the integers 1..n is an array; an empty
// table is an empty array; any other table is an object whose integer and float keys are written
// as strings ("1", "2.5"). Errors name the offending value's path ("result.rows[2].f"): a
// function, userdata or thread, a key of another type, two keys with the same text (1 and "1"),
// a table that contains itself, NaN or an infinity, nesting deeper than kMaxJsonDepth, or more
// than kMaxJsonNodes values. A string's bytes are copied as they are (the caller makes them valid
// UTF-8 when it writes JSON text).
//
// Thread-safety: operates on one lua_State, from the thread that owns it.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>

#include "keel/result.hpp"

struct lua_State;  // <lua.h>

namespace keel::detail {

inline constexpr int kMaxJsonDepth = 200;           // nesting levels in either direction
inline constexpr size_t kMaxJsonNodes = 1'000'000;  // values in one converted result

// Pushes `value` as a fresh Lua value. Raises Lua errors (out of memory, nesting deeper than
// kMaxJsonDepth), so it must run in protected mode; `value` must outlive the call.
void push_json(lua_State* L, const nlohmann::json& value);

// The JSON form of the `count` values at stack indices first..first+count-1: none → null, one →
// that value, several → an array. Never raises a Lua error (it may run outside protected mode)
// and does not change the values; `label` names the root in error paths ("result").
Result<nlohmann::json> lua_to_json(lua_State* L, int first, int count, const char* label);

}  // namespace keel::detail
