// The repair pass: a tokenizer plus a JSON grammar tracker with an explicit stack. It copies the
// input to a new string token by token, rewriting the mistakes listed in json_repair.hpp, and
// stops at the first thing it cannot fix: a structural error or cut-off text (its own message),
// or a bad token (the output then ends with that token, for nlohmann to describe).
// Every byte is looked at a bounded number of times, so time and memory are linear.
#include "core/parsing/json/json_repair_pass.hpp"

#include <algorithm>
#include <bit>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "core/parsing/json/json_repair.hpp"
#include "core/parsing/json/json_repair_text.hpp"
#include "core/text/small_vector.hpp"
#include "core/text/text_util.hpp"

namespace keel::detail::json_repair {
namespace {

// What the grammar allows next, per open container (or at the top level).
enum class Expect : unsigned char { kValue, kValueOrClose, kKey, kKeyOrClose, kColon, kCommaOrClose, kEnd };

// How a string was opened: ASCII '"' (strict JSON rules), ASCII '\'' or a smart single quote, or
// a smart double quote.
enum class Quote : unsigned char { kDouble, kSingle, kSmart };

struct Frame {
  char close;          // '}' or ']'
  Expect state;        // what this container expects next
  size_t open_offset;  // input offset of its opening bracket
};

constexpr std::string_view kLiterals[] = {"true", "false", "null", "True", "False", "None"};

// The pass's output: a string written through a cursor, grown by doubling. Appending a byte is a
// compare and a store (std::string's push_back is a call per byte).
class Out {
 public:
  explicit Out(size_t room) : text_(room, '\0'), at_(text_.data()), end_(at_ + text_.size()) {}
  size_t size() const { return static_cast<size_t>(at_ - text_.data()); }
  char& operator[](size_t i) { return text_[i]; }
  std::string_view view() const { return {text_.data(), size()}; }
  [[gnu::always_inline]] Out& operator+=(char c) {
    if (at_ == end_) grow(1);
    *at_++ = c;
    return *this;
  }
  [[gnu::always_inline]] Out& operator+=(std::string_view s) {
    if (static_cast<size_t>(end_ - at_) < s.size()) grow(s.size());
    std::memcpy(at_, s.data(), s.size());
    at_ += s.size();
    return *this;
  }
  [[gnu::always_inline]] Out& append(std::string_view s) { return *this += s; }
  // The text written; the Out is spent.
  std::string take() {
    text_.resize(size());
    return std::move(text_);
  }

 private:
  [[gnu::noinline]] void grow(size_t more) {
    const size_t used = size();
    text_.resize(std::max(text_.size() * 2, used + more));
    at_ = text_.data() + used;
    end_ = text_.data() + text_.size();
  }
  std::string text_;
  char* at_;
  char* end_;
};

// Length of the run of bytes at in[i] that a string opened with `quote_single` (a single or smart
// quote) copies without a look: no backslash, control byte or '"', nor (single) '\'' or the lead
// byte 0xE2 of a smart quote. Bytes from 0x80 on are copied as they are (the strict scan of the
// output checks their UTF-8).
size_t plain_run(std::string_view in, size_t i, bool quote_single) {
  const char* p = in.data() + i;
  const char* end = in.data() + in.size();
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i slash = _mm_set1_epi8('\\');
  const __m128i below = _mm_set1_epi8(0x1F);
  const __m128i apostrophe = _mm_set1_epi8('\'');
  const __m128i smart = _mm_set1_epi8(static_cast<char>(0xE2));
  while (end - p >= 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    __m128i special = _mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, slash));
    special = _mm_or_si128(special, _mm_cmpeq_epi8(_mm_max_epu8(v, below), below));  // v <= 0x1F
    if (quote_single) {
      special = _mm_or_si128(special, _mm_or_si128(_mm_cmpeq_epi8(v, apostrophe), _mm_cmpeq_epi8(v, smart)));
    }
    const unsigned bits = static_cast<unsigned>(_mm_movemask_epi8(special));
    if (bits != 0) return static_cast<size_t>(p - in.data()) + static_cast<size_t>(std::countr_zero(bits)) - i;
    p += 16;
  }
#endif
  for (; p != end; ++p) {
    const unsigned char c = static_cast<unsigned char>(*p);
    if (c < 0x20 || c == '\\' || c == '"' || (quote_single && (c == '\'' || c == 0xE2))) break;
  }
  return static_cast<size_t>(p - in.data()) - i;
}

class Pass {
 public:
  explicit Pass(std::string_view in) : in_(in), out_(in.size() + in.size() / 16 + 16) {}

  PassResult run() {
    while (i_ < in_.size() && !stopped_) step();
    if (!stopped_) finish();
    r_.text = out_.take();
    return std::move(r_);
  }

 private:
  Out& out() { return out_; }
  Expect& cur() { return stack_.empty() ? top_ : stack_.back().state; }
  bool in_object() const { return !stack_.empty() && stack_.back().close == '}'; }
  static bool wants_value(Expect e) { return e == Expect::kValue || e == Expect::kValueOrClose; }
  static bool wants_key(Expect e) { return e == Expect::kKey || e == Expect::kKeyOrClose; }

  // A value just ended: its container now wants ',' or its close (the top level wants nothing).
  void value_done() { cur() = stack_.empty() ? Expect::kEnd : Expect::kCommaOrClose; }

  // Records an (output, input) pair when the two indexes stopped moving in step since the last one
  // (their difference, kept in `shift_`, changed).
  [[gnu::always_inline]] void mark() {
    const size_t o = out().size();
    if (o - i_ != shift_) remark(o);
  }
  [[gnu::noinline]] void remark(size_t o) {
    r_.offsets.emplace_back(o, i_);
    shift_ = o - i_;
  }

  // One token (or one run of whitespace) at i_. Inline in run()'s loop; the tokens that take more
  // than a few bytes are read out of line.
  [[gnu::always_inline]] void step() {
    mark();
    const unsigned char c = static_cast<unsigned char>(in_[i_]);
    if (is_space(c)) {  // a run of whitespace is copied as it is
      do {
        out() += static_cast<char>(in_[i_]);
        ++i_;
      } while (i_ < in_.size() && is_space(static_cast<unsigned char>(in_[i_])));
      return;
    }
    if (c >= 0x80) return non_ascii();
    if (c == '{' || c == '[') return open(static_cast<char>(c));
    if (c == '}' || c == ']') return close(static_cast<char>(c));
    if (c == ',') return comma();
    if (c == ':') return colon();
    if (c == '"' || c == '\'') return string_token(c == '"' ? Quote::kDouble : Quote::kSingle, 1);
    if (c == '-' || is_digit(c)) return number();
    if (is_ident_start(c)) return word();
    std::string what = c >= 0x20 && c < 0x7F ? std::string("'") + static_cast<char>(c) + "'" : "control character";
    unexpected(what, i_);
  }

  std::string key_text() const { return clip((key_in_out_ ? out_.view() : in_).substr(key_begin_, key_size_)); }

  // What the grammar wanted where it met something else, for messages.
  std::string expected() {
    static constexpr std::string_view kText[] = {
        "a value", "a value or ']'", "a key", "a key or '}'", "", "", "nothing after the complete value"};
    const Expect e = cur();
    if (e == Expect::kColon) return concat({"':' after key \"", key_text(), "\""});
    if (e == Expect::kCommaOrClose) return in_object() ? "',' or '}'" : "',' or ']'";
    return std::string(kText[static_cast<size_t>(e)]);
  }

  [[gnu::noinline]] void unexpected(const std::string& what, size_t offset) {
    r_.error = concat({"unexpected ", what, " at offset ", Decimal(offset), "; expected ", expected()});
    stopped_ = true;
  }
  // `where` in pieces, as concat() takes them.
  [[gnu::noinline]] void cut_off(std::initializer_list<std::string_view> where) {
    constexpr std::string_view kLead = "output was cut off ";
    std::string& e = r_.error;
    size_t size = kLead.size();
    for (std::string_view p : where) size += p.size();
    e.reserve(size);
    e = kLead;
    for (std::string_view p : where) e.append(p);
    stopped_ = true;
  }
  void token_error(size_t offset) {
    r_.token_error = true;
    r_.token_offset = offset;
    stopped_ = true;
  }

  [[gnu::always_inline]] void open(char c) {
    if (!wants_value(cur())) return unexpected(std::string("'") + c + "'", i_);
    value_done();  // the container is its parent's value
    if (stack_.size() >= kLenientJsonMaxDepth) {
      r_.error =
          "nesting deeper than " + std::to_string(kLenientJsonMaxDepth) + " levels at offset " + std::to_string(i_);
      stopped_ = true;
      return;
    }
    const bool obj = c == '{';
    stack_.push_back(Frame{obj ? '}' : ']', obj ? Expect::kKeyOrClose : Expect::kValueOrClose, i_});
    out() += c;
    ++i_;
  }

  [[gnu::always_inline]] void close(char c) {
    auto what = [c] { return std::string("'") + c + "'"; };
    if (stack_.empty() || stack_.back().close != c) return unexpected(what(), i_);
    const Expect e = stack_.back().state;
    const bool trailing_comma = e == Expect::kKey || (e == Expect::kValue && c == ']');
    if (!trailing_comma && e != Expect::kCommaOrClose && e != Expect::kKeyOrClose && e != Expect::kValueOrClose) {
      return unexpected(what(), i_);
    }
    if (trailing_comma) drop_comma();
    stack_.pop_back();
    out() += c;
    ++i_;
  }

  // The ',' just before a closing bracket (or the end) goes; a space keeps output offsets still.
  void drop_comma() {
    out()[comma_out_] = ' ';
    r_.log.add(Fix::kTrailingComma);
  }

  [[gnu::always_inline]] void comma() {
    if (cur() != Expect::kCommaOrClose) return unexpected("','", i_);
    cur() = in_object() ? Expect::kKey : Expect::kValue;
    comma_out_ = out().size();
    out() += ',';
    ++i_;
  }

  [[gnu::always_inline]] void colon() {
    if (cur() != Expect::kColon) return unexpected("':'", i_);
    cur() = Expect::kValue;
    colon_offset_ = i_;
    out() += ':';
    ++i_;
  }

  // Outside strings: smart quotes open strings; any other non-ASCII character is dropped
  // (a space stands in so that the tokens on either side stay apart).
  [[gnu::noinline]] void non_ascii() {
    const char q = smart_quote(in_, i_);
    if (q == 'd') return string_token(Quote::kSmart, 3);
    if (q == 's') return string_token(Quote::kSingle, 3);
    i_ += std::max<size_t>(1, utf8_sequence_length(in_, i_));  // an ill-formed byte goes alone
    out() += ' ';
    r_.log.add(Fix::kStrayNonAscii);
  }

  // True when a single quote ending at j closes its string: only whitespace, then the end of the
  // text or one of , : } ] follows. An apostrophe inside the text ("it's") is followed by a letter.
  bool ends_single_quoted(size_t j) const {
    while (j < in_.size() && is_space(static_cast<unsigned char>(in_[j]))) ++j;
    return j == in_.size() || in_[j] == ',' || in_[j] == ':' || in_[j] == '}' || in_[j] == ']';
  }

  // Length of the delimiter at i_ that closes a string opened with `q`, or 0.
  size_t closing_quote(Quote q) const {
    const char c = in_[i_];
    const char smart = smart_quote(in_, i_);
    if (q == Quote::kDouble) return c == '"' ? 1 : 0;
    if (q == Quote::kSmart) return c == '"' ? 1 : smart == 'd' ? 3 : 0;
    const size_t len = c == '\'' ? 1 : smart == 's' ? 3 : 0;
    return len != 0 && ends_single_quoted(i_ + len) ? len : 0;
  }

  [[gnu::noinline]] void string_cut_off() {
    cut_off({str_key_ ? "inside a key" : "inside a string value", " starting at offset ", Decimal(str_start_)});
  }

  [[gnu::noinline]] void string_token(Quote q, size_t open_len) {
    const bool key = wants_key(cur());
    if (!key && !wants_value(cur())) return unexpected("string", i_);
    str_start_ = i_;
    str_key_ = key;
    if (q == Quote::kSingle) r_.log.add(Fix::kSingleQuotes);
    if (q == Quote::kSmart) r_.log.add(Fix::kSmartQuotes);
    out() += '"';
    i_ += open_len;
    mark();
    const size_t content = out().size();
    for (;;) {
      // Bytes that need no look (no escape, control, quote or smart-quote lead) are copied as a run.
      if (const size_t run = plain_run(in_, i_, q != Quote::kDouble); run != 0) {
        out().append(in_.substr(i_, run));
        i_ += run;
      }
      if (i_ >= in_.size()) return string_cut_off();
      const unsigned char c = static_cast<unsigned char>(in_[i_]);
      if (c == '\\') {
        if (!escape(q)) return;
        continue;
      }
      if (c < 0x20) {
        control(c);
        continue;
      }
      if (const size_t len = closing_quote(q); len != 0) {
        i_ += len;
        break;
      }
      if (c == '"') {  // only inside a single-quoted string: a quote that must be escaped
        out() += "\\\"";
        ++i_;
        mark();
        continue;
      }
      out() += static_cast<char>(c);
      ++i_;
    }
    if (key) {
      key_in_out_ = true;
      key_begin_ = content;
      key_size_ = out().size() - content;
      key_offset_ = str_start_;
      cur() = Expect::kColon;
    } else {
      value_done();
    }
    out() += '"';
  }

  // A backslash escape inside a string; false when the pass stopped.
  bool escape(Quote q) {
    if (i_ + 1 >= in_.size()) {
      string_cut_off();
      return false;
    }
    const char e = in_[i_ + 1];
    if (e == '\'') {  // \' is not JSON: a plain quote needs no escape inside "..."
      out() += '\'';
      i_ += 2;
      if (q != Quote::kSingle) r_.log.add(Fix::kQuoteEscape);
      mark();
      return true;
    }
    size_t len = 2;
    if (e == 'u') {
      for (; len < 6; ++len) {
        if (i_ + len >= in_.size()) {
          string_cut_off();
          return false;
        }
        if (!is_hex(static_cast<unsigned char>(in_[i_ + len]))) break;
      }
    }
    const bool ok = e == 'u' ? len == 6 : std::string_view("\"\\/bfnrt").find(e) != std::string_view::npos;
    out() += in_.substr(i_, ok ? len : len + (e == 'u' ? 1 : 0));
    if (!ok) {
      token_error(i_);
      return false;
    }
    i_ += len;
    return true;
  }

  // A raw control character inside a string becomes its escape.
  void control(unsigned char c) {
    static constexpr char kShort[] = "btn?fr";  // the letter escapes of codes 8 to 13 (11 has none)
    static constexpr char kHex[] = "0123456789abcdef";
    if (c >= 0x08 && c <= 0x0D && c != 0x0B) {
      (out() += '\\') += kShort[c - 0x08];
    } else {
      ((out() += "\\u00") += kHex[c >> 4]) += kHex[c & 15];
    }
    if (c == '\n') ++r_.log.newlines;
    if (c == '\t') ++r_.log.tabs;
    r_.log.add(Fix::kControlChar);
    ++i_;
    mark();
  }

  [[gnu::noinline]] void number() {
    const size_t start = i_;
    while (i_ < in_.size() && is_number_char(static_cast<unsigned char>(in_[i_]))) ++i_;
    const std::string_view tok = in_.substr(start, i_ - start);
    if (!wants_value(cur())) return unexpected("number", start);
    const bool ok = valid_number(tok);
    // Digits that run to the very end may be the start of a longer number: never guess.
    if (i_ == in_.size() && (!stack_.empty() || !ok)) {
      return cut_off(
          {"inside a number starting at offset ", Decimal(start), " (\"", clip(tok), "\" may be incomplete)"});
    }
    out() += tok;
    if (!ok) return token_error(start);
    value_done();
  }

  [[gnu::noinline]] void word() {
    const size_t start = i_;
    while (i_ < in_.size() && is_ident_char(static_cast<unsigned char>(in_[i_]))) ++i_;
    const std::string_view w = in_.substr(start, i_ - start);
    const bool at_end = i_ == in_.size();
    if (wants_key(cur())) {  // an unquoted key
      if (at_end) return cut_off({"inside a key starting at offset ", Decimal(start)});
      (out() += '"').append(w) += '"';
      r_.log.add(Fix::kUnquotedKey);
      if (r_.log.keys.size() < 5) r_.log.keys.push_back(clip(w));
      key_in_out_ = false;
      key_begin_ = start;
      key_size_ = w.size();
      key_offset_ = start;
      cur() = Expect::kColon;
      return;
    }
    if (!wants_value(cur())) return unexpected("'" + clip(w) + "'", start);
    const auto* lit = std::find(std::begin(kLiterals), std::end(kLiterals), w);
    if (lit == std::end(kLiterals)) {
      const bool prefix = std::any_of(std::begin(kLiterals), std::end(kLiterals),
                                      [&](std::string_view l) { return l.substr(0, w.size()) == w; });
      if (at_end && prefix) {
        return cut_off({"inside the literal \"", w, "\" starting at offset ", Decimal(start)});
      }
      out() += w;
      r_.word_size = w.size();
      for (size_t k = stack_.size(); k > 0; --k) r_.closers_at_word += stack_[k - 1].close;
      return token_error(start);
    }
    const auto index = static_cast<size_t>(lit - std::begin(kLiterals));
    out() += kLiterals[index % 3];
    if (index >= 3) {
      r_.log.add(Fix::kPythonLiteral);
      r_.log.python_seen |= 1u << (index - 3);
    }
    value_done();
  }

  // The text ended between tokens: fine at the top level after a value; inside containers only
  // after a complete value or a ',' (then dropped), when the missing closers are appended.
  [[gnu::noinline]] void finish() {
    if (stack_.empty()) {
      if (top_ == Expect::kEnd) return;
      const bool stray = r_.log.counts[static_cast<size_t>(Fix::kStrayNonAscii)] > 0;
      r_.error =
          stray ? "no JSON value: the text holds only stray non-ASCII characters" : "no JSON value: the text is empty";
      return;
    }
    const Frame& f = stack_.back();
    const bool obj = f.close == '}';
    switch (f.state) {
      case Expect::kKeyOrClose:
      case Expect::kValueOrClose:
        return cut_off({"right after the '", obj ? "{" : "[", "' at offset ", Decimal(f.open_offset),
                        obj ? ", before its first member" : ", before its first element"});
      case Expect::kColon:
        return cut_off(
            {"after key \"", key_text(), "\" at offset ", Decimal(key_offset_), ", before its ':' and value"});
      case Expect::kValue:
        if (obj) {
          return cut_off({"after key \"", key_text(), "\" before its value (the text ends after its ':' at offset ",
                          Decimal(colon_offset_), ")"});
        }
        drop_comma();
        break;
      case Expect::kKey:
        drop_comma();
        break;
      case Expect::kCommaOrClose:
      case Expect::kEnd:
        break;
    }
    for (size_t k = stack_.size(); k > 0; --k) r_.log.closers += stack_[k - 1].close;
    out() += r_.log.closers;
    r_.log.add(Fix::kClosedBrackets, stack_.size());
  }

  std::string_view in_;
  size_t i_ = 0;
  PassResult r_;
  Out out_;
  SmallVector<Frame, 16> stack_;
  Expect top_ = Expect::kValue;
  bool stopped_ = false;
  size_t shift_ = 0;      // output index minus input index at the last mark (0 before any)
  size_t comma_out_ = 0;  // output index of the last ',' (blanked when it turns out trailing)
  // The last key, for messages: its text in the output (a string key) or the input (unquoted).
  bool key_in_out_ = false;
  size_t key_begin_ = 0, key_size_ = 0;
  size_t key_offset_ = 0, colon_offset_ = 0;
  size_t str_start_ = 0;  // the string being read: where it starts, and whether it is a key
  bool str_key_ = false;
};

}  // namespace

PassResult run_repair_pass(std::string_view text) {
  return Pass(text).run();
}

}  // namespace keel::detail::json_repair
