// tools/data/json_path.hpp — a JSONPath-style selector over a parsed JSON document.
//
// Syntax (a subset of JSONPath):
//   $            the root (may be left out: "items[0]" means "$.items[0]")
//   .key         an object member; the name runs to the next '.' or '['
//   ['key']      a member with any characters ("..." quotes too; \' \" \\ escape)
//   [0] [-1]     an array element; negative counts from the end
//   [*] .*       every element of an array or member of an object (members in key order)
//   ..key ..*    the same selector applied at every depth (recursive descent, document order)
//
// A path made only of keys and indexes is definite: it selects one value, returned as is. A path
// with a wildcard or recursive descent returns a JSON array of every match, even when there is
// one. No match is NotFound naming the path and what was there instead ("no key 'nmae' in the
// object at $.user; its keys: age, name"); a malformed path is InvalidArgument naming the
// position.
//
//   auto v = json_path_select(doc, "$.users[*].name");   // ["ann", "bob"]
//
// Thread-safety: pure functions; `doc` is only read.
#pragma once

#include <nlohmann/json.hpp>
#include <string_view>

#include "keel/result.hpp"

namespace keel::detail {

Result<nlohmann::json> json_path_select(const nlohmann::json& doc, std::string_view path);

}  // namespace keel::detail
