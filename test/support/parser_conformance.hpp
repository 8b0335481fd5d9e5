// Test helper: the published parser conformance table (docs/parser-conformance.md), made from the
// corpora alone so it cannot drift from what the tests assert.
#pragma once

#include <string>
#include <vector>

#include "support/parser_corpus.hpp"

namespace keel::testing {

// The whole document: per family the cases, how many keel reads exactly (calls, non-calls and
// reported failures apart), the cases each other project's tests cover and where keel differs.
std::string conformance_markdown(const std::vector<ParserCase>& cases);

}  // namespace keel::testing
