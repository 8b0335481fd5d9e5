#include "tools/script/lua_sandbox.hpp"

#include <lua.hpp>

#include <cstdio>
#include <string>
#include <utility>

#include "core/text/utf8_text.hpp"
#include "tools/script/lua_json.hpp"
#include "tools/script/sandbox_guard.hpp"
#include "tools/script/sandbox_libs.hpp"

namespace keel::detail {
namespace {

using json = nlohmann::json;

// What the protected setup step needs and reports.
struct Setup {
  std::string_view code;
  const json* inputs = nullptr;
  bool compile_failed = false;
};

// Runs in protected mode: opens the libraries, sets `inputs`, compiles the code (source text
// only) and leaves the compiled chunk on the stack.
int setup_state(lua_State* L) {
  auto* setup = static_cast<Setup*>(lua_touserdata(L, 1));
  lua_pop(L, 1);
  open_sandbox_libs(L);
  push_json(L, *setup->inputs);
  lua_setglobal(L, "inputs");
  if (luaL_loadbufferx(L, setup->code.data(), setup->code.size(), "=script", "t") != LUA_OK) {
    setup->compile_failed = true;
    return lua_error(L);
  }
  return 1;
}

// Closes the state when the run ends; any Lua code lua_close would still run (pending to-be-closed
// variables) stops at its first instruction.
class StateCloser {
 public:
  explicit StateCloser(lua_State* L) : L_(L) {}
  ~StateCloser() {
    stop_all_code(L_);
    lua_close(L_);
  }
  StateCloser(const StateCloser&) = delete;
  StateCloser& operator=(const StateCloser&) = delete;

 private:
  lua_State* L_;
};

// "32 MiB", "64 KiB" or "1000 bytes".
std::string size_text(size_t bytes) {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) == 0) return std::to_string(bytes / (1024 * 1024)) + " MiB";
  if (bytes >= 1024 && bytes % 1024 == 0) return std::to_string(bytes / 1024) + " KiB";
  return std::to_string(bytes) + " bytes";
}

// The error value on top of the stack as text, without running metamethods.
std::string error_text(lua_State* L) {
  const int type = lua_type(L, -1);
  if (type == LUA_TSTRING) {
    size_t len = 0;
    const char* s = lua_tolstring(L, -1, &len);
    return std::string(s, len);
  }
  if (type == LUA_TNUMBER) {
    char buf[64];
    if (lua_isinteger(L, -1)) {
      std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(lua_tointeger(L, -1)));
    } else {
      std::snprintf(buf, sizeof buf, "%.14g", lua_tonumber(L, -1));
    }
    return buf;
  }
  return std::string("(an error value of type ") + lua_typename(L, type) + ")";
}

bool contains(const std::string& text, const char* needle) { return text.find(needle) != std::string::npos; }

Status limit_failure(const SandboxGuard& g) {
  const ScriptLimits& l = g.limits;
  switch (g.trip) {
    case SandboxTrip::kInstructions:
      return Status::ResourceExhausted("script exceeded the instruction limit of " +
                                       std::to_string(l.max_instructions) +
                                       " instructions (an endless loop?); make it do less work");
    case SandboxTrip::kTime:
      return Status::DeadlineExceeded("script exceeded the time limit of " + std::to_string(l.timeout_ms) + " ms");
    case SandboxTrip::kCancelled:
      return Status::Cancelled("script was stopped before it finished: the call was cancelled");
    case SandboxTrip::kCallDepth:
      return Status::ResourceExhausted("script exceeded the call depth limit of " +
                                       std::to_string(l.max_call_depth) +
                                       " nested calls (runaway recursion?); use a loop instead");
    default:
      return Status::Internal("script stopped while the sandbox was closing");
  }
}

Status script_failure(int status, const SandboxGuard& g, const std::string& message, bool compile_failed) {
  if (g.trip != SandboxTrip::kNone) return limit_failure(g);
  if (status == LUA_ERRMEM || (g.memory_refused && contains(message, "not enough memory"))) {
    return Status::ResourceExhausted("script exceeded the memory limit of " + std::to_string(g.limits.max_memory_bytes) +
                                     " bytes (" + size_text(g.limits.max_memory_bytes) +
                                     "): not enough memory; build smaller strings and tables");
  }
  if (compile_failed) {
    if (contains(message, "binary chunk")) {
      return Status::InvalidArgument("script code must be Lua source text; precompiled (binary) chunks are refused");
    }
    return Status::InvalidArgument("script does not compile: " + message);
  }
  if (contains(message, "stack overflow")) {
    return Status::ResourceExhausted("script recursed too deeply (Lua stack overflow): " + message);
  }
  return Status::InvalidArgument("script error: " + message);
}

}  // namespace

Result<ScriptRun> run_lua_script(std::string_view code, const nlohmann::json& inputs, const ScriptLimits& limits,
                                 std::stop_token stop) {
  const size_t chars = utf8_char_count(code);
  if (chars > limits.max_code_chars) {
    return Status::InvalidArgument("script is " + std::to_string(chars) + " characters long, over the limit of " +
                                   std::to_string(limits.max_code_chars) +
                                   " characters; shorten it (pass data in `inputs`, not in the code)");
  }
  if (code.substr(0, 4) == LUA_SIGNATURE) {
    return Status::InvalidArgument("script code must be Lua source text; precompiled (binary) chunks are refused");
  }
  SandboxGuard guard(limits, std::move(stop));
  lua_State* L = lua_newstate(sandbox_alloc, &guard);
  if (L == nullptr) {
    return Status::ResourceExhausted("cannot create the script's Lua state within the memory limit of " +
                                     std::to_string(limits.max_memory_bytes) + " bytes");
  }
  StateCloser closer(L);
  install_sandbox_hook(L);

  Setup setup;
  setup.code = code;
  setup.inputs = &inputs;
  lua_pushcfunction(L, setup_state);
  lua_pushlightuserdata(L, &setup);
  int status = lua_pcall(L, 1, 1, 0);
  if (status != LUA_OK) return script_failure(status, guard, error_text(L), setup.compile_failed);

  const int base = lua_gettop(L) - 1;  // below the compiled chunk
  status = lua_pcall(L, 0, LUA_MULTRET, 0);
  if (status != LUA_OK) return script_failure(status, guard, error_text(L), false);
  // A limit tripped inside a coroutine whose error the script caught still counts.
  if (guard.trip != SandboxTrip::kNone) return limit_failure(guard);

  KEEL_ASSIGN_OR_RETURN(json result, lua_to_json(L, base + 1, lua_gettop(L) - base, "result"));
  ScriptRun run;
  run.result = std::move(result);
  run.output = guard.output;  // a copy: lua_close may still reach print()
  run.output_truncated = guard.output_truncated;
  return run;
}

}  // namespace keel::detail
