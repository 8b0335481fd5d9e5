// The strict validator: an iterative scanner whose container stack is one flag per level (object
// or array) in a fixed array, so that it needs no allocation. Plain string bytes are skipped
// sixteen (or eight) at a time. When asked, it records each value's span in a JsonIndex as it
// passes; the scanner is a template on that, so that validation alone pays nothing for it.
#include "core/parsing/json/json_scan.hpp"

#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "core/parsing/json/json_repair_text.hpp"

namespace keel::detail {

// The scanner's side of a JsonIndex: the only code that fills one (json_scan.cpp).
class JsonIndexWriter {
 public:
  static JsonIndex::Node* nodes(JsonIndex& index) { return index.nodes_; }
  // The scan read a value with `count` nodes: usable when it holds them all.
  static void finish(JsonIndex& index, std::size_t count) {
    index.usable_ = count <= JsonIndex::kCapacity;
    index.size_ = static_cast<std::uint16_t>(index.usable_ ? count : 0);
  }
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

// skip_plain() with its first sixteen bytes inline: most keys and values end within them.
[[gnu::always_inline]] inline const char* skip_plain_short(const char* p, const char* end) {
#if defined(__SSE2__)
  if (end - p >= 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const __m128i special =
        _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))),
                     _mm_cmplt_epi8(v, _mm_set1_epi8(0x20)));
    const unsigned bits = static_cast<unsigned>(_mm_movemask_epi8(special));
    if (bits != 0) return p + std::countr_zero(bits);
    p += 16;
  }
#endif
  return skip_plain(p, end);
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

// Container kinds by level: whether level d is an object. Levels are written when they open,
// before they are read, so the array needs no initialisation.
class LevelKinds {
 public:
  void set(std::size_t depth, bool object) { object_[depth] = object; }
  bool object(std::size_t depth) const { return object_[depth]; }

 private:
  bool object_[kLenientJsonMaxDepth];
};

// The rest of a string from its first escape, control or non-ASCII byte (p) on: past its closing
// quote, or nullptr when it is not valid. Sets `escaped` when it holds an escape.
const char* string_rest(const char* p, const char* end, bool& escaped);

// A number per RFC 8259 at p: its end, or nullptr. Its value must also fit a double (nlohmann
// refuses an overflow): a bound on its decimal magnitude settles almost every number, nlohmann the
// rest.
const char* number(const char* p, const char* end) {
  const char* start = p;
  if (*p == '-') ++p;
  if (p == end) return nullptr;
  long magnitude = 0;  // the value is below 10^magnitude
  if (*p == '0') {
    ++p;
  } else if (is_digit(*p)) {
    while (p != end && is_digit(*p)) {
      ++p;
      ++magnitude;
    }
  } else {
    return nullptr;
  }
  if (p != end && *p == '.') {
    ++p;
    if (p == end || !is_digit(*p)) return nullptr;
    while (p != end && is_digit(*p)) ++p;
  }
  if (p != end && (*p == 'e' || *p == 'E')) {
    ++p;
    bool negative = false;
    if (p != end && (*p == '+' || *p == '-')) negative = *p++ == '-';
    if (p == end || !is_digit(*p)) return nullptr;
    long exponent = 0;
    while (p != end && is_digit(*p)) {
      if (exponent < 100'000'000) exponent = exponent * 10 + (*p - '0');
      ++p;
    }
    magnitude += negative ? -exponent : exponent;
  }
  if (magnitude <= 308) return p;  // below 1e308 < DBL_MAX
  const std::string_view token(start, static_cast<std::size_t>(p - start));
  return nlohmann::json::parse(token, nullptr, /*allow_exceptions=*/false).is_discarded() ? nullptr : p;
}

// Four hex digits at p as a code unit, or -1.
long hex4(const char* p, const char* end) {
  if (end - p < 4) return -1;
  long v = 0;
  for (int k = 0; k < 4; ++k) {
    const int h = hex_value(p[k]);
    if (h < 0) return -1;
    v = v * 16 + h;
  }
  return v;
}

// An escape at p (its backslash): its end, or nullptr. A high surrogate must be followed by an
// escaped low one.
const char* escape(const char* p, const char* end) {
  if (end - p < 2) return nullptr;
  const char e = p[1];
  p += 2;
  if (e != 'u') return std::string_view("\"\\/bfnrt").find(e) != std::string_view::npos ? p : nullptr;
  const long unit = hex4(p, end);
  if (unit < 0 || (unit >= 0xDC00 && unit <= 0xDFFF)) return nullptr;
  p += 4;
  if (unit < 0xD800 || unit > 0xDBFF) return p;
  if (end - p < 2 || p[0] != '\\' || p[1] != 'u') return nullptr;
  const long low = hex4(p + 2, end);
  return low >= 0xDC00 && low <= 0xDFFF ? p + 6 : nullptr;
}

const char* string_rest(const char* p, const char* end, bool& escaped) {
  for (;;) {
    if (p == end) return nullptr;
    const unsigned char c = static_cast<unsigned char>(*p);
    if (c == '"') return p + 1;
    if (c == '\\') {
      escaped = true;
      p = escape(p, end);
      if (p == nullptr) return nullptr;
    } else if (c < 0x20) {
      return nullptr;
    } else if (c >= 0x80) {
      const std::size_t n = utf8_sequence_length(std::string_view(p, static_cast<std::size_t>(end - p)), 0);
      if (n == 0) return nullptr;
      p += n;
    }
    p = skip_plain(p, end);
  }
}

// The one complete value at p (no whitespace before it): its end, or nullptr when it is not valid
// JSON. One function, with the cursor and the index's node count in locals (registers). With
// kRecord, each value's span goes to `index` (offsets from p).
template <bool kRecord>
const char* scan_value_at(const char* p, const char* const end, JsonIndex* index) {
  const char* const base = p;
  JsonIndex::Node* nodes = nullptr;
  if constexpr (kRecord) nodes = JsonIndexWriter::nodes(*index);
  std::size_t count = 0;  // nodes opened; past the capacity, writes go to the spare last node
  auto open = [&](const char* at) __attribute__((always_inline))->std::size_t {
    if constexpr (!kRecord) {
      return 0;
    } else {
      const std::size_t i = count < JsonIndex::kCapacity ? count : JsonIndex::kCapacity;
      ++count;
      nodes[i].begin = static_cast<std::uint32_t>(at - base);
      return i;
    }
  };
  auto close = [&](std::size_t i, const char* at, std::uint16_t flags) __attribute__((always_inline)) {
    if constexpr (kRecord) {
      nodes[i].end = static_cast<std::uint32_t>(at - base);
      nodes[i].next = static_cast<std::uint16_t>(count);  // past capacity the index is unusable anyway
      nodes[i].flags = flags;
    }
  };
  auto space = [&]() __attribute__((always_inline)) {
    while (p != end && is_json_space(*p)) ++p;
  };
  // A string at p (its opening quote), recorded; false when it is not valid.
  auto string = [&]() __attribute__((always_inline))->bool {
    const std::size_t node = open(p);
    bool escaped = false;
    p = skip_plain_short(p + 1, end);
    if (p != end && *p == '"') {
      ++p;  // plain text up to the closing quote: the usual case
    } else {
      p = string_rest(p, end, escaped);
      if (p == nullptr) return false;
    }
    close(node, p, escaped ? JsonIndex::kEscaped : 0);
    return true;
  };
  // A key, the whitespace after it and its ':'.
  auto key = [&]() __attribute__((always_inline))->bool {
    if (p == end || *p != '"' || !string()) return false;
    if (p != end && *p == ':') {
      ++p;
      return true;
    }
    space();
    if (p == end || *p != ':') return false;
    ++p;
    return true;
  };
  auto literal = [&](std::string_view word) __attribute__((always_inline))->bool {
    if (static_cast<std::size_t>(end - p) < word.size() || std::memcmp(p, word.data(), word.size()) != 0) return false;
    const std::size_t node = open(p);
    p += word.size();
    close(node, p, 0);
    return true;
  };

  LevelKinds kinds;
  // While recording, the node of each open container (beyond the index's capacity, any slot: the
  // index is unusable then).
  std::uint16_t containers[JsonIndex::kCapacity + 1];
  std::size_t depth = 0;
  bool in_object = false;  // the innermost open container is an object
  for (;;) {
    // A value is expected at p.
    space();
    if (p == end) return nullptr;
    const char c = *p;
    if (c == '{' || c == '[') {
      if (depth == kLenientJsonMaxDepth) return nullptr;
      const std::size_t node = open(p);
      if constexpr (kRecord) {
        containers[depth < JsonIndex::kCapacity ? depth : JsonIndex::kCapacity] = static_cast<std::uint16_t>(node);
      }
      in_object = c == '{';
      kinds.set(depth, in_object);
      ++depth;
      ++p;
      space();
      if (p == end) return nullptr;
      if (*p != (in_object ? '}' : ']')) {
        if (in_object && !key()) return nullptr;
        continue;
      }
      ++p;  // empty: the container is the value just read
      --depth;
      close(node, p, 0);
      if (depth != 0) in_object = kinds.object(depth - 1);
    } else if (c == '"') {
      if (!string()) return nullptr;
    } else if (c == 't' || c == 'f' || c == 'n') {
      if (!literal(c == 't' ? "true" : c == 'f' ? "false" : "null")) return nullptr;
    } else if (c == '-' || is_digit(c)) {
      const std::size_t node = open(p);
      p = number(p, end);
      if (p == nullptr) return nullptr;
      close(node, p, 0);
    } else {
      return nullptr;
    }
    // After a value: ',' and the next one, or the closing brackets of the containers it ends.
    for (;;) {
      if (depth == 0) {
        if constexpr (kRecord) JsonIndexWriter::finish(*index, count);
        return p;
      }
      space();
      if (p == end) return nullptr;
      const char d = *p;
      if (d == ',') {
        ++p;
        if (in_object) {
          space();
          if (!key()) return nullptr;
        }
        break;
      }
      if (d != (in_object ? '}' : ']')) return nullptr;
      ++p;
      --depth;
      if constexpr (kRecord) close(containers[depth < JsonIndex::kCapacity ? depth : JsonIndex::kCapacity], p, 0);
      if (depth != 0) in_object = kinds.object(depth - 1);
    }
  }
}

// The value at begin (no whitespace before it): its end, or nullptr when it is not valid JSON.
// Recorded in `index` when there is one (and the text is small enough for its offsets).
const char* scan_value(const char* begin, const char* end, JsonIndex* index) {
  if (index != nullptr) *index = JsonIndex();  // unusable until a scan completes
  if (index != nullptr && static_cast<std::size_t>(end - begin) <= std::numeric_limits<std::uint32_t>::max()) {
    return scan_value_at<true>(begin, end, index);
  }
  return scan_value_at<false>(begin, end, nullptr);
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
