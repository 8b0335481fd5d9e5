// The strict validator: an iterative scanner whose container stack is one bit per level (object or
// array), so that it needs no allocation. Plain string bytes are skipped eight at a time.
#include "core/json_scan.hpp"

#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <nlohmann/json.hpp>

#include "core/json_repair_text.hpp"

namespace keel::detail {
namespace {

constexpr std::uint64_t kOnes = 0x0101010101010101ull;
constexpr std::uint64_t kHighs = 0x8080808080808080ull;

// The high bit of each of the eight bytes in `w` (loaded little-endian) that is '"', '\\', a
// control character or non-ASCII; exact up to the first such byte, which is all that is used.
inline std::uint64_t special_bytes(std::uint64_t w) {
  const std::uint64_t quote = w ^ (kOnes * '"');
  const std::uint64_t slash = w ^ (kOnes * '\\');
  const std::uint64_t zero_quote = (quote - kOnes) & ~quote;
  const std::uint64_t zero_slash = (slash - kOnes) & ~slash;
  const std::uint64_t control = w - kOnes * 0x20;  // a borrow into the high bit marks a byte < 0x20
  return ((zero_quote | zero_slash | control) & ~w & kHighs) | (w & kHighs);
}

// Skips plain string bytes (not '"', '\\', control or non-ASCII) from p, eight at a time.
inline const char* skip_plain(const char* p, const char* end) {
  if constexpr (std::endian::native == std::endian::little) {
    while (end - p >= 8) {
      std::uint64_t w;
      std::memcpy(&w, p, 8);
      const std::uint64_t special = special_bytes(w);
      if (special != 0) return p + std::countr_zero(special) / 8;
      p += 8;
    }
  }
  while (p != end) {
    const unsigned char c = static_cast<unsigned char>(*p);
    if (c < 0x20 || c >= 0x80 || c == '"' || c == '\\') break;
    ++p;
  }
  return p;
}

inline bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

inline int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  const char l = static_cast<char>(c | 0x20);
  return l >= 'a' && l <= 'f' ? l - 'a' + 10 : -1;
}

class Scanner {
 public:
  Scanner(const char* begin, const char* end) : p_(begin), end_(end) {}
  const char* pos() const { return p_; }

  void space() {
    while (p_ != end_ && (*p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t')) ++p_;
  }

  // One complete value at p_ (after whitespace).
  bool value() {
    std::array<std::uint64_t, kLenientJsonMaxDepth / 64> objects{};  // bit d: level d is an object
    std::size_t depth = 0;
    bool want_value = true;
    for (;;) {
      if (!want_value && depth == 0) return true;
      space();
      if (p_ == end_) return false;
      const char c = *p_;
      if (want_value) {
        if (c == '{' || c == '[') {
          if (depth == kLenientJsonMaxDepth) return false;
          const bool obj = c == '{';
          const std::uint64_t bit = std::uint64_t{1} << (depth % 64);
          objects[depth / 64] = obj ? objects[depth / 64] | bit : objects[depth / 64] & ~bit;
          ++depth;
          ++p_;
          space();
          if (p_ != end_ && *p_ == (obj ? '}' : ']')) {
            ++p_;
            --depth;
            want_value = false;
          } else if (obj && !key()) {
            return false;
          }
          continue;
        }
        if (!scalar(c)) return false;
        want_value = false;
        continue;
      }
      const bool obj = (objects[(depth - 1) / 64] >> ((depth - 1) % 64)) & 1;
      if (c == ',') {
        ++p_;
        if (obj) {
          space();
          if (!key()) return false;
        }
        want_value = true;
      } else if (c == (obj ? '}' : ']')) {
        ++p_;
        --depth;
      } else {
        return false;
      }
    }
  }

 private:
  // A key, its ':' and the whitespace before it; p_ at the key's first byte.
  bool key() {
    if (p_ == end_ || *p_ != '"' || !string()) return false;
    space();
    if (p_ == end_ || *p_ != ':') return false;
    ++p_;
    return true;
  }

  bool scalar(char c) {
    switch (c) {
      case '"':
        return string();
      case 't':
        return literal("true");
      case 'f':
        return literal("false");
      case 'n':
        return literal("null");
      default:
        return (c == '-' || is_digit(c)) && number();
    }
  }

  bool literal(std::string_view word) {
    if (static_cast<std::size_t>(end_ - p_) < word.size() || std::memcmp(p_, word.data(), word.size()) != 0) {
      return false;
    }
    p_ += word.size();
    return true;
  }

  // A string; p_ at its opening quote.
  bool string() {
    ++p_;
    for (;;) {
      p_ = skip_plain(p_, end_);
      if (p_ == end_) return false;
      const unsigned char c = static_cast<unsigned char>(*p_);
      if (c == '"') {
        ++p_;
        return true;
      }
      if (c == '\\') {
        if (!escape()) return false;
      } else if (c < 0x20) {
        return false;
      } else if (c >= 0x80) {
        const std::size_t n = json_repair::utf8_length(std::string_view(p_, static_cast<std::size_t>(end_ - p_)), 0);
        if (n == 0) return false;
        p_ += n;
      }
    }
  }

  // Four hex digits at p_ as a code unit, or -1.
  long hex4() {
    if (end_ - p_ < 4) return -1;
    long v = 0;
    for (int k = 0; k < 4; ++k) {
      const int h = hex_value(p_[k]);
      if (h < 0) return -1;
      v = v * 16 + h;
    }
    p_ += 4;
    return v;
  }

  // An escape; p_ at its backslash. A high surrogate must be followed by an escaped low one.
  bool escape() {
    if (end_ - p_ < 2) return false;
    const char e = p_[1];
    p_ += 2;
    if (e != 'u') return std::string_view("\"\\/bfnrt").find(e) != std::string_view::npos;
    const long unit = hex4();
    if (unit < 0) return false;
    if (unit >= 0xDC00 && unit <= 0xDFFF) return false;
    if (unit < 0xD800 || unit > 0xDBFF) return true;
    if (end_ - p_ < 2 || p_[0] != '\\' || p_[1] != 'u') return false;
    p_ += 2;
    const long low = hex4();
    return low >= 0xDC00 && low <= 0xDFFF;
  }

  // A number per RFC 8259. Its value must also fit a double (nlohmann refuses an overflow): a bound
  // on its decimal magnitude settles almost every number, nlohmann the rest.
  bool number() {
    const char* start = p_;
    if (*p_ == '-') ++p_;
    if (p_ == end_) return false;
    long magnitude = 0;  // the value is below 10^magnitude
    if (*p_ == '0') {
      ++p_;
    } else if (is_digit(*p_)) {
      while (p_ != end_ && is_digit(*p_)) {
        ++p_;
        ++magnitude;
      }
    } else {
      return false;
    }
    if (p_ != end_ && *p_ == '.') {
      ++p_;
      if (p_ == end_ || !is_digit(*p_)) return false;
      while (p_ != end_ && is_digit(*p_)) ++p_;
    }
    if (p_ != end_ && (*p_ == 'e' || *p_ == 'E')) {
      ++p_;
      bool negative = false;
      if (p_ != end_ && (*p_ == '+' || *p_ == '-')) negative = *p_++ == '-';
      if (p_ == end_ || !is_digit(*p_)) return false;
      long exponent = 0;
      while (p_ != end_ && is_digit(*p_)) {
        if (exponent < 100'000'000) exponent = exponent * 10 + (*p_ - '0');
        ++p_;
      }
      magnitude += negative ? -exponent : exponent;
    }
    if (magnitude <= 308) return true;  // below 1e308 < DBL_MAX
    const std::string_view token(start, static_cast<std::size_t>(p_ - start));
    return !nlohmann::json::parse(token, nullptr, /*allow_exceptions=*/false).is_discarded();
  }

  const char* p_;
  const char* end_;
};

}  // namespace

StrictJson scan_strict_json(std::string_view text) {
  const char* begin = text.data();
  const char* end = begin + text.size();
  if (text.size() >= 3 && text.compare(0, 3, "\xEF\xBB\xBF") == 0) begin += 3;  // a byte-order mark
  Scanner s(begin, end);
  s.space();
  const char* value = s.pos();
  if (!s.value()) return {};
  const char* value_end = s.pos();
  s.space();
  if (s.pos() != end && *s.pos() != '\0') return {};
  return {true, static_cast<std::size_t>(value - text.data()), static_cast<std::size_t>(value_end - text.data())};
}

std::size_t scan_json_value(std::string_view text, std::size_t pos) {
  if (pos >= text.size()) return std::string_view::npos;
  Scanner s(text.data() + pos, text.data() + text.size());
  if (!s.value()) return std::string_view::npos;
  return static_cast<std::size_t>(s.pos() - text.data());
}

bool json_number_is_integer(std::string_view number) {
  if (number.find_first_of(".eE") != std::string_view::npos) return false;
  const bool negative = !number.empty() && number[0] == '-';
  const std::string_view digits = negative ? number.substr(1) : number;
  const std::string_view limit = negative ? "9223372036854775808" : "18446744073709551615";
  return digits.size() < limit.size() || (digits.size() == limit.size() && digits <= limit);
}

}  // namespace keel::detail
