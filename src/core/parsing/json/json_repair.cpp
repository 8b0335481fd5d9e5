// parse_json_lenient(_text): strict validation (json_scan.hpp), else the repair pass
// (json_repair_pass.cpp) and a strict validation of its output; nlohmann, through its SAX
// interface and without exceptions, only words what is wrong with text the pass could not fix.
// Plus the wording of the repair log and unwrap_string_arguments(_text).
#include "core/parsing/json/json_repair.hpp"

#include <algorithm>
#include <exception>
#include <iterator>

#include "core/parsing/json/json_repair_pass.hpp"
#include "core/parsing/json/json_repair_text.hpp"
#include "core/text/text_util.hpp"

namespace keel::detail {
namespace {

using json_repair::Fix;
using nlohmann::json;

// nlohmann's account of why `text` is not JSON, read through its SAX interface (no exception).
struct InvalidJson {
  std::size_t byte = 0;      // where the parser stopped (a parse_error's byte)
  std::string what;          // the exception's text
  bool parse_error = false;  // false: another kind, e.g. out_of_range 406 for a number overflow
};

class ErrorSax {
 public:
  bool null() { return true; }
  bool boolean(bool) { return true; }
  bool number_integer(json::number_integer_t) { return true; }
  bool number_unsigned(json::number_unsigned_t) { return true; }
  bool number_float(json::number_float_t, const json::string_t&) { return true; }
  bool string(json::string_t&) { return true; }
  bool binary(json::binary_t&) { return true; }
  bool start_object(std::size_t) { return true; }
  bool key(json::string_t&) { return true; }
  bool end_object() { return true; }
  bool start_array(std::size_t) { return true; }
  bool end_array() { return true; }
  bool parse_error(std::size_t, const std::string&, const json::exception& e) {
    error.what = e.what();
    if (const auto* pe = dynamic_cast<const json::parse_error*>(&e)) {
      error.parse_error = true;
      error.byte = pe->byte;
    }
    return false;
  }
  InvalidJson error;
};

InvalidJson describe_invalid(std::string_view text) {
  ErrorSax sax;
  json::sax_parse(text, &sax);
  return std::move(sax.error);
}

// `s` made safe to show and to put in JSON: ill-formed UTF-8 and control bytes become '?'.
std::string printable(std::string&& s) {
  const bool plain = std::all_of(s.begin(), s.end(), [](char c) { return c >= 0x20 && c < 0x7F; });
  if (plain) return std::move(s);
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const size_t len = utf8_sequence_length(s, i);
    const bool control = len == 1 && (static_cast<unsigned char>(s[i]) < 0x20 || s[i] == 0x7F);
    if (len == 0 || control) {
      out += '?';
      ++i;
    } else {
      out.append(s.substr(i, len));
      i += len;
    }
  }
  return out;
}

// Whether nlohmann's account of the pass's output would be "syntax error while parsing value -
// invalid literal" at the word the pass stopped at, without running it (it builds a string per
// token and an exception): its lexer reads any word that does not begin with a JSON literal as an
// invalid literal, and the text before the word is one it accepts when that text, with null in
// place of the word and its containers closed, is strictly valid JSON (the strict scan accepts
// exactly what nlohmann accepts).
bool word_is_invalid_literal(const json_repair::PassResult& pass) {
  if (!pass.token_error || pass.word_size == 0) return false;
  const std::string_view word = std::string_view(pass.text).substr(pass.text.size() - pass.word_size);
  for (std::string_view literal : {"true", "false", "null"}) {
    if (word.starts_with(literal)) return false;
  }
  std::string probe;
  probe.reserve(pass.text.size() - pass.word_size + 4 + pass.closers_at_word.size());
  probe.append(pass.text, 0, pass.text.size() - pass.word_size);
  probe += "null";
  probe += pass.closers_at_word;
  return scan_strict_json(probe).ok;
}

// nlohmann's parse_error text without its "[json.exception...] parse error at line L, column C: "
// prefix and "; last read: '...'" suffix: both describe the repaired text, not the caller's.
std::string parse_reason(std::string_view what) {
  const size_t column = what.find("column ");
  const size_t colon = column == std::string_view::npos ? what.find("] ") : what.find(": ", column);
  if (colon != std::string_view::npos) what.remove_prefix(colon + 2);
  if (const size_t last = what.find("; last read:"); last != std::string_view::npos) what = what.substr(0, last);
  return std::string(what);
}

}  // namespace

namespace json_repair {

void RepairLog::add(Fix kind, size_t n) {
  auto& count = counts[static_cast<size_t>(kind)];
  if (count == 0) order.push_back(kind);
  count += n;
}

size_t PassResult::input_offset(size_t out_index, size_t input_size) const {
  auto it = std::upper_bound(offsets.begin(), offsets.end(), out_index,
                             [](size_t o, const std::pair<size_t, size_t>& m) { return o < m.first; });
  size_t in = out_index;
  if (it != offsets.begin()) {
    --it;
    in = it->second + (out_index - it->first);
  }
  return std::min(in, input_size);
}

}  // namespace json_repair

std::vector<std::string> json_repair::RepairLog::messages() const {
  // Each line is appended piece by piece into its own string, with room for the usual line made
  // first: one allocation per line.
  std::vector<std::string> out;
  out.reserve(order.size());
  for (Fix kind : order) {
    if (kind == Fix::kCount) continue;
    const size_t n = counts[static_cast<size_t>(kind)];
    std::string& line = out.emplace_back();
    line.reserve(96);
    auto counted_into = [&line](size_t k, std::string_view one, std::string_view many) {
      if (k == 1) {
        line += one;
      } else {
        line += Decimal(k);
        line += ' ';
        line += many;
      }
    };
    switch (kind) {
      case Fix::kTrailingComma:
        line += "removed ";
        counted_into(n, "a trailing comma", "trailing commas");
        break;
      case Fix::kSingleQuotes:
        line += "converted ";
        counted_into(n, "a single-quoted string", "single-quoted strings");
        line += " to double quotes";
        break;
      case Fix::kSmartQuotes:
        line += "replaced smart quotes around ";
        counted_into(n, "a string", "strings");
        line += " with plain double quotes";
        break;
      case Fix::kPythonLiteral: {
        static constexpr std::string_view kPython[] = {"True", "False", "None"}, kJson[] = {"true", "false", "null"};
        line += "replaced ";
        counted_into(n, "Python literal", "Python literals");
        std::string to;
        for (unsigned b = 0; b < 3; ++b) {
          if ((python_seen & (1u << b)) == 0) continue;
          line += to.empty() ? " " : "/";
          line += kPython[b];
          to += to.empty() ? " with " : "/";
          to += kJson[b];
        }
        line += to;
        break;
      }
      case Fix::kUnquotedKey: {
        if (n == 1) {
          line += "quoted unquoted key '";
          line += keys.front();
          line += '\'';
          break;
        }
        line += "quoted ";
        line += Decimal(n);
        line += " unquoted keys (";
        for (size_t k = 0; k < keys.size(); ++k) {
          line += k == 0 ? "'" : ", '";
          line += keys[k];
          line += '\'';
        }
        line += n > keys.size() ? ", ...)" : ")";
        break;
      }
      case Fix::kControlChar: {
        if (n == 1) {
          line += "escaped a raw ";
          line += newlines ? "newline" : tabs ? "tab" : "control character";
          line += " inside a string";
          break;
        }
        line += "escaped ";
        line += Decimal(n);
        line += " raw control characters inside strings (";
        bool first = true;
        auto part = [&](size_t k, std::string_view one, std::string_view many) {
          if (k == 0) return;
          if (!first) line += ", ";
          first = false;
          if (k == 1) {
            line += "1 ";
            line += one;
          } else {
            counted_into(k, one, many);
          }
        };
        part(newlines, "newline", "newlines");
        part(tabs, "tab", "tabs");
        part(n - newlines - tabs, "other", "others");
        line += ')';
        break;
      }
      case Fix::kQuoteEscape:
        line += "replaced ";
        counted_into(n, "the invalid escape \\'", "invalid escapes \\'");
        line += " with ' inside ";
        line += n == 1 ? "a string" : "strings";
        break;
      case Fix::kStrayNonAscii:
        line += "removed ";
        counted_into(n, "a stray non-ASCII character", "stray non-ASCII characters");
        line += " outside strings";
        break;
      case Fix::kClosedBrackets:
        line += "closed ";
        counted_into(n, "an unclosed bracket", "unclosed brackets");
        line += " at the end (added \"";
        line += closers;
        line += "\")";
        break;
      case Fix::kCount:
        break;
    }
  }
  return out;
}

LenientText parse_json_lenient_text(std::string_view text, bool known_invalid) {
  LenientText out;
  try {
    out.input = text;
    const StrictJson strict = known_invalid ? StrictJson{} : scan_strict_json(text, &out.index);
    if (strict.ok) {
      out.in_input = true;
      out.begin = strict.begin;
      out.end = strict.end;
      return out;
    }
    json_repair::PassResult pass = json_repair::run_repair_pass(text);
    if (!pass.error.empty()) {
      out.error = printable(std::move(pass.error));
      return out;
    }
    const StrictJson repaired = scan_strict_json(pass.text, &out.index);
    if (repaired.ok && pass.token_error) {  // not expected: the pass only stops on a token nlohmann rejects
      out.error = "invalid token at offset " + std::to_string(pass.token_offset);
      return out;
    }
    if (repaired.ok) {
      out.repaired = std::move(pass.text);
      out.begin = repaired.begin;
      out.end = repaired.end;
      out.repairs = pass.log.messages();
      return out;
    }
    if (word_is_invalid_literal(pass)) {
      out.error = concat({"invalid JSON at offset ", Decimal(pass.token_offset),
                          ": syntax error while parsing value - invalid literal"});
      return out;
    }
    const InvalidJson e = describe_invalid(pass.text);
    if (!e.parse_error) {  // a number too large for a double
      out.error = printable("could not parse JSON: " + e.what);
      return out;
    }
    // A bad token the pass stopped at is named by where it starts; otherwise (ill-formed UTF-8,
    // a lone surrogate escape) by the byte nlohmann stopped at, mapped back to the input.
    const size_t at =
        pass.token_error ? pass.token_offset : pass.input_offset(e.byte > 0 ? e.byte - 1 : 0, text.size());
    out.error = printable(concat({"invalid JSON at offset ", Decimal(at), ": ", parse_reason(e.what)}));
  } catch (const std::exception& e) {  // allocation failure
    out = LenientText{};
    out.error = printable(std::string("could not parse JSON: ") + e.what());
  }
  return out;
}

LenientJson parse_json_lenient(std::string_view text) {
  LenientJson out;
  LenientText t = parse_json_lenient_text(text);
  if (!t.ok()) {
    out.error = std::move(t.error);
    return out;
  }
  try {
    out.value = json::parse(t.view().raw());
    out.repairs = std::move(t.repairs);
  } catch (const std::exception& e) {  // allocation failure
    out = LenientJson{};
    out.error = printable(std::string("could not parse JSON: ") + e.what());
  }
  return out;
}

ArgumentsText unwrap_string_arguments_text(JsonView value) {
  ArgumentsText out;
  if (value.is_object()) {
    value.append_compact(out.text);
    return out;
  }
  if (!value.is_string()) {
    out.error = "arguments must be a JSON object, got " + std::string(value.type_name());
    return out;
  }
  const std::string text = value.str();
  LenientText inner = parse_json_lenient_text(text);
  const JsonView v = inner.ok() ? inner.view() : JsonView();
  if (!inner.ok()) {
    out.error = "arguments were given as a string that is not valid JSON: " + inner.error;
  } else if (!v.is_object()) {
    out.error = "arguments were given as a string holding a JSON " + std::string(v.type_name()) + ", not an object";
  } else {
    v.append_compact(out.text);
    out.repairs.push_back("arguments were given as an escaped JSON string");
    out.repairs.insert(out.repairs.end(), std::make_move_iterator(inner.repairs.begin()),
                       std::make_move_iterator(inner.repairs.end()));
  }
  return out;
}

LenientJson unwrap_string_arguments(const json& value) {
  LenientJson out;
  if (value.is_object()) {
    out.value = value;
    return out;
  }
  if (!value.is_string()) {
    out.error = "arguments must be a JSON object, got " + std::string(value.type_name());
    return out;
  }
  LenientJson inner = parse_json_lenient(value.get_ref<const std::string&>());
  if (!inner.value) {
    out.error = "arguments were given as a string that is not valid JSON: " + inner.error;
  } else if (!inner.value->is_object()) {
    out.error =
        "arguments were given as a string holding a JSON " + std::string(inner.value->type_name()) + ", not an object";
  } else {
    out.value = std::move(inner.value);
    out.repairs.push_back("arguments were given as an escaped JSON string");
    out.repairs.insert(out.repairs.end(), std::make_move_iterator(inner.repairs.begin()),
                       std::make_move_iterator(inner.repairs.end()));
  }
  return out;
}

}  // namespace keel::detail
