// libFuzzer target for parse_json_lenient and unwrap_string_arguments, and for the DOM-free
// readers beneath them (json_scan.hpp, json_view.hpp). Invariants: exactly one of value and error
// is set; a value dumps (so it holds well-formed UTF-8) and re-parses strictly to itself; repairs
// come only with a value; error messages are well-formed UTF-8 (they travel inside JSON events);
// valid JSON gets no repairs; the strict scanner accepts exactly what nlohmann accepts (within
// the depth limit); the text form (parse_json_lenient_text) agrees with the document form, and
// compacted text parses to the same value.
// Build: clang++-14 -std=c++20 -g -O1 -fsanitize=fuzzer,address,undefined -I include -I src
//        src/core/json_repair*.cpp fuzz/json_repair_fuzz.cpp -o /tmp/jrfuzz
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "core/parsing/json/json_repair.hpp"
#include "core/parsing/json/json_scan.hpp"
#include "core/parsing/json/json_view.hpp"

namespace {

using keel::detail::LenientJson;

void check(const LenientJson& r) {
  if (r.value.has_value() == !r.error.empty()) std::abort();  // never both, never neither
  if (!r.value) {
    if (!r.repairs.empty()) std::abort();
    // Must not throw: an ill-formed message would make dump() throw type_error 316.
    (void)nlohmann::json(r.error).dump();
    return;
  }
  const std::string dumped = r.value->dump();  // throws (and so aborts) on ill-formed UTF-8
  if (nlohmann::json::parse(dumped, nullptr, false) != *r.value) std::abort();
  for (const auto& s : r.repairs) {
    if (s.empty()) std::abort();
    (void)nlohmann::json(s).dump();
  }
}

// Whether arrays/objects nest deeper than the scanner's limit (outside strings).
bool deeper_than_limit(std::string_view t) {
  size_t depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < t.size(); ++i) {
    if (in_string) {
      if (t[i] == '\\')
        ++i;
      else if (t[i] == '"')
        in_string = false;
    } else if (t[i] == '"') {
      in_string = true;
    } else if (t[i] == '[' || t[i] == '{') {
      if (++depth > keel::detail::kLenientJsonMaxDepth) return true;
    } else if ((t[i] == ']' || t[i] == '}') && depth > 0) {
      --depth;
    }
  }
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const LenientJson r = keel::detail::parse_json_lenient(text);
  check(r);
  // Valid JSON (within the depth limit) is taken as it is.
  const nlohmann::json strict = nlohmann::json::parse(text, nullptr, false);
  if (!strict.is_discarded() && r.value && (!r.repairs.empty() || *r.value != strict)) std::abort();
  // The scanner and nlohmann agree on what is valid JSON.
  const keel::detail::StrictJson scanned = keel::detail::scan_strict_json(text);
  if (scanned.ok != !strict.is_discarded() && !deeper_than_limit(text)) std::abort();
  // The text form gives the same outcome, and its value (compacted too) is the same value.
  const keel::detail::LenientText t = keel::detail::parse_json_lenient_text(text);
  if (t.ok() != r.value.has_value() || t.error != r.error || t.repairs != r.repairs) std::abort();
  if (r.value) {
    const keel::detail::JsonView v = t.view();
    if (nlohmann::json::parse(v.raw(), nullptr, false) != *r.value) std::abort();
    std::string compact;
    keel::detail::append_compact_json(compact, v.raw());
    if (nlohmann::json::parse(compact, nullptr, false) != *r.value) std::abort();
    if (v.is_string() && v.str() != r.value->get<std::string>()) std::abort();
  }
  // The same text handed over as a string of arguments; an object is passed through unchanged.
  const LenientJson args = keel::detail::unwrap_string_arguments(nlohmann::json(std::string(text)));
  check(args);
  if (args.value && (!args.value->is_object() || args.repairs.empty())) std::abort();
  if (r.value && r.value->is_object()) {
    const LenientJson same = keel::detail::unwrap_string_arguments(*r.value);
    if (!same.value || *same.value != *r.value || !same.repairs.empty()) std::abort();
  }
  return 0;
}
