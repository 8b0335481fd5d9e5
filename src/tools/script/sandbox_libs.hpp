// tools/script/sandbox_libs.hpp — the standard library a sandboxed script sees.
//
// Opens base, string, table, math, utf8 and coroutine, then takes away or wraps what could reach
// outside the state, run unbounded work where the hook cannot see it, or run Lua code while the
// hook is off (see sandbox_tripped in sandbox_guard.hpp):
//   removed   dofile, loadfile, warn, string.dump (io, os, package, debug are never opened)
//   wrapped   print           → appends to the guard's bounded output buffer
//             load            → source text only (mode "t"); chunk functions are refused
//             collectgarbage  → only "collect", "count", "step" and "isrunning"
//             setmetatable    → refuses metatables with __gc (finalizers run with hooks off)
//             xpcall          → the message handler is skipped once a limit has tripped
//             coroutine.close → refused once a limit has tripped
//             coroutine.wrap  → rebuilt on create/resume/close, so the two rules above apply
//             string.find/match/gmatch/gsub → refuse patterns over max_pattern_steps
//             string.rep      → an empty result is returned without looping n times
//             table.concat/insert/remove/move/sort/unpack → their C loops are charged to the
//                               instruction limit before they run
//   protected the string metatable (getmetatable("") returns false)
//
// Thread-safety: operates on one lua_State, from the thread that owns it.
#pragma once

struct lua_State;  // <lua.h>

namespace keel::detail {

// Opens the sandbox's libraries into L's globals. Raises Lua errors (e.g. out of memory), so it
// must run in protected mode (inside a lua_pcall'd C function).
void open_sandbox_libs(lua_State* L);

}  // namespace keel::detail
