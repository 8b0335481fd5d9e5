#include "tools/script/pattern_cost.hpp"

namespace keel::detail {
namespace {

// Index just past the single-character class starting at `i` ('.', a literal, "%x" or "[set]").
size_t class_end(std::string_view p, size_t i) {
  if (p[i] == '%') return i + 2 <= p.size() ? i + 2 : p.size();
  if (p[i] != '[') return i + 1;
  size_t j = i + 1;
  if (j < p.size() && p[j] == '^') ++j;
  // The first character of a set is literal even when it is ']'.
  bool first = true;
  while (j < p.size()) {
    if (p[j] == ']' && !first) return j + 1;
    if (p[j] == '%') ++j;
    ++j;
    first = false;
  }
  return p.size();  // malformed set: Lua reports it; the bound does not matter then
}

// Whether anything but closing parentheses and a final '$' follows position `i`.
bool more_follows(std::string_view p, size_t i) {
  for (size_t j = i; j < p.size(); ++j) {
    if (p[j] == ')') continue;
    if (p[j] == '$' && j + 1 == p.size()) continue;
    return true;
  }
  return false;
}

}  // namespace

double pattern_cost(std::string_view p, size_t subject_length, bool anchorable) {
  const double n1 = static_cast<double>(subject_length) + 1.0;
  size_t i = 0;
  double cost = n1;
  double items = 1.0;  // each start position compares up to one character per item
  if (anchorable && !p.empty() && p[0] == '^') {
    cost = 1.0;
    i = 1;
  }
  while (i < p.size()) {
    const char c = p[i];
    if (c == '(' || c == ')') {
      ++i;
      continue;
    }
    items += 1.0;
    if (c == '%' && i + 1 < p.size()) {
      const char k = p[i + 1];
      if (k == 'b') {  // %bxy scans to the balancing character
        i += 4;
        if (more_follows(p, i)) cost *= n1;
        continue;
      }
      if (k == 'f') {  // %f[set] looks at one position
        i = class_end(p, i + 2);
        continue;
      }
      if (k >= '0' && k <= '9') {  // a back-reference compares a whole capture
        i += 2;
        if (more_follows(p, i)) cost *= n1;
        continue;
      }
    }
    i = class_end(p, i);
    if (i < p.size() && (p[i] == '*' || p[i] == '+' || p[i] == '-' || p[i] == '?')) {
      const char q = p[i];
      ++i;
      if (more_follows(p, i)) cost *= q == '?' ? 2.0 : n1;
    }
  }
  return cost * items;
}

double plain_find_cost(size_t subject_length, size_t needle_length) {
  if (needle_length > subject_length) return 1.0;
  const double starts = static_cast<double>(subject_length - needle_length) + 1.0;
  return starts * (static_cast<double>(needle_length) / 16.0 + 1.0);
}

}  // namespace keel::detail
