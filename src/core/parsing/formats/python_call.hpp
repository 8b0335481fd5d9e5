// A small reader of Python call syntax, shared by the pythonic, gemma and llama3 (built-in tools)
// formats:
//   get_weather(city="Paris", days=3)     [f(a=1), g()]     brave_search.call(query='x')
// Arguments are keyword arguments whose values are Python literals — str ('…', "…", triple-quoted,
// r/u prefixes), int, float, True/False/None, list, tuple, dict, nested — converted to JSON.
// JSON spellings true/false/null are accepted and listed as repairs. Linear; never throws.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "core/parsing/formats/text_scan.hpp"

namespace keel::detail {

// How a read went: lenient readings applied (each once), where it stopped, or why it failed.
struct PyReadStatus {
  std::vector<std::string> repairs;  // lenient readings applied, each once
  size_t end = 0;                    // just past the text that was read (on success)
  std::string error;                 // empty on success; otherwise what was expected, at which offset
  bool cut_off = false;              // the text ended before the syntax was complete
};

// A call with its keyword arguments as JSON object text, as the formats use it.
struct PyCallText {
  std::string name;  // dotted names are kept whole: "brave_search.call"
  std::string arguments = "{}";
  bool valid_utf8 = true;  // false: a string argument holds ill-formed UTF-8 (the text is then no JSON)
};
struct PyCallsText : PyReadStatus {
  std::vector<PyCallText> calls;
};

// One call `name(k=v, ...)` starting at text[pos] (leading whitespace allowed). Offsets in errors
// are positions in `text`.
PyCallsText read_python_call_text(std::string_view text, size_t pos);

// Adds the calls `read` holds to `out` (moved out of it), its repairs prefixed by `where`; when
// the reading failed, sets out's error to "<where>: <why>" and returns false.
bool commit_python_calls(PyCallsText& read, const Label& where, FormatResult& out);

// A bracketed, non-empty list of calls `[f(...), g(...)]` starting at text[pos] (a trailing comma
// is allowed, as in Python).
PyCallsText read_python_call_list_text(std::string_view text, size_t pos);

// The same with the arguments as documents, for callers that want to inspect them.
struct PyCall {
  std::string name;
  nlohmann::json arguments = nlohmann::json::object();  // discarded when a string held ill-formed UTF-8
};
struct PyCalls : PyReadStatus {
  std::vector<PyCall> calls;
};
PyCalls read_python_call(std::string_view text, size_t pos);
PyCalls read_python_call_list(std::string_view text, size_t pos);

}  // namespace keel::detail
