// Reading fields of a provider's reply in place (JsonView, core/parsing/json/json_view.hpp) the way
// the document readings of openai_wire and the stream assembler read them, so both give the same
// values: text only from strings, integers only from integer numbers.
#pragma once

#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <system_error>

#include "core/parsing/json/json_view.hpp"

namespace keel::detail {

// An integer number's value; nothing for any other value (a fraction, an exponent, too large).
inline std::optional<int64_t> integer_of(const JsonView& value) {
  if (value.type() != JsonType::kNumber) return std::nullopt;
  const std::string_view raw = value.raw();
  int64_t out = 0;
  const auto [end, ec] = std::from_chars(raw.data(), raw.data() + raw.size(), out);
  if (ec != std::errc() || end != raw.data() + raw.size()) return std::nullopt;
  return out;
}

// Whether a number is there that integer_of() cannot read (the document reading then decides).
inline bool inexact_number(const std::optional<JsonView>& v) {
  return v && v->type() == JsonType::kNumber && !integer_of(*v);
}

inline bool absent_or_null(const std::optional<JsonView>& v) {
  return !v || v->is_null();
}

// A string member's decoded value; "" for anything else.
inline std::string string_or_empty(const std::optional<JsonView>& v) {
  return v && v->is_string() ? v->str() : std::string();
}

}  // namespace keel::detail
