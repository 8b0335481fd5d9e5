#include "tools/script/sandbox_guard.hpp"

#include <lua.hpp>

#include <algorithm>
#include <cstdlib>

#include "base/clock.hpp"

namespace keel::detail {
namespace {

constexpr int kHookEvery = 1000;  // instructions between hook calls

const char* trip_text(SandboxTrip trip) {
  switch (trip) {
    case SandboxTrip::kInstructions: return "instruction limit exceeded";
    case SandboxTrip::kTime: return "time limit exceeded";
    case SandboxTrip::kCancelled: return "cancelled";
    case SandboxTrip::kCallDepth: return "call depth limit exceeded";
    case SandboxTrip::kClosing: return "sandbox closing";
    case SandboxTrip::kNone: break;
  }
  return "stopped";
}

void count_hook(lua_State* L, lua_Debug*);

// Raises the error for a tripped guard. From here on the hook fires after every instruction of
// this thread, so a pcall that catches the error cannot run on.
[[noreturn]] void raise_trip(lua_State* L, SandboxTrip trip) {
  lua_sethook(L, count_hook, LUA_MASKCOUNT, 1);
  luaL_error(L, "script stopped: %s", trip_text(trip));
  std::abort();  // luaL_error does not return
}

void count_hook(lua_State* L, lua_Debug*) {
  SandboxGuard& g = guard_of(L);
  if (g.trip == SandboxTrip::kNone) {
    g.executed += g.hook_count;
    lua_Debug frame;
    if (g.executed > g.limits.max_instructions) {
      g.trip = SandboxTrip::kInstructions;
    } else if (g.stop.stop_requested()) {
      g.trip = SandboxTrip::kCancelled;
    } else if (std::chrono::steady_clock::now() > g.deadline) {
      g.trip = SandboxTrip::kTime;
    } else if (lua_getstack(L, g.limits.max_call_depth, &frame) != 0) {
      // Checked every kHookEvery instructions, so the depth may overshoot by a few hundred
      // frames before this fires; what matters is that recursion cannot run unbounded.
      g.trip = SandboxTrip::kCallDepth;
    }
  }
  if (g.trip != SandboxTrip::kNone) raise_trip(L, g.trip);
}

}  // namespace

SandboxGuard::SandboxGuard(const ScriptLimits& l, std::stop_token s)
    : limits(l),
      stop(std::move(s)),
      deadline(deadline_after_ms(l.timeout_ms)) {
  hook_count = static_cast<int>(std::clamp<int64_t>(limits.max_instructions, 1, kHookEvery));
  output.reserve(limits.max_output_bytes);
}

SandboxGuard& guard_of(lua_State* L) {
  void* ud = nullptr;
  lua_getallocf(L, &ud);
  return *static_cast<SandboxGuard*>(ud);
}

void* sandbox_alloc(void* ud, void* ptr, size_t osize, size_t nsize) noexcept {
  auto* g = static_cast<SandboxGuard*>(ud);
  // For a new block Lua passes the object's type in osize, not a size.
  const size_t old = ptr != nullptr ? osize : 0;
  if (nsize == 0) {
    std::free(ptr);
    g->memory_used -= old;
    return nullptr;
  }
  if (nsize > old && nsize - old > g->limits.max_memory_bytes - g->memory_used) {
    g->memory_refused = true;  // Lua collects garbage and retries once before it gives up
    return nullptr;
  }
  void* block = std::realloc(ptr, nsize);
  if (block == nullptr) {
    if (nsize > old) g->memory_refused = true;
    return nullptr;
  }
  g->memory_used = g->memory_used - old + nsize;
  return block;
}

void install_sandbox_hook(lua_State* L) { lua_sethook(L, count_hook, LUA_MASKCOUNT, guard_of(L).hook_count); }

void stop_all_code(lua_State* L) {
  SandboxGuard& g = guard_of(L);
  if (g.trip == SandboxTrip::kNone) g.trip = SandboxTrip::kClosing;
  lua_sethook(L, count_hook, LUA_MASKCOUNT, 1);
}

bool sandbox_tripped(lua_State* L) { return guard_of(L).trip != SandboxTrip::kNone; }

void raise_tripped(lua_State* L) { raise_trip(L, guard_of(L).trip); }

void charge_iterations(lua_State* L, double iterations) {
  SandboxGuard& g = guard_of(L);
  if (g.trip == SandboxTrip::kNone && iterations > 0) {
    const double left = static_cast<double>(g.limits.max_instructions - g.executed);
    if (iterations > left) {
      g.trip = SandboxTrip::kInstructions;
    } else {
      g.executed += static_cast<int64_t>(iterations);
    }
  }
  if (g.trip != SandboxTrip::kNone) raise_trip(L, g.trip);
}

void append_output(SandboxGuard& g, const char* data, size_t size) noexcept {
  if (g.output_truncated) return;
  const size_t room = g.limits.max_output_bytes - g.output.size();
  if (size > room) {
    size = room;
    g.output_truncated = true;
  }
  g.output.append(data, size);  // within the reserved capacity: no allocation
}

}  // namespace keel::detail
