#include "tools/script/lua_json.hpp"

#include <lua.hpp>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

namespace keel::detail {
namespace {

using json = nlohmann::json;

// Runs inside a Lua C call (protected mode): Lua errors longjmp through here, so only trivially
// destructible locals (references, pointers, container iterators).
void push_value(lua_State* L, const json& v, int depth) {
  if (depth > kMaxJsonDepth) luaL_error(L, "inputs nest deeper than %d levels", kMaxJsonDepth);
  luaL_checkstack(L, 4, "inputs nest too deeply");
  switch (v.type()) {
    case json::value_t::boolean:
      lua_pushboolean(L, *v.get_ptr<const json::boolean_t*>() ? 1 : 0);
      return;
    case json::value_t::number_integer:
      lua_pushinteger(L, static_cast<lua_Integer>(*v.get_ptr<const json::number_integer_t*>()));
      return;
    case json::value_t::number_unsigned: {
      const json::number_unsigned_t u = *v.get_ptr<const json::number_unsigned_t*>();
      if (u <= static_cast<json::number_unsigned_t>(INT64_MAX)) {
        lua_pushinteger(L, static_cast<lua_Integer>(u));
      } else {
        lua_pushnumber(L, static_cast<lua_Number>(u));
      }
      return;
    }
    case json::value_t::number_float:
      lua_pushnumber(L, *v.get_ptr<const json::number_float_t*>());
      return;
    case json::value_t::string: {
      const json::string_t& s = *v.get_ptr<const json::string_t*>();
      lua_pushlstring(L, s.data(), s.size());
      return;
    }
    case json::value_t::array: {
      const json::array_t& a = *v.get_ptr<const json::array_t*>();
      lua_createtable(L, static_cast<int>(std::min<size_t>(a.size(), INT_MAX)), 0);
      lua_Integer i = 0;
      for (const json& item : a) {
        ++i;
        if (item.is_null()) continue;
        push_value(L, item, depth + 1);
        lua_rawseti(L, -2, i);
      }
      return;
    }
    case json::value_t::object: {
      const json::object_t& o = *v.get_ptr<const json::object_t*>();
      lua_createtable(L, 0, static_cast<int>(std::min<size_t>(o.size(), INT_MAX)));
      for (auto it = o.begin(); it != o.end(); ++it) {
        if (it->second.is_null()) continue;
        lua_pushlstring(L, it->first.data(), it->first.size());
        push_value(L, it->second, depth + 1);
        lua_rawset(L, -3);
      }
      return;
    }
    default:  // null, discarded, binary
      lua_pushnil(L);
      return;
  }
}

// Lua → JSON. Uses only API calls that never raise (no allocation inside Lua).
class LuaToJson {
 public:
  LuaToJson(lua_State* L, std::string label) : L_(L), path_(std::move(label)) {}

  Result<json> convert(int index, int depth) {
    if (++nodes_ > kMaxJsonNodes) {
      return Status::ResourceExhausted("the script's result has more than " + std::to_string(kMaxJsonNodes) +
                                       " values; return less (aggregate inside the script)");
    }
    switch (lua_type(L_, index)) {
      case LUA_TNONE:
      case LUA_TNIL:
        return json(nullptr);
      case LUA_TBOOLEAN:
        return json(lua_toboolean(L_, index) != 0);
      case LUA_TNUMBER: {
        if (lua_isinteger(L_, index)) return json(static_cast<int64_t>(lua_tointeger(L_, index)));
        const double d = lua_tonumber(L_, index);
        if (!std::isfinite(d)) return fail(std::string("is ") + (std::isnan(d) ? "NaN" : "infinite") + ", which JSON cannot represent");
        return json(d);
      }
      case LUA_TSTRING: {
        size_t len = 0;
        const char* s = lua_tolstring(L_, index, &len);  // a string: converted in place only for numbers
        return json(std::string(s, len));
      }
      case LUA_TTABLE:
        return convert_table(lua_absindex(L_, index), depth);
      default:
        return fail(std::string("is a ") + lua_typename(L_, lua_type(L_, index)) + ", which has no JSON form");
    }
  }

 private:
  Status fail(const std::string& what) const {
    return Status::InvalidArgument("cannot turn the script's result into JSON: " + path_ + " " + what);
  }

  // The text of the key at `index` as a JSON object key, or empty with `ok` false.
  bool key_text(int index, std::string& out) const {
    if (lua_type(L_, index) == LUA_TSTRING) {
      size_t len = 0;
      const char* s = lua_tolstring(L_, index, &len);
      out.assign(s, len);
      return true;
    }
    if (lua_type(L_, index) != LUA_TNUMBER) return false;
    if (lua_isinteger(L_, index)) {
      out = std::to_string(static_cast<long long>(lua_tointeger(L_, index)));
      return true;
    }
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.14g", lua_tonumber(L_, index));  // Lua's own number format
    out = buf;
    return true;
  }

  Result<json> convert_table(int index, int depth) {
    if (depth >= kMaxJsonDepth) return fail("nests deeper than " + std::to_string(kMaxJsonDepth) + " levels");
    const void* id = lua_topointer(L_, index);
    if (std::find(open_.begin(), open_.end(), id) != open_.end()) {
      return fail("is a table that contains itself (a cycle); JSON has no references");
    }
    if (lua_checkstack(L_, 4) == 0) return Status::ResourceExhausted("the script's result nests too deeply");
    open_.push_back(id);
    Result<json> out = table_value(index, depth);
    open_.pop_back();
    return out;
  }

  Result<json> table_value(int index, int depth) {
    int64_t count = 0;
    bool sequence = true;
    lua_Integer max_key = 0;
    lua_pushnil(L_);
    while (lua_next(L_, index) != 0) {
      ++count;
      if (lua_isinteger(L_, -2) && lua_tointeger(L_, -2) >= 1) {
        max_key = std::max(max_key, lua_tointeger(L_, -2));
      } else {
        sequence = false;
      }
      lua_pop(L_, 1);
    }
    if (count == 0) return json::array();
    const size_t path_size = path_.size();
    if (sequence && max_key == count) {
      json arr = json::array();
      for (lua_Integer i = 1; i <= max_key; ++i) {
        lua_rawgeti(L_, index, i);
        path_ += "[" + std::to_string(static_cast<long long>(i)) + "]";
        Result<json> item = convert(lua_gettop(L_), depth + 1);
        lua_pop(L_, 1);
        path_.resize(path_size);
        if (!item.ok()) return item.status();
        arr.push_back(std::move(item).value());
      }
      return arr;
    }
    json obj = json::object();
    std::string key;
    lua_pushnil(L_);
    while (lua_next(L_, index) != 0) {
      if (!key_text(lua_gettop(L_) - 1, key)) {
        const std::string type = lua_typename(L_, lua_type(L_, -2));
        lua_pop(L_, 2);
        return fail("has a key of type " + type + "; JSON object keys must be strings or numbers");
      }
      if (obj.contains(key)) {
        lua_pop(L_, 2);
        return fail("has two keys that both read \"" + key + "\" (a number and a string)");
      }
      path_ += "." + key;
      Result<json> item = convert(lua_gettop(L_), depth + 1);
      path_.resize(path_size);
      lua_pop(L_, 1);
      if (!item.ok()) {
        lua_pop(L_, 1);
        return item.status();
      }
      obj[key] = std::move(item).value();
    }
    return obj;
  }

  lua_State* L_;
  std::string path_;
  std::vector<const void*> open_;  // tables on the current path, to detect cycles
  size_t nodes_ = 0;
};

}  // namespace

void push_json(lua_State* L, const nlohmann::json& value) { push_value(L, value, 0); }

Result<nlohmann::json> lua_to_json(lua_State* L, int first, int count, const char* label) {
  try {
    const int top = lua_gettop(L);
    Result<json> out = json(nullptr);
    if (count == 1) {
      out = LuaToJson(L, label).convert(first, 0);
    } else if (count > 1) {
      json arr = json::array();
      for (int i = 0; i < count && out.ok(); ++i) {
        LuaToJson converter(L, std::string(label) + "[" + std::to_string(i + 1) + "]");
        Result<json> item = converter.convert(first + i, 0);
        if (!item.ok()) {
          out = item.status();
        } else {
          arr.push_back(std::move(item).value());
        }
      }
      if (out.ok()) out = std::move(arr);
    }
    lua_settop(L, top);
    return out;
  } catch (const std::exception& e) {
    return Status::ResourceExhausted(std::string("cannot build the script's result: ") + e.what());
  }
}

}  // namespace keel::detail
