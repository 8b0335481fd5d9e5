// The date grammar of the extraction guard: is_valid_date() and match_date(), one parser for both,
// so every date the heuristic extractor finds passes the type check. Forms are listed in
// keel/core/extraction.hpp.
#include <algorithm>
#include <array>
#include <cstddef>
#include <string_view>

#include "core/extraction/extraction_detail.hpp"
#include "core/extraction/extraction_unicode.hpp"
#include "keel/core/extraction.hpp"

namespace keel::detail {
namespace {

constexpr size_t kNoMatch = std::string_view::npos;
constexpr int kMaxSpaces = 4;  // whitespace code points allowed between the words of a date

char ascii_lower(char c) {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

// A read position in the text; each reader consumes on success and leaves `p` alone on failure.
struct Cursor {
  std::string_view s;
  size_t p = 0;

  bool at_end() const { return p >= s.size(); }
  char peek() const { return at_end() ? '\0' : s[p]; }
  bool lit(char c) {
    if (peek() != c) return false;
    ++p;
    return true;
  }
  bool lit_any(std::string_view set, char& which) {
    if (at_end() || set.find(s[p]) == std::string_view::npos) return false;
    which = s[p++];
    return true;
  }
  // A run of digits of length min..max (the whole run: "2024" is not a two-digit number).
  bool number(int min, int max, int& value, int* length = nullptr) {
    size_t q = p;
    int v = 0;
    while (q < s.size() && is_ascii_digit(s[q])) {
      if (static_cast<int>(q - p) == max) return false;
      v = v * 10 + (s[q++] - '0');
    }
    const int n = static_cast<int>(q - p);
    if (n < min) return false;
    p = q;
    value = v;
    if (length != nullptr) *length = n;
    return true;
  }
  // Exactly n digits, whatever follows ("0200" of a zone offset is hours then minutes).
  bool fixed(int n, int& value) {
    if (p + static_cast<size_t>(n) > s.size()) return false;
    int v = 0;
    for (int i = 0; i < n; ++i) {
      const char c = s[p + static_cast<size_t>(i)];
      if (!is_ascii_digit(c)) return false;
      v = v * 10 + (c - '0');
    }
    p += static_cast<size_t>(n);
    value = v;
    return true;
  }
  // One to kMaxSpaces whitespace code points (a longer run is not inside a date).
  bool spaces() {
    size_t q = p;
    int n = 0;
    while (q < s.size()) {
      size_t next = q;
      if (!is_unicode_space(decode_utf8(s, next))) break;
      if (++n > kMaxSpaces) return false;
      q = next;
    }
    if (n == 0) return false;
    p = q;
    return true;
  }
  // Whether no letter or digit continues the word just read.
  bool at_word_end() const {
    if (at_end()) return true;
    size_t q = p;
    return !is_word_char(decode_utf8(s, q));
  }
  // An ASCII word (letters only, at most 9) that ends there, lowercased into `out`.
  bool word(std::string_view& out, std::array<char, 10>& buf) {
    size_t q = p;
    size_t n = 0;
    while (q < s.size() && is_ascii_alpha(s[q])) {
      if (n == 9) return false;
      buf[n++] = ascii_lower(s[q++]);
    }
    if (n == 0) return false;
    Cursor after{s, q};
    if (!after.at_word_end()) return false;
    p = q;
    out = std::string_view(buf.data(), n);
    return true;
  }
};

constexpr std::array<std::string_view, 12> kMonths = {"january",   "february", "march",    "april",
                                                      "may",       "june",     "july",     "august",
                                                      "september", "october",  "november", "december"};
constexpr std::array<std::string_view, 7> kWeekdays = {"monday", "tuesday",  "wednesday", "thursday",
                                                       "friday", "saturday", "sunday"};

// 1-12 for a month's full name, its first three letters or "sept"; 0 otherwise.
int month_number(std::string_view w) {
  for (size_t i = 0; i < kMonths.size(); ++i) {
    if (w == kMonths[i] || w == kMonths[i].substr(0, 3)) return static_cast<int>(i) + 1;
  }
  return w == "sept" ? 9 : 0;
}

bool is_weekday(std::string_view w) {
  return std::any_of(kWeekdays.begin(), kWeekdays.end(),
                     [&](std::string_view d) { return w == d || w == d.substr(0, 3); });
}

bool leap(int year) {
  return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
}

// Whether day/month/year is a real date; year 0 means "no year given" (February has 29 days).
bool real_date(int year, int month, int day) {
  static constexpr std::array<int, 12> kDays = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (year < 0 || year > 9999 || month < 1 || month > 12 || day < 1) return false;
  if (day > kDays[static_cast<size_t>(month - 1)]) return false;
  return !(month == 2 && day == 29 && year != 0 && !leap(year));
}

bool month_name(Cursor& c, int& month) {
  std::array<char, 10> buf{};
  std::string_view w;
  Cursor t = c;
  if (!t.word(w, buf)) return false;
  const int m = month_number(w);
  if (m == 0) return false;
  t.lit('.');
  c = t;
  month = m;
  return true;
}

// A day number with an optional English ordinal suffix ("3", "03", "3rd", "21st").
bool day_number(Cursor& c, int& day) {
  Cursor t = c;
  if (!t.number(1, 2, day)) return false;
  Cursor suffix = t;
  std::array<char, 10> buf{};
  std::string_view w;
  if (suffix.word(w, buf) && (w == "st" || w == "nd" || w == "rd" || w == "th")) t = suffix;
  if (!t.at_word_end()) return false;
  c = t;
  return true;
}

// ", 2024" or " 2024" after a written day and month: the end of the date with its year, kNoMatch
// when a year is there but the date is not real, `fallback` when no year follows.
size_t written_year(Cursor c, int month, int day, size_t fallback) {
  c.lit(',');
  int year = 0;
  if (!c.spaces() || !c.number(4, 4, year) || !c.at_word_end()) return fallback;
  return real_date(year, month, day) ? c.p : kNoMatch;
}

// "March 3", "Mar. 3rd, 2024".
size_t month_first(Cursor c) {
  int month = 0;
  int day = 0;
  if (!month_name(c, month) || !c.spaces() || !day_number(c, day)) return kNoMatch;
  return written_year(c, month, day, real_date(0, month, day) ? c.p : kNoMatch);
}

// "3 March", "3rd of March, 2024".
size_t day_first(Cursor c) {
  int month = 0;
  int day = 0;
  if (!day_number(c, day) || !c.spaces()) return kNoMatch;
  Cursor of = c;
  std::array<char, 10> buf{};
  std::string_view w;
  if (of.word(w, buf) && w == "of" && of.spaces()) c = of;
  if (!month_name(c, month)) return kNoMatch;
  return written_year(c, month, day, real_date(0, month, day) ? c.p : kNoMatch);
}

// Either written form, optionally after a weekday ("Sunday, March 3, 2024").
size_t written(Cursor c) {
  Cursor t = c;
  std::array<char, 10> buf{};
  std::string_view w;
  if (t.word(w, buf) && is_weekday(w)) {
    t.lit('.');
    t.lit(',');
    if (!t.spaces()) return kNoMatch;
    c = t;
  }
  const size_t a = month_first(c);
  const size_t b = day_first(c);
  if (a == kNoMatch) return b;
  if (b == kNoMatch) return a;
  return std::max(a, b);
}

// "10:30", "10:30:15", "10:30:15.123", each optionally followed by "Z", "+02", "+0200" or "-02:00".
bool iso_time(Cursor& c) {
  Cursor t = c;
  int h = 0;
  int m = 0;
  int sec = 0;
  if (!t.number(2, 2, h) || !t.lit(':') || !t.number(2, 2, m) || h > 23 || m > 59) return false;
  Cursor s = t;
  if (s.lit(':') && s.number(2, 2, sec) && sec <= 60) {
    t = s;
    Cursor f = t;
    char mark = 0;
    int frac = 0;
    if (f.lit_any(".,", mark) && f.number(1, 9, frac)) t = f;
  }
  Cursor z = t;
  char sign = 0;
  int zh = 0;
  int zm = 0;
  if (z.lit('Z') || z.lit('z')) {
    t = z;
  } else if (z.lit_any("+-", sign) && z.fixed(2, zh) && zh <= 23) {
    t = z;
    Cursor zmin = z;
    zmin.lit(':');
    if (zmin.fixed(2, zm) && zm <= 59) t = zmin;
  }
  if (!t.at_word_end()) return false;
  c = t;
  return true;
}

// "2024-03-04" (with an optional time), "2024/3/4", "2024.03.04".
size_t year_first(Cursor c) {
  int y = 0;
  int m = 0;
  int d = 0;
  char sep = 0;
  if (!c.number(4, 4, y) || !c.lit_any("-/.", sep) || !c.number(1, 2, m) || !c.lit(sep) || !c.number(1, 2, d)) {
    return kNoMatch;
  }
  if (!real_date(y, m, d) || y == 0) return kNoMatch;
  if (sep == '-') {
    Cursor t = c;
    char mark = 0;
    if (t.lit_any("Tt ", mark) && iso_time(t)) return t.p;
  }
  return c.p;
}

// "03/04/2024", "3-4-24", "03.04.2024": day/month or month/day; a two-digit year is 20YY; the dot
// form needs four digits (so version numbers like 1.2.24 are not dates).
size_t day_month_year(Cursor c) {
  int a = 0;
  int b = 0;
  int y = 0;
  int y_len = 0;
  char sep = 0;
  if (!c.number(1, 2, a) || !c.lit_any("/.-", sep) || !c.number(1, 2, b) || !c.lit(sep) || !c.number(2, 4, y, &y_len)) {
    return kNoMatch;
  }
  if (y_len == 3 || (sep == '.' && y_len != 4)) return kNoMatch;
  if (y_len == 2) y += 2000;
  if (y == 0 || !(real_date(y, b, a) || real_date(y, a, b))) return kNoMatch;
  return c.p;
}

}  // namespace

size_t match_date(std::string_view text, size_t pos) {
  if (pos >= text.size()) return 0;
  const Cursor c{text, pos};
  size_t best = 0;
  for (size_t end : {year_first(c), day_month_year(c), written(c)}) {
    if (end != kNoMatch) best = std::max(best, end - pos);
  }
  return best;
}

}  // namespace keel::detail

namespace keel {

bool is_valid_date(std::string_view value) {
  const std::string_view v = detail::trim_unicode_space(value);
  return !v.empty() && detail::match_date(v, 0) == v.size();
}

}  // namespace keel
