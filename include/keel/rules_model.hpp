// keel/rules_model.hpp — the built-in "rules" model: a deterministic stand-in for an LLM that
// does real work with keel's built-in tools for a few plain-English requests, and says plainly
// when it cannot. It needs no network, no weights and no API key, so `keel` works out of the box
// and tests and demos are reproducible (no randomness, no clock).
//
//   std::unique_ptr<keel::LlmClient> model = keel::make_rules_model();
//
// What it understands (the task is the first user message of the current turn):
//   "list the files in src", "what files are here", "ls"      -> fs_list {"path": "src"}
//   "read README.md", "cat x.json", "show me notes/a.txt"     -> fs_read {"path": ...}
//   "search for TODO in src", "find 'foo'", "grep error"      -> fs_search {"pattern": <RE2-escaped
//                                                                 literal>, "path": ...}
//   "count lines in main.cpp", "how many lines does a.txt have" -> fs_read, then counts
//   "what time is it", "what's the date today"               -> get_datetime {}
//   "sum the amount column of sales.csv", "average of column price in a.csv",
//   "write the total of the amount column of sales.csv to total.txt"
//                                                              -> a plan (keel/core/plan.hpp):
//        fs_read -> parse_csv -> math_aggregate (sum/avg/min/max/median/count) [-> fs_write],
//        whose reply the agent fills from the results ("The sum of the amount column in
//        sales.csv is 341.75 (from 4 of 4 rows)."); a step that fails halts the plan and the
//        model then answers with the failure.
// It makes one native tool call (id "rules_1"), and once that call's result is in the
// conversation it answers from it: a short lead line plus the tool output, "a.txt has 3 lines.",
// "It is <weekday>, <local ISO 8601 time>, time zone <zone>." (from get_datetime's "local:",
// "weekday:" and "timezone:" lines; other output is quoted whole), or "The fs_read call failed:
// <error>" when the result is not ok. Anything else, or a needed tool that is not offered (or tools
// disabled), gets a fixed answer saying what it can do and how to configure a real model.
//
// Assumption: an fs_read result's content is exactly the file's text (no header), except for the
// marker "[empty file: 0 bytes]" and a bracketed last line noting a cut ("[output truncated ...]");
// when the text was cut the answer says "has at least N lines" rather than guess.
//
// Thread-safety: stateless; complete() may be called from several threads at once.
#pragma once

#include <memory>

#include "keel/llm_client.hpp"

namespace keel {

// The answer the rules model gives to a request it cannot handle.
inline constexpr const char* kRulesModelCannotHandle =
    "The built-in rules model cannot handle this request. It understands: listing, reading and searching files, "
    "counting lines in a file, the sum, average, minimum, maximum or median of a CSV column, and the date and time. Configure a model with --model (e.g. --model "
    "ollama/qwen2.5:7b) to do more.";

// A new rules model. describe() is "rules (deterministic, no model)".
std::unique_ptr<LlmClient> make_rules_model();

}  // namespace keel
