// The strict validator: an iterative scanner whose container stack is one bit per level (object or
// array), so that it needs no allocation. Plain string bytes are skipped sixteen (or eight) at a
// time. When asked, it records each value's span in a JsonIndex as it passes; the scanner is a
// template on that, so that validation alone pays nothing for it.
#include "core/json_scan.hpp"

#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "core/json_repair_text.hpp"

namespace keel::detail {

// The scanner's side of a JsonIndex: a node is opened where a value starts and closed where it
// ends. Past the index's capacity, writes go to its spare node and the index ends up unusable.
// Without kOn it does nothing.
template <bool kOn>
class JsonIndexWriter {
 public:
  JsonIndexWriter(JsonIndex* index, const char* base) : index_(index), base_(base) {
    if constexpr (kOn) {
      index_->size_ = 0;
      index_->usable_ = false;
    }
  }
  // A node for the value starting at p; its index, for close().
  std::size_t open(const char* p) {
    if constexpr (!kOn) {
      return 0;
    } else {
      const std::size_t i = count_ < JsonIndex::kCapacity ? count_ : JsonIndex::kCapacity;
      ++count_;
      index_->nodes_[i].begin = static_cast<std::uint32_t>(p - base_);
      return i;
    }
  }
  // The value of node i ends at p (after every value inside it).
  void close(std::size_t i, const char* p, std::uint16_t flags = 0) {
    if constexpr (kOn) {
      JsonIndex::Node& n = index_->nodes_[i];
      n.end = static_cast<std::uint32_t>(p - base_);
      n.next = static_cast<std::uint16_t>(count_);  // past capacity the index is unusable anyway
      n.flags = flags;
    }
  }
  // The value was read: the index is usable when it holds every node.
  void finish() {
    if constexpr (kOn) {
      index_->usable_ = count_ <= JsonIndex::kCapacity;
      index_->size_ = static_cast<std::uint16_t>(index_->usable_ ? count_ : 0);
    }
  }

 private:
  JsonIndex* index_;
  const char* base_;
  std::size_t count_ = 0;  // nodes opened
};

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

// Skips plain string bytes (not '"', '\\', control or non-ASCII) from p.
inline const char* skip_plain(const char* p, const char* end) {
#if defined(__SSE2__)
  // A signed compare with 0x20 flags control bytes and (negative) non-ASCII bytes at once.
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i slash = _mm_set1_epi8('\\');
  const __m128i space = _mm_set1_epi8(0x20);
  while (end - p >= 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const __m128i special =
        _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, slash)), _mm_cmplt_epi8(v, space));
    const unsigned bits = static_cast<unsigned>(_mm_movemask_epi8(special));
    if (bits != 0) return p + std::countr_zero(bits);
    p += 16;
  }
#endif
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

inline bool is_json_space(char c) {
  constexpr std::uint64_t kSpaces = (1ull << ' ') | (1ull << '\n') | (1ull << '\r') | (1ull << '\t');
  return static_cast<unsigned char>(c) <= ' ' && ((kSpaces >> static_cast<unsigned char>(c)) & 1) != 0;
}

// Container kinds by level: bit d of word d / 64 is set for an object. Words are written before
// they are read (a level's bit is set when it opens), so they need no initialisation.
class LevelKinds {
 public:
  void set(std::size_t depth, bool object) {
    std::uint64_t& w = words_[depth / 64];
    const std::uint64_t bit = std::uint64_t{1} << (depth % 64);
    if (depth % 64 == 0) {
      w = object ? bit : 0;
    } else {
      w = object ? w | bit : w & ~bit;
    }
  }
  bool object(std::size_t depth) const { return ((words_[depth / 64] >> (depth % 64)) & 1) != 0; }

 private:
  std::array<std::uint64_t, kLenientJsonMaxDepth / 64> words_;
};

template <bool kRecord>
class Scanner {
 public:
  // `index` (with kRecord) records the value that value() reads, with offsets from `begin` on.
  Scanner(const char* begin, const char* end, JsonIndex* index) : p_(begin), end_(end), index_(index, begin) {}
  const char* pos() const { return p_; }

  void space() {
    while (p_ != end_ && is_json_space(*p_)) ++p_;
  }

  // One complete value at p_ (after whitespace).
  bool value() {
    LevelKinds kinds;
    // While recording, the node of each open container (beyond the index's capacity, any slot:
    // the index is unusable then).
    std::uint16_t containers[JsonIndex::kCapacity + 1];
    std::size_t depth = 0;
    bool in_object = false;  // the innermost open container is an object
    for (;;) {
      // A value is expected at p_.
      space();
      if (p_ == end_) return false;
      const char c = *p_;
      if (c == '{' || c == '[') {
        if (depth == kLenientJsonMaxDepth) return false;
        const std::size_t node = index_.open(p_);
        if constexpr (kRecord) containers[depth < JsonIndex::kCapacity ? depth : JsonIndex::kCapacity] =
            static_cast<std::uint16_t>(node);
        in_object = c == '{';
        kinds.set(depth, in_object);
        ++depth;
        ++p_;
        space();
        if (p_ == end_) return false;
        if (*p_ != (in_object ? '}' : ']')) {
          if (in_object && !key()) return false;
          continue;
        }
        ++p_;  // empty: the container is the value just read
        --depth;
        index_.close(node, p_);
        if (depth != 0) in_object = kinds.object(depth - 1);
      } else {
        const std::size_t node = index_.open(p_);
        escaped_ = false;
        if (!scalar(c)) return false;
        index_.close(node, p_, escaped_ ? JsonIndex::kEscaped : 0);
      }
      // After a value: ',' and the next one, or the closing brackets of the containers it ends.
      for (;;) {
        if (depth == 0) {
          index_.finish();
          return true;
        }
        space();
        if (p_ == end_) return false;
        const char d = *p_;
        if (d == ',') {
          ++p_;
          if (in_object) {
            space();
            if (!key()) return false;
          }
          break;
        }
        if (d != (in_object ? '}' : ']')) return false;
        ++p_;
        --depth;
        if constexpr (kRecord) index_.close(containers[depth < JsonIndex::kCapacity ? depth : JsonIndex::kCapacity], p_);
        if (depth != 0) in_object = kinds.object(depth - 1);
      }
    }
  }

 private:
  // A key, its ':' and the whitespace before it; p_ at the key's first byte.
  bool key() {
    if (p_ == end_ || *p_ != '"') return false;
    const std::size_t node = index_.open(p_);
    escaped_ = false;
    if (!string()) return false;
    index_.close(node, p_, escaped_ ? JsonIndex::kEscaped : 0);
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

  // A string; p_ at its opening quote. Plain text up to the closing quote is the usual case.
  [[gnu::always_inline]] bool string() {
    p_ = skip_plain(p_ + 1, end_);
    if (p_ != end_ && *p_ == '"') {
      ++p_;
      return true;
    }
    return string_rest();
  }

  // string() from its first escape, control or non-ASCII byte (or the end of the text) on.
  [[gnu::noinline]] bool string_rest() {
    for (;;) {
      if (p_ == end_) return false;
      const unsigned char c = static_cast<unsigned char>(*p_);
      if (c == '"') {
        ++p_;
        return true;
      }
      if (c == '\\') {
        escaped_ = true;
        if (!escape()) return false;
      } else if (c < 0x20) {
        return false;
      } else if (c >= 0x80) {
        const std::size_t n = json_repair::utf8_length(std::string_view(p_, static_cast<std::size_t>(end_ - p_)), 0);
        if (n == 0) return false;
        p_ += n;
      }
      p_ = skip_plain(p_, end_);
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
  JsonIndexWriter<kRecord> index_;
  bool escaped_ = false;  // the string just read held a backslash escape
};

// The value at begin (no whitespace before it): its end, or nullptr when it is not valid JSON.
// Recorded in `index` when there is one (and the text is small enough for its offsets).
const char* scan_value(const char* begin, const char* end, JsonIndex* index) {
  if (index != nullptr && static_cast<std::size_t>(end - begin) <= std::numeric_limits<std::uint32_t>::max()) {
    Scanner<true> s(begin, end, index);
    return s.value() ? s.pos() : nullptr;
  }
  if (index != nullptr) *index = JsonIndex();
  Scanner<false> s(begin, end, nullptr);
  return s.value() ? s.pos() : nullptr;
}

const char* skip_space(const char* p, const char* end) {
  while (p != end && is_json_space(*p)) ++p;
  return p;
}

}  // namespace

StrictJson scan_strict_json(std::string_view text, JsonIndex* index) {
  const char* begin = text.data();
  const char* end = begin + text.size();
  if (text.size() >= 3 && text.compare(0, 3, "\xEF\xBB\xBF") == 0) begin += 3;  // a byte-order mark
  const char* value = skip_space(begin, end);
  const char* value_end = scan_value(value, end, index);
  if (value_end == nullptr) return {};
  const char* rest = skip_space(value_end, end);
  if (rest != end && *rest != '\0') {
    if (index != nullptr) *index = JsonIndex();
    return {};
  }
  return {true, static_cast<std::size_t>(value - text.data()), static_cast<std::size_t>(value_end - text.data())};
}

std::size_t scan_json_value(std::string_view text, std::size_t pos, JsonIndex* index) {
  if (pos >= text.size()) {
    if (index != nullptr) *index = JsonIndex();
    return std::string_view::npos;
  }
  const char* end = text.data() + text.size();
  const char* value_end = scan_value(skip_space(text.data() + pos, end), end, index);
  return value_end == nullptr ? std::string_view::npos : static_cast<std::size_t>(value_end - text.data());
}

bool json_number_is_integer(std::string_view number) {
  if (number.find_first_of(".eE") != std::string_view::npos) return false;
  const bool negative = !number.empty() && number[0] == '-';
  const std::string_view digits = negative ? number.substr(1) : number;
  const std::string_view limit = negative ? "9223372036854775808" : "18446744073709551615";
  return digits.size() < limit.size() || (digits.size() == limit.size() && digits <= limit);
}

}  // namespace keel::detail
