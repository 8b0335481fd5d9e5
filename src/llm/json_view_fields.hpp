// Reading fields of a provider's reply in place (JsonView, core/parsing/json/json_view.hpp) the way
// the document readings of openai_wire and the stream assembler read them, so both give the same
// values: text only from strings, integers only from integer numbers.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "core/parsing/json/json_view.hpp"

namespace keel::detail {

// Whether a number is there that int64_value() cannot read (the document reading then decides).
inline bool inexact_number(const std::optional<JsonView>& v) {
  return v && v->type() == JsonType::kNumber && !int64_value(*v);
}

inline bool absent_or_null(const std::optional<JsonView>& v) {
  return !v || v->is_null();
}

// A string member's decoded value; "" for anything else.
inline std::string string_or_empty(const std::optional<JsonView>& v) {
  return v && v->is_string() ? v->str() : std::string();
}

}  // namespace keel::detail
