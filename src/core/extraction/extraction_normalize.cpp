// normalize_for_matching(): the one text form the extraction guard compares (its contract is in
// keel/core/extraction.hpp), and the variant that maps each output byte back to the input.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/extraction/extraction_detail.hpp"
#include "core/extraction/extraction_unicode.hpp"
#include "keel/core/extraction.hpp"

namespace keel {
namespace {

// One pass over `text`; with `map` set, also the input span of every output byte.
std::string normalize(std::string_view text, detail::MappedText* map) {
  std::string out;
  out.reserve(text.size());
  // The last character is held back until the next code point shows whether a combining mark
  // composes with it; case folding happens when it is written out.
  char32_t held = 0;
  bool holding = false;
  size_t held_from = 0;
  size_t held_to = 0;
  bool space_due = false;  // a whitespace run ended: one space goes before the next character
  size_t space_from = 0;
  size_t space_to = 0;
  const auto record = [&](size_t before, size_t from, size_t to) {
    if (map == nullptr) return;
    for (size_t i = before; i < out.size(); ++i) {
      map->from.push_back(static_cast<uint32_t>(from));
      map->to.push_back(static_cast<uint32_t>(to));
    }
  };
  const auto release = [&] {
    if (!holding) return;
    const size_t before = out.size();
    detail::append_case_folded(out, held);
    record(before, held_from, held_to);
    holding = false;
  };
  size_t pos = 0;
  while (pos < text.size()) {
    const size_t start = pos;
    char32_t cp = detail::decode_utf8(text, pos);
    if (detail::is_ignorable(cp)) continue;
    if (detail::is_unicode_space(cp)) {
      release();
      if (!space_due && !out.empty()) {
        space_due = true;
        space_from = start;
        space_to = pos;
      }
      continue;
    }
    cp = detail::ascii_punctuation(cp);
    if (holding && detail::is_combining_mark(cp)) {
      if (const char32_t composed = detail::compose_pair(held, cp)) {
        held = composed;
        held_to = pos;
        continue;
      }
    }
    release();
    if (space_due) {
      out += ' ';
      record(out.size() - 1, space_from, space_to);
      space_due = false;
    }
    held = cp;
    held_from = start;
    held_to = pos;
    holding = true;
  }
  release();
  return out;
}

}  // namespace

std::string normalize_for_matching(std::string_view text) {
  return normalize(text, nullptr);
}

namespace detail {

MappedText normalize_mapped(std::string_view input) {
  MappedText m;
  m.from.reserve(input.size());
  m.to.reserve(input.size());
  m.text = normalize(input, &m);
  return m;
}

}  // namespace detail
}  // namespace keel
