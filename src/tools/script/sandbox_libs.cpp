// Every function here is called by Lua and may raise Lua errors, which longjmp: locals stay
// trivially destructible and no C++ exception may escape.
#include "tools/script/sandbox_libs.hpp"

#include <lua.hpp>

#include <cmath>

#include "tools/script/pattern_cost.hpp"
#include "tools/script/sandbox_guard.hpp"

namespace keel::detail {
namespace {

enum PatternOp { kFind, kMatch, kGmatch, kGsub };
enum TableOp { kConcat, kInsert, kRemove, kMove, kSort, kUnpack };

constexpr const char* kPatternOpNames[] = {"find", "match", "gmatch", "gsub"};

int all_results(lua_State* L, int, lua_KContext) { return lua_gettop(L); }

// Calls the wrapped library function (upvalue 1) with this call's arguments. The continuation
// keeps the call yieldable where the original was.
int call_original(lua_State* L) {
  const int n = lua_gettop(L);
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_callk(L, n, LUA_MULTRET, 0, all_results);
  return lua_gettop(L);
}

int op_of(lua_State* L) { return static_cast<int>(lua_tointeger(L, lua_upvalueindex(2))); }

int sandbox_print(lua_State* L) {
  SandboxGuard& g = guard_of(L);
  const int n = lua_gettop(L);
  for (int i = 1; i <= n; ++i) {
    size_t len = 0;
    const char* s = luaL_tolstring(L, i, &len);
    if (i > 1) append_output(g, "\t", 1);
    append_output(g, s, len);
    lua_pop(L, 1);
  }
  append_output(g, "\n", 1);
  return 0;
}

int sandbox_load(lua_State* L) {
  if (lua_type(L, 1) != LUA_TSTRING) {
    return luaL_error(L, "load accepts only a string of Lua source text in this sandbox");
  }
  size_t len = 0;
  const char* code = lua_tolstring(L, 1, &len);
  const char* name = luaL_optstring(L, 2, "=(load)");
  const bool has_env = !lua_isnone(L, 4);
  // The mode argument is ignored: binary chunks could break the VM's invariants.
  if (luaL_loadbufferx(L, code, len, name, "t") != LUA_OK) {
    lua_pushnil(L);
    lua_insert(L, -2);
    return 2;  // nil, message: what the standard load returns
  }
  if (has_env) {
    lua_pushvalue(L, 4);
    if (lua_setupvalue(L, -2, 1) == nullptr) lua_pop(L, 1);
  }
  return 1;
}

int sandbox_collectgarbage(lua_State* L) {
  static const char* const kOptions[] = {"collect", "count", "step", "isrunning", nullptr};
  switch (luaL_checkoption(L, 1, "collect", kOptions)) {
    case 0:
      lua_gc(L, LUA_GCCOLLECT);
      lua_pushinteger(L, 0);
      return 1;
    case 1: {
      const int kib = lua_gc(L, LUA_GCCOUNT);
      const int rest = lua_gc(L, LUA_GCCOUNTB);
      lua_pushnumber(L, static_cast<lua_Number>(kib) + static_cast<lua_Number>(rest) / 1024.0);
      return 1;
    }
    case 2:
      lua_pushboolean(L, lua_gc(L, LUA_GCSTEP, 0));
      return 1;
    default:
      lua_pushboolean(L, lua_gc(L, LUA_GCISRUNNING));
      return 1;
  }
}

int sandbox_setmetatable(lua_State* L) {
  if (lua_type(L, 2) == LUA_TTABLE) {
    lua_pushliteral(L, "__gc");
    const bool has_gc = lua_rawget(L, 2) != LUA_TNIL;
    lua_pop(L, 1);
    if (has_gc) return luaL_error(L, "__gc metamethods are not available in this sandbox");
  }
  return call_original(L);
}

int sandbox_pattern(lua_State* L) {
  const int op = op_of(L);
  if (lua_isstring(L, 1) && lua_isstring(L, 2)) {
    size_t subject = 0;
    size_t length = 0;
    lua_tolstring(L, 1, &subject);
    const char* pattern = lua_tolstring(L, 2, &length);
    const bool plain = op == kFind && lua_toboolean(L, 4);
    const double cost = plain ? plain_find_cost(subject, length)
                              : pattern_cost(std::string_view(pattern, length), subject, op != kGmatch);
    const double limit = guard_of(L).limits.max_pattern_steps;
    if (cost > limit) {
      return luaL_error(L,
                        "string.%s refused: this pattern could take up to %f matching steps on a %I-byte "
                        "string, over the sandbox's pattern limit of %f steps; use fewer repetition items "
                        "(*, +, -), a shorter pattern or a shorter string",
                        kPatternOpNames[op], static_cast<lua_Number>(cost), static_cast<lua_Integer>(subject),
                        static_cast<lua_Number>(limit));
    }
  }
  return call_original(L);
}

// string.rep("", n) would run n empty copies: answer it directly.
int sandbox_rep(lua_State* L) {
  if (lua_isstring(L, 1)) {
    size_t len = 0;
    size_t sep = 0;
    lua_tolstring(L, 1, &len);
    luaL_checkinteger(L, 2);
    if (lua_isstring(L, 3)) lua_tolstring(L, 3, &sep);
    if (len + sep == 0) {
      lua_pushliteral(L, "");
      return 1;
    }
  }
  return call_original(L);
}

// The message handler given to xpcall (upvalue 1), skipped once a limit has tripped: it would run
// with hooks off for an error raised by the hook.
int guarded_handler(lua_State* L) {
  if (sandbox_tripped(L)) return 1;  // the error value, unchanged
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, lua_gettop(L) - 1, 1);
  return 1;
}

int sandbox_xpcall(lua_State* L) {
  luaL_checktype(L, 2, LUA_TFUNCTION);
  lua_pushvalue(L, 2);
  lua_pushcclosure(L, guarded_handler, 1);
  lua_replace(L, 2);
  return call_original(L);
}

// coroutine.close runs the coroutine's pending __close handlers; after a trip they could run
// unhooked.
int sandbox_close(lua_State* L) {
  if (sandbox_tripped(L)) raise_tripped(L);
  return call_original(L);
}

// A function made by coroutine.wrap: upvalues (coroutine.resume, the coroutine, coroutine.close).
// The standard wrap closes a failed coroutine itself, from C, where the sandbox cannot step in.
int wrapped_coroutine(lua_State* L) {
  const int n = lua_gettop(L);
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_pushvalue(L, lua_upvalueindex(2));
  lua_rotate(L, 1, 2);
  lua_call(L, n + 1, LUA_MULTRET);
  if (lua_toboolean(L, 1)) return lua_gettop(L) - 1;  // the values after `true`
  if (sandbox_tripped(L)) raise_tripped(L);
  lua_pushvalue(L, lua_upvalueindex(3));  // close it: its to-be-closed variables, as wrap does
  lua_pushvalue(L, lua_upvalueindex(2));
  lua_call(L, 1, 0);
  lua_settop(L, 2);
  return lua_error(L);  // the coroutine's error, propagated
}

// coroutine.wrap in terms of create/resume/close (upvalues 1, 2, 3).
int sandbox_wrap(lua_State* L) {
  luaL_checktype(L, 1, LUA_TFUNCTION);
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_pushvalue(L, 1);
  lua_call(L, 1, 1);
  lua_pushvalue(L, lua_upvalueindex(2));
  lua_insert(L, -2);
  lua_pushvalue(L, lua_upvalueindex(3));
  lua_pushcclosure(L, wrapped_coroutine, 3);
  return 1;
}

double length_of(lua_State* L, int index) { return static_cast<double>(luaL_len(L, index)); }

double last_index(lua_State* L, int arg) {
  return lua_isnoneornil(L, arg) ? length_of(L, 1) : static_cast<double>(luaL_checkinteger(L, arg));
}

// table.* functions whose loops run in C: the iterations are charged before the call.
int sandbox_table(lua_State* L) {
  double work = 0;
  switch (op_of(L)) {
    case kConcat:
      work = last_index(L, 4) - static_cast<double>(luaL_optinteger(L, 3, 1)) + 1;
      break;
    case kInsert:
      if (lua_gettop(L) == 3) work = length_of(L, 1) + 1 - static_cast<double>(luaL_checkinteger(L, 2));
      break;
    case kRemove: {
      const double size = length_of(L, 1);
      const double pos = lua_isnoneornil(L, 2) ? size : static_cast<double>(luaL_checkinteger(L, 2));
      work = size - pos + 1;
      break;
    }
    case kMove:
      work = static_cast<double>(luaL_checkinteger(L, 3)) - static_cast<double>(luaL_checkinteger(L, 2)) + 1;
      break;
    case kSort: {
      const double n = length_of(L, 1);
      work = n > 1 ? n * std::log2(n) : 0;
      break;
    }
    case kUnpack:
      work = last_index(L, 3) - static_cast<double>(luaL_optinteger(L, 2, 1)) + 1;
      break;
    default:
      break;
  }
  charge_iterations(L, work);
  return call_original(L);
}

// Replaces table[name] (at `table`, absolute) by `wrapper` with upvalues (original, op).
void wrap(lua_State* L, int table, const char* name, lua_CFunction wrapper, int op) {
  lua_getfield(L, table, name);
  lua_pushinteger(L, op);
  lua_pushcclosure(L, wrapper, 2);
  lua_setfield(L, table, name);
}

void remove_field(lua_State* L, int table, const char* name) {
  lua_pushnil(L);
  lua_setfield(L, table, name);
}

void open_lib(lua_State* L, const char* name, lua_CFunction open) {
  luaL_requiref(L, name, open, 1);
  lua_pop(L, 1);
}

}  // namespace

void open_sandbox_libs(lua_State* L) {
  open_lib(L, LUA_GNAME, luaopen_base);
  open_lib(L, LUA_STRLIBNAME, luaopen_string);
  open_lib(L, LUA_TABLIBNAME, luaopen_table);
  open_lib(L, LUA_MATHLIBNAME, luaopen_math);
  open_lib(L, LUA_UTF8LIBNAME, luaopen_utf8);
  open_lib(L, LUA_COLIBNAME, luaopen_coroutine);

  lua_pushglobaltable(L);
  const int g = lua_gettop(L);
  remove_field(L, g, "dofile");
  remove_field(L, g, "loadfile");
  remove_field(L, g, "warn");
  lua_register(L, "print", sandbox_print);
  lua_register(L, "load", sandbox_load);
  lua_register(L, "collectgarbage", sandbox_collectgarbage);
  wrap(L, g, "setmetatable", sandbox_setmetatable, 0);
  wrap(L, g, "xpcall", sandbox_xpcall, 0);

  lua_getfield(L, g, LUA_COLIBNAME);
  const int co = lua_gettop(L);
  lua_getfield(L, co, "create");
  lua_getfield(L, co, "resume");
  lua_getfield(L, co, "close");
  lua_pushcclosure(L, sandbox_wrap, 3);
  lua_setfield(L, co, "wrap");
  wrap(L, co, "close", sandbox_close, 0);  // after wrap took the original

  lua_getfield(L, g, LUA_STRLIBNAME);
  const int str = lua_gettop(L);
  remove_field(L, str, "dump");
  wrap(L, str, "find", sandbox_pattern, kFind);
  wrap(L, str, "match", sandbox_pattern, kMatch);
  wrap(L, str, "gmatch", sandbox_pattern, kGmatch);
  wrap(L, str, "gsub", sandbox_pattern, kGsub);
  wrap(L, str, "rep", sandbox_rep, 0);

  lua_getfield(L, g, LUA_TABLIBNAME);
  const int tab = lua_gettop(L);
  wrap(L, tab, "concat", sandbox_table, kConcat);
  wrap(L, tab, "insert", sandbox_table, kInsert);
  wrap(L, tab, "remove", sandbox_table, kRemove);
  wrap(L, tab, "move", sandbox_table, kMove);
  wrap(L, tab, "sort", sandbox_table, kSort);
  wrap(L, tab, "unpack", sandbox_table, kUnpack);

  // Strings share one metatable whose __index is the string table; hide it from the script.
  lua_pushliteral(L, "");
  if (lua_getmetatable(L, -1) != 0) {
    lua_pushboolean(L, 0);
    lua_setfield(L, -2, "__metatable");
    lua_pop(L, 1);
  }
  lua_settop(L, g - 1);
}

}  // namespace keel::detail
