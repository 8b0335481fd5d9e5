// Lenient JSON for small-model output: strict parse first; if that fails, a repair pass for the
// mistakes small models make, each fix recorded. Output cut off inside a key or value is never
// completed by guesswork: it is an error with a precise message.
//
// Repairs: trailing commas; single-quoted strings; Python literals True/False/None; unquoted
// keys; raw newlines and control characters inside strings; stray non-ASCII glyphs outside
// strings (smart quotes used as string delimiters become plain quotes); the invalid escape \'
// inside double-quoted strings; missing closing brackets/braces at the very end (only when the
// text ends after a complete value or after a ',', never inside a string, key, literal or number;
// a number that runs to the very end may be cut off, so it is an error too).
//
// Errors: cut-off text says where ("output was cut off inside a string value starting at offset
// 31", "output was cut off after key \"city\" before its value ..."); a structural mistake names
// the token and what was expected ("unexpected number at offset 9; expected ',' or '}'"); a bad
// token (invalid number, literal, escape or UTF-8) carries nlohmann's message and the offset in
// the original text. Nesting deeper than kLenientJsonMaxDepth is refused. Linear time and memory.
//
// Two forms: parse_json_lenient() builds an nlohmann document; parse_json_lenient_text() gives the
// strict JSON text of the value (the caller's own text when it was valid) for reading with
// JsonView, which is what the tool-call formats use: no document, no exception.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/parsing/json/json_scan.hpp"
#include "core/parsing/json/json_view.hpp"

namespace keel::detail {

struct LenientJson {
  std::optional<nlohmann::json> value;  // set on success
  std::vector<std::string> repairs;     // fixes applied, in order; empty when the text was valid JSON
  std::string error;                    // why it failed (value unset), e.g. "cut off inside a string at offset 41"
};

// Parses one JSON value that makes up all of `text` (surrounding whitespace allowed).
// Exactly one of `value` and `error` is set; `repairs` is empty on error.
LenientJson parse_json_lenient(std::string_view text);

// Tool-call arguments as a model sent them: an object is returned unchanged (no repairs); a
// string that holds a JSON object (possibly needing repair) is parsed, with the repair
// "arguments were given as an escaped JSON string" first and the string's own repairs after it;
// anything else (another type, a string that is not valid JSON or holds a non-object) is an error.
LenientJson unwrap_string_arguments(const nlohmann::json& value);

// parse_json_lenient() without a document. On success the value is strict JSON text: a span of the
// caller's text when that was valid (no copy, so that text must outlive the result), else of
// `repaired`.
struct LenientText {
  std::string repaired;              // the repair pass's output, when repairs were needed
  std::string_view input;            // the caller's text
  bool in_input = false;             // the value lies in `input` (it was valid JSON)
  std::size_t begin = 0, end = 0;    // the value's span
  std::vector<std::string> repairs;  // as LenientJson::repairs
  std::string error;                 // as LenientJson::error
  JsonIndex index;                   // the value's index, when it was recorded (see JsonIndex::usable())
  // Read instead of `index` when set: the caller's index of the value, which must outlive this.
  const JsonIndex* borrowed = nullptr;
  bool ok() const { return error.empty(); }
  // Back to a default-made LenientText, keeping the strings' room.
  void reset() {
    repaired.clear();
    input = {};
    in_input = false;
    begin = end = 0;
    repairs.clear();
    error.clear();
    index.reset();
    borrowed = nullptr;
  }
  // The value; it reads through the index, so this LenientText (and a borrowed index) must outlive
  // the view and not move.
  JsonView view() const {
    return JsonView((in_input ? input : std::string_view(repaired)).substr(begin, end - begin),
                    borrowed != nullptr ? borrowed : &index);
  }
};
// `known_invalid`: the caller's own strict scan already refused `text`, which then goes straight to
// the repair pass.
LenientText parse_json_lenient_text(std::string_view text, bool known_invalid = false);

// unwrap_string_arguments() for a JsonView: the arguments object as compact JSON text.
struct ArgumentsText {
  std::string text;                  // the object, compact; set when `error` is empty
  std::vector<std::string> repairs;  // as LenientJson::repairs
  std::string error;                 // as LenientJson::error
};
ArgumentsText unwrap_string_arguments_text(JsonView value);

}  // namespace keel::detail
