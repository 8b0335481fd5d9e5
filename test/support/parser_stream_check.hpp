// Test helper: streams a parser corpus case through CallStreamFilter and checks its promises —
// the text shown while streaming is the start of the parsed answer, shown plus finish()'s rest is
// the whole answer, and the names announced are the parsed calls' names in order.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "keel/core/universal_parser.hpp"
#include "support/parser_corpus.hpp"

namespace keel::testing {

struct StreamedCase {
  std::string shown;
  std::vector<std::string> announced_early;  // while streaming
  std::vector<std::string> announced;        // in all, finish() included
  std::string rest;
  ParseOutcome outcome;
};

// Streams `c`'s input as `pieces` (which concatenate to it).
StreamedCase stream_case(const UniversalToolCallParser& parser, const ParserCase& c,
                         const std::vector<std::string_view>& pieces);

// Empty when `s` kept every promise; otherwise what went wrong.
std::string broken_stream_promise(const StreamedCase& s);

// Streams `c` one byte at a time and split in two at every byte; the first broken promise with
// where the input was cut, or empty. `announced_early` counts names announced byte by byte.
std::string check_streaming(const UniversalToolCallParser& parser, const ParserCase& c, size_t* announced_early = nullptr);

}  // namespace keel::testing
