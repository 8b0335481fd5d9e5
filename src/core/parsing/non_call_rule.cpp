#include "core/parsing/non_call_rule.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "core/parsing/formats/minimax_m3_values.hpp"
#include "core/parsing/json/json_view.hpp"

namespace keel::detail {
namespace {

constexpr size_t kNone = std::string_view::npos;

bool ascii_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool ascii_digit(char c) { return c >= '0' && c <= '9'; }
bool ascii_upper(char c) { return c >= 'A' && c <= 'Z'; }
bool ident_char(char c) { return ascii_alpha(c) || ascii_digit(c) || c == '_'; }
bool blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

char lower(char c) { return ascii_upper(c) ? static_cast<char>(c - 'A' + 'a') : c; }

// Info-string languages whose fenced blocks are examples: programming languages, shells and
// listings of a console, a log or plain text.
constexpr std::string_view kExampleLanguages[] = {
    "python", "py", "python3", "py3", "ipython", "pycon", "bash", "sh", "shell", "zsh", "fish", "console",
    "shell-session", "shellsession", "terminal", "powershell", "ps1", "pwsh", "cmd", "bat", "batch",
    "javascript", "js", "node", "jsx", "mjs", "typescript", "ts", "tsx", "java", "kotlin", "kt", "scala",
    "swift", "c", "h", "cpp", "c++", "cc", "hpp", "cxx", "csharp", "cs", "c#", "fsharp", "go", "golang",
    "rust", "rs", "ruby", "rb", "php", "perl", "pl", "lua", "r", "julia", "dart", "haskell", "hs",
    "elixir", "ex", "erlang", "clojure", "ocaml", "sql", "lisp", "scheme", "objc", "objective-c",
    "matlab", "groovy", "vb", "vbnet", "text", "txt", "plaintext", "plain", "log", "logs", "output",
    "stdout", "stderr", "diff"};

bool example_language(std::string_view info) {
  size_t b = 0;
  while (b < info.size() && (blank(info[b]) || info[b] == '{' || info[b] == '.')) ++b;
  size_t e = b;
  while (e < info.size() && !blank(info[e]) && info[e] != '}' && info[e] != ',' && info[e] != '\n') ++e;
  if (e == b || e - b > 16) return false;
  std::string tag;
  for (size_t i = b; i < e; ++i) tag += lower(info[i]);
  return std::find(std::begin(kExampleLanguages), std::end(kExampleLanguages), tag) != std::end(kExampleLanguages);
}

size_t line_end(std::string_view text, size_t pos) {
  size_t nl = text.find('\n', pos);
  return nl == kNone ? text.size() : nl;
}

// Digits at text[pos, pos + n).
bool digits_at(std::string_view text, size_t pos, size_t n) {
  if (pos + n > text.size()) return false;
  for (size_t i = pos; i < pos + n; ++i) {
    if (!ascii_digit(text[i])) return false;
  }
  return true;
}

// HH:MM at pos.
bool clock_at(std::string_view text, size_t pos) {
  return digits_at(text, pos, 2) && pos + 2 < text.size() && text[pos + 2] == ':' && digits_at(text, pos + 3, 2);
}

// A timestamp at `pos`: a date with a time after it, or HH:MM:SS.
bool timestamp_at(std::string_view text, size_t pos) {
  if (digits_at(text, pos, 4) && pos + 10 <= text.size() && (text[pos + 4] == '-' || text[pos + 4] == '/') &&
      digits_at(text, pos + 5, 2) && text[pos + 7] == text[pos + 4] && digits_at(text, pos + 8, 2)) {
    return pos + 11 < text.size() && (text[pos + 10] == 'T' || text[pos + 10] == ' ') && clock_at(text, pos + 11);
  }
  return clock_at(text, pos) && pos + 5 < text.size() && text[pos + 5] == ':' && digits_at(text, pos + 6, 2);
}

constexpr std::string_view kLevels[] = {"TRACE", "DEBUG", "INFO", "WARNING", "WARN", "ERROR", "FATAL", "CRITICAL"};

// The log prefix of rule 1c at `pos` (a line's first non-blank byte).
bool log_prefix_at(std::string_view text, size_t pos) {
  const char c0 = text[pos];
  if (c0 == 't' || c0 == 'l') return text.substr(pos, 5) == "time=" || text.substr(pos, 6) == "level=";
  const bool bracket = c0 == '[';
  const size_t at = bracket ? pos + 1 : pos;
  if (at >= text.size()) return false;
  if (ascii_digit(text[at])) return timestamp_at(text, at);
  const char c = text[at];
  if (c != 'T' && c != 'D' && c != 'I' && c != 'W' && c != 'E' && c != 'F' && c != 'C') return false;
  for (std::string_view level : kLevels) {
    if (level[0] != c) continue;
    if (text.substr(at, level.size()) != level) continue;
    const size_t after = at + level.size();
    if (after >= text.size()) return false;
    const char c = text[after];
    return bracket ? c == ']' : (c == ':' || c == ']' || c == '|' || c == ' ' || c == '\t');
  }
  return false;
}

// A block-quote line (rule 1b) whose first non-blank byte is at `pos`, `indent` bytes in.
bool quote_at(std::string_view text, size_t pos, size_t indent) {
  if (indent > 3 || pos >= text.size() || text[pos] != '>') return false;
  return pos + 1 == text.size() || blank(text[pos + 1]) || text[pos + 1] == '\n';
}

// The closing fence of a block opened by `count` `fence` characters, searched from `pos`: the end
// of its line, or text.size() when it never closes.
size_t fence_close(std::string_view text, size_t pos, char fence, size_t count) {
  while (pos < text.size()) {
    size_t eol = line_end(text, pos);
    size_t i = pos;
    while (i < eol && blank(text[i])) ++i;
    size_t run = 0;
    while (i + run < eol && text[i + run] == fence) ++run;
    if (run >= count) {
      size_t j = i + run;
      while (j < eol && blank(text[j])) ++j;
      if (j == eol) return eol;
    }
    pos = eol + 1;
  }
  return text.size();
}

// A cheap look at a line's first two bytes: whether it may start a quote or a log prefix (most
// lines of a reply start with prose or call syntax and are passed over here).
bool may_start_region(char c, char next) {
  return c == '>' || c == '[' || ascii_digit(c) || c == 't' || c == 'l' || (ascii_upper(c) && ascii_upper(next));
}

}  // namespace

bool may_open_region(std::string_view text) {
  // Every region opens a line (after blanks): only the first byte of each line is looked at, found
  // with memchr, so long prose costs one pass of it.
  static constexpr auto kTrigger = [] {
    std::array<unsigned char, 256> t{};
    for (unsigned char c : std::string_view("`~>[0123456789tl")) t[c] = 1;
    for (unsigned char c = 'A'; c <= 'Z'; ++c) t[c] = 2;
    return t;
  }();
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  const size_t n = text.size();
  for (size_t line = 0; line < n;) {
    size_t i = line;
    while (i < n && blank(static_cast<char>(s[i]))) ++i;
    if (i < n) {
      const unsigned char k = kTrigger[s[i]];
      if (k == 2) {  // a level word: two capitals
        if (i + 1 < n && kTrigger[s[i + 1]] == 2) return true;
      } else if (s[i] == 't' || s[i] == 'l') {  // time=, level=
        if (text.substr(i, 5) == "time=" || text.substr(i, 6) == "level=") return true;
      } else if (k == 1) {
        return true;
      }
    }
    const void* nl = i < n ? std::memchr(s + i, '\n', n - i) : nullptr;
    if (nl == nullptr) break;
    line = static_cast<size_t>(static_cast<const unsigned char*>(nl) - s) + 1;
  }
  return false;
}

std::vector<TextRegion> example_regions(std::string_view text) {
  std::vector<TextRegion> out;
  enum class Run { kNone, kQuote, kLog };
  Run run = Run::kNone;
  for (size_t line = 0; line < text.size();) {
    const size_t eol = line_end(text, line);
    size_t first = line;
    while (first < eol && blank(text[first])) ++first;
    Run kind = Run::kNone;
    if (first < eol && (text[first] == '`' || text[first] == '~')) {
      const char fence = text[first];
      size_t count = 0;
      while (first + count < eol && text[first + count] == fence) ++count;
      if (count >= 3) {
        const size_t close = eol == text.size() ? text.size() : fence_close(text, eol + 1, fence, count);
        if (example_language(text.substr(first + count, eol - first - count))) out.push_back({line, close});
        run = Run::kNone;
        line = close + 1;
        continue;
      }
    } else if (first < eol && may_start_region(text[first], first + 1 < eol ? text[first + 1] : '\n')) {
      if (quote_at(text, first, first - line)) {
        kind = Run::kQuote;
      } else if (log_prefix_at(text, first)) {
        kind = Run::kLog;
      }
    }
    if (kind != Run::kNone && kind == run) {
      out.back().end = eol;
    } else if (kind != Run::kNone) {
      out.push_back({line, eol});
    }
    run = kind;
    line = eol + 1;
  }
  return out;
}

std::string mask_regions(std::string_view text, std::span<const TextRegion> regions) {
  std::string out(text);
  for (const TextRegion& r : regions) {
    for (size_t i = r.begin; i < r.end && i < out.size(); ++i) {
      if (out[i] != '\n') out[i] = kMaskByte;
    }
  }
  return out;
}

bool holds_mask(std::string_view s) {
  return s.find(kMaskByte) != kNone || s.find("\\u001a") != kNone || s.find("\\u001A") != kNone;
}

bool unmask_content(std::string& content, std::string_view text, std::span<const TextRegion> regions) {
  std::string out;
  out.reserve(content.size());
  size_t cursor = 0;
  for (const TextRegion& r : regions) {
    const std::string masked = mask_regions(text.substr(r.begin, r.end - r.begin), std::vector<TextRegion>{{0, r.end - r.begin}});
    // The content is trimmed: a region's leading or trailing line breaks may be gone.
    std::string_view want = masked;
    while (!want.empty() && want.front() == '\n') want.remove_prefix(1);
    while (!want.empty() && want.back() == '\n') want.remove_suffix(1);
    if (want.empty()) continue;
    const size_t at = content.find(want, cursor);
    if (at == kNone) return false;
    const size_t lead = static_cast<size_t>(want.data() - masked.data());
    out.append(content, cursor, at - cursor);
    out.append(text.substr(r.begin + lead, want.size()));
    cursor = at + want.size();
  }
  out.append(content, cursor, kNone);
  if (holds_mask(out)) return false;
  content = std::move(out);
  return true;
}

bool is_placeholder(std::string_view v) {
  if (v.empty()) return false;
  if (v == "..." || v == "\xE2\x80\xA6" || (v.size() > 3 && v.find_first_not_of('.') == kNone)) return true;
  auto ident = [](std::string_view s) {
    return !s.empty() && (ascii_alpha(s[0]) || s[0] == '_') && std::all_of(s.begin(), s.end(), [](char c) {
             return ident_char(c) || c == '.';
           });
  };
  if (v.size() >= 3 && v.front() == '<' && v.back() == '>') {
    std::string_view in = v.substr(1, v.size() - 2);
    return ascii_alpha(in[0]) && std::all_of(in.begin(), in.end(), [](char c) {
             return ident_char(c) || c == '-' || c == '.' || c == ' ';
           });
  }
  if (v.size() >= 5 && v.starts_with("{{") && v.ends_with("}}")) return ident(v.substr(2, v.size() - 4));
  if (v.size() >= 3 && v.front() == '{' && v.back() == '}') return ident(v.substr(1, v.size() - 2));
  if (v.size() >= 3 && v.front() == '[' && v.back() == ']') {
    std::string_view in = v.substr(1, v.size() - 2);
    return ascii_upper(in[0]) && std::all_of(in.begin(), in.end(), [](char c) {
             return ascii_upper(c) || ascii_digit(c) || c == '_';
           });
  }
  if (v.size() > 5 && lower(v[0]) == 'y' && lower(v[1]) == 'o' && lower(v[2]) == 'u' && lower(v[3]) == 'r' &&
      (v[4] == '_' || v[4] == '-')) {
    return std::all_of(v.begin(), v.end(), [](char c) { return ident_char(c) || c == '-'; });
  }
  return false;
}

namespace {

std::optional<PlaceholderArgument> find_placeholder(JsonView value, std::string_view key, int depth) {
  if (value.is_string()) {
    std::string s = value.str();
    if (is_placeholder(s)) return PlaceholderArgument{std::string(key), std::move(s)};
    return std::nullopt;
  }
  if (depth > 16 || (!value.is_object() && !value.is_array())) return std::nullopt;
  const bool object = value.is_object();
  JsonView::Items it = value.items();
  JsonView k, v;
  while (it.next(k, v)) {
    const std::string member = object ? k.str() : std::string(key);
    if (auto found = find_placeholder(v, member, depth + 1)) return found;
  }
  return std::nullopt;
}

}  // namespace

bool may_hold_placeholder(std::string_view arguments) {
  // Only a string can be one, and its first character tells: skip the walk unless some string
  // starts like a placeholder, i.e. some '"' is followed by one of kStartBytes.
  static constexpr std::string_view kStartBytes = "<{[.yY\xE2";
  static constexpr auto kStarts = [] {
    std::array<unsigned char, 256> t{};
    for (unsigned char c : kStartBytes) t[c] = 1;
    return t;
  }();
  const auto* p = reinterpret_cast<const unsigned char*>(arguments.data());
  const size_t n = arguments.size();
  auto starts_after = [&](size_t quote) { return quote + 1 < n && kStarts[p[quote + 1]] != 0; };
  size_t i = 0;
#if defined(__SSE2__)
  // Sixteen quotes at a time, each with the byte after it (most arguments hold no such pair: one
  // or two blocks settle them). The block that ends the text overlaps what was seen.
  if (n >= 17) {
    static_assert(kStartBytes.size() == 7);
    auto pair_in = [p](size_t at) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + at));
      const __m128i w = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + at + 1));
      auto is = [&w](char c) { return _mm_cmpeq_epi8(w, _mm_set1_epi8(c)); };
      const __m128i start =
          _mm_or_si128(_mm_or_si128(_mm_or_si128(is(kStartBytes[0]), is(kStartBytes[1])),
                                    _mm_or_si128(is(kStartBytes[2]), is(kStartBytes[3]))),
                       _mm_or_si128(_mm_or_si128(is(kStartBytes[4]), is(kStartBytes[5])), is(kStartBytes[6])));
      return _mm_movemask_epi8(_mm_and_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')), start)) != 0;
    };
    for (; i + 17 <= n; i += 16) {
      if (pair_in(i)) return true;
    }
    return i + 1 < n && pair_in(n - 17);  // quotes at n - 17 .. n - 2 (the last byte has none after it)
  }
#endif
  // Short arguments: quotes are found eight bytes at a time (a call per quote costs more than the
  // look itself).
  if constexpr (std::endian::native == std::endian::little) {
    constexpr std::uint64_t kOnes = 0x0101010101010101ull;
    constexpr std::uint64_t kHigh = 0x8080808080808080ull;
    while (i + 8 <= n) {
      std::uint64_t w;
      std::memcpy(&w, p + i, 8);
      w ^= kOnes * '"';
      // The lowest flagged byte is a quote (flags above it may be false).
      const std::uint64_t zero = (w - kOnes) & ~w & kHigh;
      if (zero == 0) {
        i += 8;
        continue;
      }
      const size_t quote = i + static_cast<size_t>(std::countr_zero(zero)) / 8;
      if (starts_after(quote)) return true;
      i = quote + 1;
    }
  }
  for (; i < n; ++i) {
    if (p[i] == '"' && starts_after(i)) return true;
  }
  return false;
}

std::optional<PlaceholderArgument> placeholder_argument(std::string_view arguments) {
  if (!may_hold_placeholder(arguments)) return std::nullopt;
  return find_placeholder(JsonView(arguments), "", 0);
}

size_t unquoted_placeholder(std::string_view text) {
  for (size_t i = text.find('<'); i != kNone; i = text.find('<', i + 1)) {
    size_t j = i;
    while (j > 0 && (blank(text[j - 1]) || text[j - 1] == '\n')) --j;
    if (j == 0 || (text[j - 1] != ':' && text[j - 1] != '[' && text[j - 1] != ',')) continue;
    if (text.substr(0, j).ends_with(kMinimaxM3Delimiter)) continue;  // MiniMax-M3's tag delimiter ends in '['
    const size_t close = text.find('>', i + 1);
    if (close != kNone && close - i < 64 && is_placeholder(text.substr(i, close - i + 1))) return i;
  }
  return kNone;
}

bool unmarked_reading(std::string_view format, std::string_view text) {
  if (format == "json") return true;
  if (format == "pythonic") return text.find("<|python_start|>") == kNone;
  if (format == "llama3") return text.find("<|python_tag|>") == kNone;
  return false;
}

bool all_registered(std::span<const ToolCall> calls, std::span<const ToolSpec> tools) {
  return std::all_of(calls.begin(), calls.end(), [&](const ToolCall& c) {
    return std::any_of(tools.begin(), tools.end(), [&](const ToolSpec& t) { return t.name == c.name; });
  });
}

}  // namespace keel::detail
