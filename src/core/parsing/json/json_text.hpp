// JSON text written directly, without a document in between: a model call's request body and the
// decisions a host reads at every step (the WebAssembly core's) are written in one linear pass, so a
// long conversation is not copied into a JSON tree each round; building and dumping nlohmann
// documents cost more than the machine's own work. The text is the one nlohmann's dump() writes for
// the same values (object keys sorted bytewise, no spaces, the same escapes and number forms), so
// either path gives a reader the same bytes.
//
// Thread-safety: pure functions; a SortedJsonObject is used by one thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace keel::detail {

// `s` as a JSON string literal. Ill-formed UTF-8 (binary tool output, say) becomes U+FFFD, one per
// byte, so the text is always JSON.
void append_json_string(std::string& out, std::string_view s);
// Integers as digits; doubles in nlohmann's shortest round-trip form ("0.7", "1.0", "1e+21").
void append_json_int(std::string& out, std::int64_t v);
void append_json_double(std::string& out, double v);
inline void append_json_bool(std::string& out, bool v) {
  out += v ? "true" : "false";
}
// "key": — the comma before it is the caller's.
void append_json_key(std::string& out, std::string_view key);
// "k1":"v1","k2":"v2"... — members of an object whose values are strings, written in the order
// given (sorted, to match a document's dump); the braces and any comma before them are the caller's.
void append_string_members(std::string& out,
                           std::initializer_list<std::pair<std::string_view, std::string_view>> members);

// Writes an array of `items`, each by write(out, item); "[]" when there are none.
template <typename Items, typename Write>
void append_json_array(std::string& out, const Items& items, Write write) {
  out += '[';
  bool first = true;
  for (const auto& item : items) {
    if (!first) out += ',';
    first = false;
    write(out, item);
  }
  out += ']';
}

// True when `text` is one complete JSON value (validated without building a document).
bool is_json_value(std::string_view text);

// An object whose members are written in any order and come out sorted by key, as nlohmann orders
// them: member(key) answers the text to append that member's value to.
class SortedJsonObject {
 public:
  // `key` must outlive the object (literals, in practice). Each key once.
  std::string& member(std::string_view key);
  // Writes {"a":...,"b":...} to `out`.
  void append_to(std::string& out) const;

 private:
  struct Member {
    std::string_view key;
    std::size_t begin;  // its value: values_[begin, the next member's begin)
  };
  std::string values_;
  std::vector<Member> members_;
};

}  // namespace keel::detail
