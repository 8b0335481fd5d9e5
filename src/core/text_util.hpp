// Small private helpers shared by the core's files (and the layers above through "core/...").
#pragma once

#include <cctype>
#include <string>
#include <string_view>

namespace keel::detail {

// `s` without leading and trailing ASCII whitespace.
inline std::string_view trim(std::string_view s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) return {};
  size_t e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

// ASCII lowercase copy.
inline std::string lowercase(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// std::visit with a set of lambdas.
template <class... Fs>
struct Overloaded : Fs... {
  using Fs::operator()...;
};
template <class... Fs>
Overloaded(Fs...) -> Overloaded<Fs...>;

}  // namespace keel::detail
