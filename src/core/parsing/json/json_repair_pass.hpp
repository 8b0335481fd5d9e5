// The repair pass behind parse_json_lenient (json_repair.hpp): one linear scan that rewrites
// almost-JSON into strict JSON, tracking the grammar with an explicit stack (no recursion).
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/text/small_vector.hpp"

namespace keel::detail::json_repair {

// The kinds of fix the pass makes; each becomes one human-readable line.
enum class Fix : unsigned char {
  kTrailingComma,
  kSingleQuotes,
  kSmartQuotes,
  kPythonLiteral,
  kUnquotedKey,
  kControlChar,
  kQuoteEscape,
  kStrayNonAscii,
  kClosedBrackets,
  kCount
};

inline constexpr std::size_t kFixKinds = static_cast<std::size_t>(Fix::kCount);

// Counts per kind, in the order the kinds first occurred, plus the details the messages name.
// (Its methods and PassResult::input_offset live in json_repair.cpp, beside the wording.)
struct RepairLog {
  std::array<std::size_t, static_cast<std::size_t>(Fix::kCount)> counts{};
  SmallVector<Fix, kFixKinds> order;   // kinds by first occurrence
  std::vector<std::string> keys;       // the first few unquoted keys, for the message
  std::size_t newlines = 0, tabs = 0;  // split of kControlChar
  unsigned python_seen = 0;            // bit 0 True, 1 False, 2 None
  std::string closers;                 // the brackets appended at the end, in order

  void add(Fix kind, std::size_t n = 1);
  std::vector<std::string> messages() const;  // one line per kind, in `order`
};

struct PassResult {
  std::string text;  // the rewritten text (a prefix of it when `token_error`)
  RepairLog log;
  std::string error;             // set when the input is cut off, too deep or structurally wrong
  bool token_error = false;      // `text` ends with a bad token: strict-parse it for nlohmann's message
  std::size_t token_offset = 0;  // where that token (or bad escape) starts in the input
  // When the bad token is a word where a value belongs (an unquoted string, say): its size, and the
  // brackets that close the containers open around it; 0 for any other bad token.
  std::size_t word_size = 0;
  std::string closers_at_word;
  // (output index, input index) at each point where the two stop moving in step.
  std::vector<std::pair<std::size_t, std::size_t>> offsets;

  // The input offset that produced output byte `out_index` (clamped to the input's size).
  std::size_t input_offset(std::size_t out_index, std::size_t input_size) const;
};

PassResult run_repair_pass(std::string_view text);

}  // namespace keel::detail::json_repair
