// Token counts and indexes from a provider's JSON numbers. Providers have sent counts as floats
// ("prompt_tokens": 12.0); a float outside int64's range (1e20) cannot be cast without undefined
// behaviour, and neither it nor an unsigned integer beyond int64 is a count a reply can have.
#pragma once

#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>

namespace keel::detail {

// `value` as a count: integers as they are, fractions truncated; 0 for anything else (not a
// number, or outside int64's range).
inline int64_t number_as_count(const nlohmann::json& value) {
  if (value.is_number_unsigned()) {
    const auto u = value.get<std::uint64_t>();
    return u <= static_cast<std::uint64_t>(std::numeric_limits<int64_t>::max()) ? static_cast<int64_t>(u) : 0;
  }
  if (value.is_number_integer()) return value.get<int64_t>();
  if (value.is_number_float()) {
    const double d = value.get<double>();
    constexpr double kLimit = 9223372036854775808.0;  // 2^63
    return d >= -kLimit && d < kLimit ? static_cast<int64_t>(d) : 0;
  }
  return 0;
}

}  // namespace keel::detail
