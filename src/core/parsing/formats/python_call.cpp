#include "core/parsing/formats/python_call.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <unordered_set>

#include "core/parsing/formats/text_scan.hpp"
#include "core/parsing/json/json_scan.hpp"
#include "core/parsing/json/json_view.hpp"
#include "core/text/text_util.hpp"

namespace keel::detail {
namespace {

using nlohmann::json;

constexpr int kMaxDepth = 64;

bool ident_start(char c) {
  return is_alpha(c) || c == '_';
}
bool ident_char(char c) {
  return is_alpha(c) || is_digit(c) || c == '_';
}

// The keywords of one call, to refuse a repeated one: a short list, a hash set past a few.
class Keywords {
 public:
  // False when `k` was seen before.
  bool insert(std::string_view k) {
    if (count_ < few_.size()) {
      for (size_t i = 0; i < count_; ++i) {
        if (few_[i] == k) return false;
      }
      few_[count_++] = k;
      return true;
    }
    if (set_.empty()) set_.insert(few_.begin(), few_.end());
    return set_.insert(k).second;
  }

 private:
  std::array<std::string_view, 8> few_;
  size_t count_ = 0;
  std::unordered_set<std::string_view> set_;
};

// Recursive-descent reader writing JSON text; every character is looked at a bounded number of
// times (a tuple's first element is moved once, when the comma shows it is a tuple).
class Reader {
 public:
  Reader(std::string_view s, size_t pos, PyCallsText& out) : s_(s), i_(pos), out_(out) {}
  size_t pos() const { return i_; }

  bool call(PyCallText& c) {
    ws();
    c.name = ident(true);
    if (c.name.empty()) return expected("a function name");
    ws();
    if (!eat('(')) return expected("'(' after '" + c.name + "'");
    Keywords keywords;
    std::string& args = c.arguments;
    args.reserve(64);  // room for the usual few arguments: no regrowth as they are added
    args = "{";
    valid_utf8_ = true;
    bool ok = items(')', "the call to ", c.name, [&] {
      size_t arg_at = i_;
      std::string_view key = ident_view(false);
      ws();
      if (!key.empty() && at_end()) return expected("'=' after '" + std::string(key) + "'");
      if (key.empty() || s_[i_] != '=' || (i_ + 1 < s_.size() && s_[i_ + 1] == '=')) {
        return fail("positional argument at offset " + std::to_string(arg_at) + " in the call to '" + c.name +
                    "': keyword arguments (name=value) are expected");
      }
      ++i_;
      const size_t mark = args.size();
      if (mark > 1) args += ',';
      append_quoted_json(args, key);  // an identifier: ASCII
      args += ':';
      if (!value(args, 0)) return false;
      if (!keywords.insert(key)) {
        return fail("keyword '" + std::string(key) + "' is repeated at offset " + std::to_string(arg_at) +
                    " in the call to '" + c.name + "'");
      }
      return true;
    });
    args += '}';
    c.valid_utf8 = valid_utf8_;
    return ok;
  }

  bool list() {
    ws();
    size_t open = i_;
    if (!eat('[')) return expected("'['");
    out_.calls.reserve(4);  // parallel calls come in small groups: one allocation
    bool ok = items(']', "the list of calls", {}, [&] {
      PyCallText c;
      if (!call(c)) return false;
      out_.calls.push_back(std::move(c));
      return true;
    });
    if (ok && out_.calls.empty()) return fail("the list at offset " + std::to_string(open) + " is empty");
    return ok;
  }

 private:
  bool at_end() const { return i_ >= s_.size(); }
  std::string at() const { return std::to_string(i_); }
  void ws() {
    while (!at_end() && is_space(s_[i_])) ++i_;
  }
  bool fail(std::string msg) {
    if (out_.error.empty()) out_.error = std::move(msg);
    return false;
  }
  // A failure at the current position: cut off when the text ended, else what was found.
  bool expected(const std::string& what) {
    if (at_end()) {
      out_.cut_off = true;
      return fail("cut off at offset " + at() + " where " + what + " was expected");
    }
    return fail("expected " + what + " at offset " + at() + ", found " + shown_char(s_, i_));
  }
  bool eat(char c) {
    if (at_end() || s_[i_] != c) return false;
    ++i_;
    return true;
  }
  // Comma-separated items up to `close` (a trailing comma allowed); `item` reads one. `in` (and
  // `name`, quoted after it) say what is read, for messages.
  template <class Item>
  bool items(char close, std::string_view in, std::string_view name, Item&& item) {
    auto what = [&] { return std::string(in) + (name.empty() ? "" : "'" + std::string(name) + "'"); };
    while (true) {
      ws();
      if (eat(close)) return true;
      if (at_end()) return expected(std::string("'") + close + "' closing " + what());
      if (!item()) return false;
      ws();
      if (eat(',')) continue;
      if (eat(close)) return true;
      return expected(std::string("',' or '") + close + "' in " + what());
    }
  }
  void repair(const char* what) {
    if (std::find(out_.repairs.begin(), out_.repairs.end(), what) == out_.repairs.end())
      out_.repairs.emplace_back(what);
  }
  // An identifier; with `dotted`, also a.b.c.
  std::string_view ident_view(bool dotted) {
    size_t b = i_;
    while (!at_end() && ident_start(s_[i_])) {
      while (!at_end() && ident_char(s_[i_])) ++i_;
      if (!dotted || at_end() || s_[i_] != '.' || i_ + 1 >= s_.size() || !ident_start(s_[i_ + 1])) break;
      ++i_;
    }
    return s_.substr(b, i_ - b);
  }
  std::string ident(bool dotted) { return std::string(ident_view(dotted)); }

  // Appends the JSON text of the Python literal at i_ to `v`.
  bool value(std::string& v, int depth) {
    if (depth > kMaxDepth) return fail("values nested deeper than 64 levels at offset " + at());
    ws();
    if (at_end()) return expected("a value");
    char c = s_[i_];
    bool prefixed = (c == 'r' || c == 'R' || c == 'u' || c == 'U') && i_ + 1 < s_.size() &&
                    (s_[i_ + 1] == '"' || s_[i_ + 1] == '\'');
    if (c == '"' || c == '\'' || prefixed) return string(v);
    if (is_digit(c) || c == '-' || c == '+' || (c == '.' && i_ + 1 < s_.size() && is_digit(s_[i_ + 1]))) {
      return number(v);
    }
    if (c == '[') {
      ++i_;
      return sequence(v, ']', depth);
    }
    if (c == '(') return tuple(v, depth);
    if (c == '{') {
      ++i_;
      return dict(v, depth);
    }
    if (!ident_start(c)) return expected("a value");
    size_t word_at = i_;
    std::string_view word = ident_view(false);
    if (at_end()) return expected("a value (the text ends inside '" + std::string(word) + "')");
    if (word == "True" || word == "False" || word == "None") {
      v += word == "None" ? "null" : word == "True" ? "true" : "false";
      return true;
    }
    if (word == "true" || word == "false" || word == "null") {
      repair("read JSON literals true/false/null as Python True/False/None");
      v += word;
      return true;
    }
    return fail("'" + std::string(word) + "' at offset " + std::to_string(word_at) +
                " is not a Python literal (strings need quotes; nested calls are not allowed)");
  }

  bool string(std::string& v) {
    size_t start = i_;
    bool raw = false;
    if (s_[i_] != '"' && s_[i_] != '\'') {
      char prefix = s_[i_++];
      raw = prefix == 'r' || prefix == 'R';
    }
    char q = s_[i_];
    bool triple = i_ + 2 < s_.size() && s_[i_ + 1] == q && s_[i_ + 2] == q;
    i_ += triple ? 3 : 1;
    if (!triple) {  // the usual one-line string without escapes: quoted straight from the text
      size_t run = i_;
      while (run < s_.size() && s_[run] != q && s_[run] != '\\' && s_[run] != '\n') ++run;
      if (run < s_.size() && s_[run] == q) {
        if (!append_quoted_json(v, s_.substr(i_, run - i_))) valid_utf8_ = false;
        i_ = run + 1;
        return true;
      }
    }
    std::string& out = scratch_;  // the decoded value, reused from string to string
    out.clear();
    auto cut = [&] {
      out_.cut_off = true;
      return fail("cut off inside the string that starts at offset " + std::to_string(start));
    };
    while (true) {
      // Bytes other than the quote, a backslash or a line break are copied as a run.
      size_t run = i_;
      while (run < s_.size() && s_[run] != q && s_[run] != '\\' && s_[run] != '\n') ++run;
      out.append(s_.substr(i_, run - i_));
      i_ = run;
      if (at_end()) return cut();
      char c = s_[i_];
      if (c == q) {
        if (!triple) break;
        if (i_ + 2 < s_.size() && s_[i_ + 1] == q && s_[i_ + 2] == q) {
          i_ += 2;
          break;
        }
      }
      if (c == '\n' && !triple) repair("kept a raw line break inside a one-line string");
      if (c != '\\') {
        out += c;
        ++i_;
        continue;
      }
      if (++i_ >= s_.size()) return cut();
      char e = s_[i_++];
      if (raw) {  // a raw string keeps the backslash; \" still does not end it
        out += '\\';
        out += e;
        continue;
      }
      constexpr std::string_view kLetters = "ntrabfv";
      constexpr std::string_view kCodes = "\n\t\r\a\b\f\v";
      if (size_t k = kLetters.find(e); k != std::string_view::npos) {
        out += kCodes[k];
      } else if (e == 'x' || e == 'u' || e == 'U') {
        if (!escape(out, e == 'x' ? 2 : e == 'u' ? 4 : 8)) return false;
      } else if (e >= '0' && e <= '7') {
        uint32_t cp = static_cast<uint32_t>(e - '0');
        for (int k = 0; k < 2 && !at_end() && s_[i_] >= '0' && s_[i_] <= '7'; ++k) cp = cp * 8 + (s_[i_++] - '0');
        append_utf8(out, cp);
      } else if (e != '\n') {                                 // a backslash before a line break continues the line
        if (e != '\\' && e != '\'' && e != '"') out += '\\';  // Python keeps unknown escapes as written
        out += e;
      }
    }
    ++i_;
    if (!append_quoted_json(v, out)) valid_utf8_ = false;
    return true;
  }

  // \xHH, \uHHHH (surrogate pairs joined), \UHHHHHHHH; the escape letter was consumed.
  bool escape(std::string& out, int digits) {
    size_t at_escape = i_ - 2;
    auto hex = [&](int n, uint32_t& cp) {
      cp = 0;
      for (int k = 0; k < n; ++k, ++i_) {
        if (at_end()) return expected("hex digits of the escape at offset " + std::to_string(at_escape));
        char h = s_[i_] >= 'A' && s_[i_] <= 'F' ? static_cast<char>(s_[i_] - 'A' + 'a') : s_[i_];
        if (!is_digit(h) && (h < 'a' || h > 'f')) return fail("invalid escape at offset " + std::to_string(at_escape));
        cp = cp * 16 + static_cast<uint32_t>(is_digit(h) ? h - '0' : h - 'a' + 10);
      }
      return true;
    };
    uint32_t cp = 0;
    if (!hex(digits, cp)) return false;
    if (cp >= 0xD800 && cp <= 0xDBFF && digits == 4 && s_.substr(i_, 2) == "\\u") {
      i_ += 2;
      uint32_t low = 0;
      if (!hex(4, low)) return false;
      if (low < 0xDC00 || low > 0xDFFF) return fail("unpaired surrogate escape at offset " + std::to_string(at_escape));
      cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
    } else if ((cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF) {
      return fail("invalid code point escape at offset " + std::to_string(at_escape));
    }
    append_utf8(out, cp);
    return true;
  }

  // Python numbers, normalised to JSON text (no '+', '_', bare '.', or leading zeros).
  bool number(std::string& v) {
    size_t start = i_;
    std::string norm;
    if (s_[i_] == '-' || s_[i_] == '+') norm += s_[i_++] == '-' ? "-" : "";
    auto digits = [&] {
      std::string d;
      while (!at_end() && (is_digit(s_[i_]) || (s_[i_] == '_' && !d.empty()))) {
        if (s_[i_] != '_') d += s_[i_];
        ++i_;
      }
      return d;
    };
    std::string whole = digits();
    size_t nz = whole.find_first_not_of('0');
    whole = nz == std::string::npos ? (whole.empty() ? "" : "0") : whole.substr(nz);
    bool has_frac = !at_end() && s_[i_] == '.';
    if (whole.empty() && !has_frac) return expected("a number");
    norm += whole.empty() ? "0" : whole;
    if (has_frac) {
      ++i_;
      std::string frac = digits();
      norm += "." + (frac.empty() ? std::string("0") : frac);
    }
    if (!at_end() && (s_[i_] == 'e' || s_[i_] == 'E')) {
      ++i_;
      norm += 'e';
      if (!at_end() && (s_[i_] == '-' || s_[i_] == '+')) norm += s_[i_++];
      std::string exp = digits();
      if (exp.empty()) return expected("exponent digits");
      norm += exp;
    }
    if (!at_end() && (ident_char(s_[i_]) || s_[i_] == '.')) {
      return fail("unsupported number literal at offset " + std::to_string(start));
    }
    if (!scan_strict_json(norm).ok) return fail("invalid number at offset " + std::to_string(start));
    v += norm;
    return true;
  }

  // Elements up to `close`, each appended after a ',' (none before the first when `first`).
  bool elements(std::string& v, char close, int depth, bool first) {
    return items(close, "a list", {}, [&] {
      if (!first) v += ',';
      first = false;
      return value(v, depth + 1);
    });
  }

  bool sequence(std::string& v, char close, int depth) {
    v += '[';
    if (!elements(v, close, depth, true)) return false;
    v += ']';
    return true;
  }

  // (a, b) is a tuple (a JSON array); (a) is just a; () is empty.
  bool tuple(std::string& v, int depth) {
    ++i_;
    ws();
    if (eat(')')) {
      v += "[]";
      return true;
    }
    const size_t first = v.size();
    if (!value(v, depth + 1)) return false;
    ws();
    if (eat(')')) return true;
    if (!eat(',')) return expected("',' or ')'");
    v.insert(first, 1, '[');
    if (!elements(v, ')', depth, false)) return false;
    v += ']';
    return true;
  }

  bool dict(std::string& v, int depth) {
    v += '{';
    bool first = true;
    bool ok = items('}', "a dict", {}, [&] {
      size_t key_at = i_;
      if (!first) v += ',';
      first = false;
      const size_t key = v.size();
      if (!value(v, depth + 1)) return false;
      if (v[key] != '"') return fail("the dict key at offset " + std::to_string(key_at) + " is not a string");
      ws();
      if (!eat(':')) return expected("':' after a dict key");
      v += ':';
      return value(v, depth + 1);
    });
    v += '}';
    return ok;
  }

  std::string_view s_;
  size_t i_;
  PyCallsText& out_;
  bool valid_utf8_ = true;  // of the call being read
  std::string scratch_;
};

}  // namespace

PyCallsText read_python_call_text(std::string_view text, size_t pos) {
  PyCallsText out;
  Reader r(text, pos, out);
  PyCallText c;
  if (r.call(c)) {
    out.calls.push_back(std::move(c));
    out.end = r.pos();
  }
  return out;
}

PyCallsText read_python_call_list_text(std::string_view text, size_t pos) {
  PyCallsText out;
  Reader r(text, pos, out);
  if (r.list()) {
    out.end = r.pos();
  } else {
    out.calls.clear();
  }
  return out;
}

namespace {

PyCalls with_documents(PyCallsText&& t) {
  PyCalls out;
  static_cast<PyReadStatus&>(out) = std::move(t);
  for (auto& c : t.calls) out.calls.push_back(PyCall{std::move(c.name), json::parse(c.arguments, nullptr, false)});
  return out;
}

}  // namespace

PyCalls read_python_call(std::string_view text, size_t pos) {
  return with_documents(read_python_call_text(text, pos));
}

PyCalls read_python_call_list(std::string_view text, size_t pos) {
  return with_documents(read_python_call_list_text(text, pos));
}

bool commit_python_calls(PyCallsText& read, const Label& where, FormatResult& out) {
  if (!read.error.empty()) {
    fail(out, where + ": " + read.error);
    return false;
  }
  for (auto& r : read.repairs) out.repairs.push_back(where + ": " + r);
  for (auto& c : read.calls) {
    CallDraft d;
    d.name = std::move(c.name);
    d.arguments = std::move(c.arguments);
    d.valid_utf8 = c.valid_utf8;
    commit(out, std::move(d), where);
  }
  return true;
}

}  // namespace keel::detail
