// Test helper: the tool-call parser corpora as data, and the one check every consumer applies.
//
// Two corpora share one case schema:
//   test/core/protocol_corpus/*.json      — cases written for keel, one file per family;
//   test/core/real_outputs/<source>/*.json — real model outputs harvested from other projects'
//                                            parser tests and issue threads, each case citing
//                                            where it was found.
// File: {"source"?: "...", "family": "...", "tools"?: [OpenAI tools], "cases": [case...]}
// Case: {"name", "cite"?, "kind"?: "call"|"negative"|"broken", "format"?: "auto"|NAME, "tools"?,
//        "input", "expect": {"format"?, "calls"?, "content"?, "reasoning"?, "repairs"?,
//        "error"?: null|"substring"}, "differs"?: {"vllm"|"llama.cpp"|"ollama"|...: "what it does"}}
// The corpus test, the byte-split streaming test and the conformance table generator all read
// cases through load_parser_corpus() and judge them with check_parser_case().
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "keel/core/universal_parser.hpp"
#include "keel/tool_spec.hpp"

namespace keel::testing {

struct ParserCase {
  std::string file;    // relative to the corpus root, e.g. "vllm/hunyuan_a13b.json"
  std::string source;  // the file's "source" (where its cases come from); "keel" for protocol_corpus
  std::string family;  // the file's "family"
  std::string name;
  std::string cite;    // the case's own citation (test name, issue URL); may be empty in protocol_corpus
  std::string kind;    // "call", "negative" or "broken" (given, or read from the expectation)
  nlohmann::json data;  // the case as written
  std::vector<ToolSpec> tools;
  std::string load_error;  // set when the file or case is malformed; the case then fails
};

// Every case under `root` (recursively, files in sorted order). A malformed file or case becomes
// one case whose load_error says what is wrong.
std::vector<ParserCase> load_parser_corpus(const std::filesystem::path& root, bool require_citations);

// The corpora's roots in this checkout.
std::filesystem::path protocol_corpus_dir();
std::filesystem::path real_outputs_dir();

// Parses the case and lists every way the outcome differs from its expectation (empty: exact).
// A "broken" case must also name the offset of its failure ("offset N", N within the input).
std::vector<std::string> check_parser_case(const ParserCase& c, ParseOutcome* outcome = nullptr);

// The registered tools of the corpus when a file names none.
nlohmann::json default_corpus_tools();

}  // namespace keel::testing
