// GbnfBuilder: turns JSON Schemas into GBNF rules that share one set of JSON primitives (string,
// number, whitespace, free value). json_schema_gbnf uses one builder per schema; the tool-call
// grammar uses one for all the tools, so the primitives are written once.
//
// Thread-safety: not thread-safe; one builder per grammar being built.
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "keel/result.hpp"

namespace keel::detail {

// `s` as a GBNF rule name: lowercase letters, digits and dashes (anything else becomes '-').
std::string gbnf_name(std::string_view s);
// `s` as a GBNF string literal, "..." with escapes.
std::string gbnf_literal(std::string_view s);
// The parts joined.
std::string gbnf_cat(std::initializer_list<std::string_view> parts);

// A shared JSON primitive rule ("value", "object", "string", "ws", ...) and the primitives its
// body refers to ("" pads the list).
struct GbnfPrimitive {
  std::string_view name;
  std::array<std::string_view, 6> needs;
};
// All primitives, in the order they are written.
std::span<const GbnfPrimitive> gbnf_primitives();
// The body of primitive `which`, its rules named `prefix` + "-...".
// string_cap > 0: free strings hold at most that many characters.
std::string gbnf_primitive_body(std::string_view which, const std::string& prefix, int64_t string_cap = 0);

class GbnfBuilder {
 public:
  // Primitive rules are named `primitives` + "-string", "-ws", ...
  explicit GbnfBuilder(std::string_view primitives);
  // Strings without maxLength hold at most `cap` characters (0: no limit, the default).
  void set_string_cap(int64_t cap) { string_cap_ = cap; }

  // Adds the rules for the schema text; returns the name of its root rule (gbnf_name(prefix),
  // or that name with a number when taken).
  Result<std::string> add_schema(std::string_view schema, std::string_view prefix);

  // Reserves a rule name (gbnf_name(hint), numbered when taken) and defines it.
  std::string add_rule(std::string_view hint, std::string body);
  // The bounded-whitespace rule's name (marks it used).
  std::string ws();
  // All rules, one per line: in reservation order, then the primitives used.
  std::string text() const;

 private:
  int64_t string_cap_ = 0;
  using ojson = nlohmann::ordered_json;

  std::string reserve(std::string_view hint);
  void define(const std::string& name, std::string body);
  std::string prim(std::string_view which);

  // The body expression of a value matching `s`; nested objects, arrays and alternatives get
  // rules of their own named from `hint`.
  Result<std::string> body(const ojson& s, const std::string& hint, int depth);
  // A single-token reference to a value matching `s`: a rule name or a simple literal.
  Result<std::string> ref(const ojson& s, const std::string& hint, int depth);
  Result<std::string> typed(const ojson& s, std::string_view type, const std::string& hint, int depth);
  Result<std::string> object(const ojson& s, const std::string& hint, int depth);
  Result<std::string> array(const ojson& s, const std::string& hint, int depth);
  Result<std::string> string_body(const ojson& s);
  Result<std::string> resolve(const std::string& pointer, const std::string& hint, int depth);

  std::string primitives_;
  std::vector<std::pair<std::string, std::string>> rules_;  // name, body ("" until defined)
  std::map<std::string, size_t> index_;                     // name -> rules_ position
  std::set<std::string> used_;                              // primitives referenced
  // Per add_schema call: the schema and the rules of the $refs resolved so far.
  const ojson* root_ = nullptr;
  std::string root_name_;
  std::map<std::string, std::string> refs_;
};

}  // namespace keel::detail
