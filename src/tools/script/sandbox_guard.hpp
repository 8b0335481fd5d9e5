// tools/script/sandbox_guard.hpp — the limits of one Lua sandbox run and the Lua callbacks that
// enforce them: an allocator with a byte budget and a count hook for instructions, wall-clock
// time, call depth and cancellation.
//
// The guard is the `ud` of the state's allocator (lua_newstate(sandbox_alloc, &guard)), so every
// callback finds it with guard_of(L). Once a hook limit trips, the guard stays tripped: the hook
// raises an error on every later firing (on the tripping thread after each instruction), so a
// script cannot catch the error with pcall and carry on. Lua errors raised here longjmp, so these
// functions keep only trivially destructible locals.
//
// Thread-safety: one guard per run, used by the thread running that run only.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <stop_token>
#include <string>

#include "keel/data_tools.hpp"

struct lua_State;  // <lua.h>; kept out of this header so it needs no Lua include path

namespace keel::detail {

// Which hook-enforced limit stopped the script, if any.
enum class SandboxTrip { kNone, kInstructions, kTime, kCancelled, kCallDepth, kClosing };

struct SandboxGuard {
  SandboxGuard(const ScriptLimits& limits, std::stop_token stop);

  ScriptLimits limits;
  std::stop_token stop;
  std::chrono::steady_clock::time_point deadline;

  size_t memory_used = 0;       // bytes held by the state now
  bool memory_refused = false;  // an allocation was refused for the budget
  int64_t executed = 0;         // instructions (and charged C-loop iterations) so far
  int hook_count = 1000;        // instructions between count-hook calls
  SandboxTrip trip = SandboxTrip::kNone;

  std::string output;             // print() output; capacity reserved up front, never grows past it
  bool output_truncated = false;  // print() output was dropped for max_output_bytes
};

// The guard of a state created with lua_newstate(sandbox_alloc, &guard).
SandboxGuard& guard_of(lua_State* L);

// lua_Alloc that refuses growth beyond guard->limits.max_memory_bytes.
void* sandbox_alloc(void* ud, void* ptr, size_t osize, size_t nsize) noexcept;

// Installs the count hook on L (new coroutines inherit it).
void install_sandbox_hook(lua_State* L);

// Marks the guard tripped for closing: any Lua code still run (e.g. by lua_close) stops at its
// first instruction.
void stop_all_code(lua_State* L);

// Whether a hook limit has tripped. Lua code must not be started after that: the error a hook
// raises leaves hooks disabled on its thread until a pcall or resume boundary recovers, so code a
// library function would run in between (an xpcall message handler, the __close handlers a
// coroutine's close runs) would run unhooked.
bool sandbox_tripped(lua_State* L);

// Raises the error of the tripped limit (again). Precondition: sandbox_tripped(L).
[[noreturn]] void raise_tripped(lua_State* L);

// Counts `iterations` of a loop a library function is about to run in C (where no hook fires)
// against the instruction limit; raises the instruction-limit error when they do not fit.
void charge_iterations(lua_State* L, double iterations);

// Appends print() output within the reserved capacity; never throws or allocates.
void append_output(SandboxGuard& guard, const char* data, size_t size) noexcept;

}  // namespace keel::detail
