// Bearer token parsing and comparison; see bearer_token.hpp.
#include "server/bearer_token.hpp"

#include "core/text/text_util.hpp"

namespace keel::server {
namespace {

using keel::detail::trim;

}  // namespace

bool same_secret(std::string_view given, std::string_view expected) {
  unsigned diff = given.size() == expected.size() ? 0U : 1U;
  for (size_t i = 0; i < expected.size(); ++i) {
    const unsigned char g = i < given.size() ? static_cast<unsigned char>(given[i]) : 0U;
    diff |= static_cast<unsigned>(g ^ static_cast<unsigned char>(expected[i]));
  }
  return diff == 0 && !expected.empty();
}

std::string_view bearer_credential(std::string_view authorization) {
  authorization = trim(authorization);
  constexpr std::string_view kScheme = "bearer ";
  if (authorization.size() <= kScheme.size()) return {};
  for (size_t i = 0; i < kScheme.size(); ++i) {
    if ((authorization[i] | 0x20) != kScheme[i]) return {};
  }
  return trim(authorization.substr(kScheme.size()));
}

}  // namespace keel::server
