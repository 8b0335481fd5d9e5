#include "core/formats/python_call.hpp"

#include <algorithm>
#include <cstdint>

#include "core/formats/text_scan.hpp"

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

void append_utf8(std::string& s, uint32_t cp) {
  if (cp < 0x80) {
    s += static_cast<char>(cp);
  } else if (cp < 0x800) {
    s += static_cast<char>(0xC0 | (cp >> 6));
    s += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    s += static_cast<char>(0xE0 | (cp >> 12));
    s += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    s += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    s += static_cast<char>(0xF0 | (cp >> 18));
    s += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    s += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    s += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// Recursive-descent reader; every character is looked at a bounded number of times.
class Reader {
 public:
  Reader(std::string_view s, size_t pos, PyCalls& out) : s_(s), i_(pos), out_(out) {}
  size_t pos() const { return i_; }

  bool call(PyCall& c) {
    ws();
    c.name = ident(true);
    if (c.name.empty()) return expected("a function name");
    ws();
    if (!eat('(')) return expected("'(' after '" + c.name + "'");
    return items(')', "the call to '" + c.name + "'", [&] {
      size_t arg_at = i_;
      std::string key = ident(false);
      ws();
      if (!key.empty() && at_end()) return expected("'=' after '" + key + "'");
      if (key.empty() || s_[i_] != '=' || (i_ + 1 < s_.size() && s_[i_ + 1] == '=')) {
        return fail("positional argument at offset " + std::to_string(arg_at) + " in the call to '" + c.name +
                    "': keyword arguments (name=value) are expected");
      }
      ++i_;
      json v;
      if (!value(v, 0)) return false;
      if (c.arguments.contains(key)) {
        return fail("keyword '" + key + "' is repeated at offset " + std::to_string(arg_at) + " in the call to '" +
                    c.name + "'");
      }
      c.arguments[key] = std::move(v);
      return true;
    });
  }

  bool list() {
    ws();
    size_t open = i_;
    if (!eat('[')) return expected("'['");
    bool ok = items(']', "the list of calls", [&] {
      PyCall c;
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
  // Comma-separated items up to `close` (a trailing comma allowed); `item` reads one.
  template <class Item>
  bool items(char close, const std::string& in, Item&& item) {
    while (true) {
      ws();
      if (eat(close)) return true;
      if (at_end()) return expected(std::string("'") + close + "' closing " + in);
      if (!item()) return false;
      ws();
      if (eat(',')) continue;
      if (eat(close)) return true;
      return expected(std::string("',' or '") + close + "' in " + in);
    }
  }
  void repair(const char* what) {
    if (std::find(out_.repairs.begin(), out_.repairs.end(), what) == out_.repairs.end())
      out_.repairs.emplace_back(what);
  }
  // An identifier; with `dotted`, also a.b.c.
  std::string ident(bool dotted) {
    size_t b = i_;
    while (!at_end() && ident_start(s_[i_])) {
      while (!at_end() && ident_char(s_[i_])) ++i_;
      if (!dotted || at_end() || s_[i_] != '.' || i_ + 1 >= s_.size() || !ident_start(s_[i_ + 1])) break;
      ++i_;
    }
    return std::string(s_.substr(b, i_ - b));
  }

  bool value(json& v, int depth) {
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
    std::string word = ident(false);
    if (at_end()) return expected("a value (the text ends inside '" + word + "')");
    if (word == "True" || word == "False" || word == "None") {
      v = word == "None" ? json(nullptr) : json(word == "True");
      return true;
    }
    if (word == "true" || word == "false" || word == "null") {
      repair("read JSON literals true/false/null as Python True/False/None");
      v = word == "null" ? json(nullptr) : json(word == "true");
      return true;
    }
    return fail("'" + word + "' at offset " + std::to_string(word_at) +
                " is not a Python literal (strings need quotes; nested calls are not allowed)");
  }

  bool string(json& v) {
    size_t start = i_;
    bool raw = false;
    if (s_[i_] != '"' && s_[i_] != '\'') {
      char prefix = s_[i_++];
      raw = prefix == 'r' || prefix == 'R';
    }
    char q = s_[i_];
    bool triple = i_ + 2 < s_.size() && s_[i_ + 1] == q && s_[i_ + 2] == q;
    i_ += triple ? 3 : 1;
    std::string out;
    auto cut = [&] {
      out_.cut_off = true;
      return fail("cut off inside the string that starts at offset " + std::to_string(start));
    };
    while (true) {
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
    v = std::move(out);
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
  bool number(json& v) {
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
    v = json::parse(norm, nullptr, false);
    if (v.is_discarded()) return fail("invalid number at offset " + std::to_string(start));
    return true;
  }

  bool sequence(json& v, char close, int depth) {
    v = json::array();
    return items(close, "a list", [&] {
      json e;
      if (!value(e, depth + 1)) return false;
      v.push_back(std::move(e));
      return true;
    });
  }

  // (a, b) is a tuple (a JSON array); (a) is just a; () is empty.
  bool tuple(json& v, int depth) {
    ++i_;
    ws();
    if (eat(')')) {
      v = json::array();
      return true;
    }
    json first;
    if (!value(first, depth + 1)) return false;
    ws();
    if (eat(')')) {
      v = std::move(first);
      return true;
    }
    if (!eat(',')) return expected("',' or ')'");
    json rest;
    if (!sequence(rest, ')', depth)) return false;
    v = json::array({std::move(first)});
    for (auto& e : rest) v.push_back(std::move(e));
    return true;
  }

  bool dict(json& v, int depth) {
    v = json::object();
    return items('}', "a dict", [&] {
      size_t key_at = i_;
      json key;
      json val;
      if (!value(key, depth + 1)) return false;
      if (!key.is_string()) return fail("the dict key at offset " + std::to_string(key_at) + " is not a string");
      ws();
      if (!eat(':')) return expected("':' after a dict key");
      if (!value(val, depth + 1)) return false;
      v[key.get<std::string>()] = std::move(val);
      return true;
    });
  }

  std::string_view s_;
  size_t i_;
  PyCalls& out_;
};

}  // namespace

PyCalls read_python_call(std::string_view text, size_t pos) {
  PyCalls out;
  Reader r(text, pos, out);
  PyCall c;
  if (r.call(c)) {
    out.calls.push_back(std::move(c));
    out.end = r.pos();
  }
  return out;
}

PyCalls read_python_call_list(std::string_view text, size_t pos) {
  PyCalls out;
  Reader r(text, pos, out);
  if (r.list()) {
    out.end = r.pos();
  } else {
    out.calls.clear();
  }
  return out;
}

}  // namespace keel::detail
