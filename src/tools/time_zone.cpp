#include "tools/time_zone.hpp"

#include <time.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <vector>

namespace keel::detail {
namespace {

constexpr int64_t kDay = 86400;

// ---------------------------------------------------------------- POSIX TZ rules

struct DateRule {
  enum class Kind { kJulian1, kJulian0, kMonthWeekDay } kind = Kind::kMonthWeekDay;
  int month = 0, week = 0, day = 0;  // kMonthWeekDay: Mm.w.d; the Julian kinds use `day`
  int32_t time = 2 * 3600;           // local time of day of the change, may be < 0 or > 24 h
};

struct PosixRule {
  std::string std_name, dst_name;
  int32_t std_offset = 0;  // POSIX sense: seconds *west* of UTC
  int32_t dst_offset = 0;
  bool has_dst = false;
  DateRule start, end;
};

// Parses a POSIX TZ string ("std offset [dst [offset] [,start[/time],end[/time]]]").
// Not thread-safe; one parser per string.
class RuleParser {
 public:
  explicit RuleParser(std::string_view s) : s_(s) {}

  std::optional<PosixRule> parse() {
    PosixRule r;
    if (!name(r.std_name) || !offset(r.std_offset)) return std::nullopt;
    if (done()) return r;
    if (!name(r.dst_name)) return std::nullopt;
    r.has_dst = true;
    r.dst_offset = r.std_offset - 3600;
    if (!done() && peek() != ',' && !offset(r.dst_offset)) return std::nullopt;
    if (done()) {  // POSIX leaves the default rules to the implementation; use the US ones
      r.start = {DateRule::Kind::kMonthWeekDay, 3, 2, 0, 7200};
      r.end = {DateRule::Kind::kMonthWeekDay, 11, 1, 0, 7200};
      return r;
    }
    if (!eat(',') || !date(r.start) || !eat(',') || !date(r.end) || !done()) return std::nullopt;
    return r;
  }

 private:
  bool done() const { return i_ >= s_.size(); }
  char peek() const { return done() ? '\0' : s_[i_]; }
  bool eat(char c) {
    if (peek() != c) return false;
    ++i_;
    return true;
  }
  bool number(int& out, int max_digits) {
    int digits = 0;
    out = 0;
    while (!done() && peek() >= '0' && peek() <= '9' && digits < max_digits) {
      out = out * 10 + (s_[i_++] - '0');
      ++digits;
    }
    return digits > 0;
  }
  bool name(std::string& out) {
    if (eat('<')) {
      const size_t close = s_.find('>', i_);
      if (close == std::string_view::npos) return false;
      out = std::string(s_.substr(i_, close - i_));
      i_ = close + 1;
      return !out.empty();
    }
    const size_t start = i_;
    while (!done() && ((peek() >= 'A' && peek() <= 'Z') || (peek() >= 'a' && peek() <= 'z'))) ++i_;
    out = std::string(s_.substr(start, i_ - start));
    return out.size() >= 3;
  }
  // [+-]hh[:mm[:ss]] in seconds; hours up to 167 (RFC 8536 extension).
  bool hms(int32_t& out) {
    const bool negative = eat('-');
    if (!negative) eat('+');
    int h = 0, m = 0, sec = 0;
    if (!number(h, 3) || h > 167) return false;
    if (eat(':') && (!number(m, 2) || m > 59)) return false;
    if (eat(':') && (!number(sec, 2) || sec > 59)) return false;
    out = (h * 3600 + m * 60 + sec) * (negative ? -1 : 1);
    return true;
  }
  bool offset(int32_t& out) { return hms(out); }
  bool date(DateRule& r) {
    if (eat('J')) {
      r.kind = DateRule::Kind::kJulian1;
      if (!number(r.day, 3) || r.day < 1 || r.day > 365) return false;
    } else if (eat('M')) {
      r.kind = DateRule::Kind::kMonthWeekDay;
      if (!number(r.month, 2) || r.month < 1 || r.month > 12 || !eat('.')) return false;
      if (!number(r.week, 1) || r.week < 1 || r.week > 5 || !eat('.')) return false;
      if (!number(r.day, 1) || r.day > 6) return false;
    } else {
      r.kind = DateRule::Kind::kJulian0;
      if (!number(r.day, 3) || r.day > 365) return false;
    }
    r.time = 7200;
    if (eat('/') && !hms(r.time)) return false;
    return true;
  }

  std::string_view s_;
  size_t i_ = 0;
};

bool is_leap(int year) { return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0; }

int days_in_month(int year, int month) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return month == 2 && is_leap(year) ? 29 : kDays[month - 1];
}

// Midnight UTC of year-month-day as POSIX time (timegm ignores TZ, so it is thread-safe).
int64_t midnight(int year, int month, int day) {
  std::tm tm{};
  tm.tm_year = year - 1900;
  tm.tm_mon = month - 1;
  tm.tm_mday = day;
  return static_cast<int64_t>(timegm(&tm));
}

// The wall-clock instant (as if local time were UTC) at which `rule` fires in `year`.
int64_t rule_local_time(const DateRule& rule, int year) {
  int64_t day_start = 0;
  switch (rule.kind) {
    case DateRule::Kind::kJulian1:  // 1..365, February 29 never counted
      day_start = midnight(year, 1, 1) + (rule.day - 1 + (is_leap(year) && rule.day >= 60 ? 1 : 0)) * kDay;
      break;
    case DateRule::Kind::kJulian0:  // 0..365, February 29 counted
      day_start = midnight(year, 1, 1) + rule.day * kDay;
      break;
    case DateRule::Kind::kMonthWeekDay: {
      const int64_t first = midnight(year, rule.month, 1);
      const int first_wday = static_cast<int>(((first / kDay) % 7 + 4 + 7) % 7);  // 1970-01-01 was a Thursday
      int day = (rule.day - first_wday + 7) % 7 + (rule.week - 1) * 7;
      while (day >= days_in_month(year, rule.month)) day -= 7;  // week 5 means "the last"
      day_start = first + day * kDay;
      break;
    }
  }
  return day_start + rule.time;
}

ZoneOffset evaluate(const PosixRule& r, int64_t t) {
  const int32_t std_east = -r.std_offset;
  if (!r.has_dst) return {std_east, false, r.std_name};
  const int32_t dst_east = -r.dst_offset;
  const time_t shifted = static_cast<time_t>(t + std_east);
  std::tm tm{};
  gmtime_r(&shifted, &tm);
  const int year = tm.tm_year + 1900;
  const int64_t start = rule_local_time(r.start, year) - std_east;  // rules are in the local time then
  const int64_t end = rule_local_time(r.end, year) - dst_east;
  const bool dst = start < end ? (t >= start && t < end) : !(t >= end && t < start);
  return dst ? ZoneOffset{dst_east, true, r.dst_name} : ZoneOffset{std_east, false, r.std_name};
}

// ---------------------------------------------------------------- TZif files

// Bounds-unchecked cursor over TZif bytes; callers check has() first. Not thread-safe.
class Reader {
 public:
  explicit Reader(std::string_view data) : d_(data) {}
  bool has(size_t n) const { return pos_ <= d_.size() && d_.size() - pos_ >= n; }
  int64_t be(size_t bytes) {  // big-endian signed integer of 4 or 8 bytes
    uint64_t v = 0;
    for (size_t k = 0; k < bytes; ++k) v = (v << 8) | static_cast<uint8_t>(d_[pos_ + k]);
    pos_ += bytes;
    if (bytes == 4) return static_cast<int32_t>(static_cast<uint32_t>(v));
    return static_cast<int64_t>(v);
  }
  uint8_t byte() { return static_cast<uint8_t>(d_[pos_++]); }
  void skip(size_t n) { pos_ += n; }
  size_t pos() const { return pos_; }
  std::string_view rest() const { return pos_ < d_.size() ? d_.substr(pos_) : std::string_view(); }

 private:
  std::string_view d_;
  size_t pos_ = 0;
};

struct TzifCounts {
  char version = 0;
  size_t isut = 0, isstd = 0, leap = 0, time = 0, type = 0, chars = 0;
};

std::optional<TzifCounts> read_header(Reader& r) {
  if (!r.has(44)) return std::nullopt;
  TzifCounts c;
  const std::string_view magic = r.rest().substr(0, 4);
  if (magic != "TZif") return std::nullopt;
  r.skip(4);
  c.version = static_cast<char>(r.byte());
  r.skip(15);
  size_t* fields[] = {&c.isut, &c.isstd, &c.leap, &c.time, &c.type, &c.chars};
  for (size_t* f : fields) {
    const int64_t v = r.be(4);
    if (v < 0 || v > 1'000'000) return std::nullopt;
    *f = static_cast<size_t>(v);
  }
  return c;
}

size_t block_size(const TzifCounts& c, size_t time_bytes) {
  return c.time * time_bytes + c.time + c.type * 6 + c.chars + c.leap * (time_bytes + 4) + c.isstd + c.isut;
}

Result<ZoneOffset> lookup_tzif(std::string_view data, int64_t t, std::string_view name) {
  const Status corrupt = Status::FailedPrecondition("the time zone file for '" + std::string(name) + "' is not valid TZif data");
  Reader r(data);
  std::optional<TzifCounts> c = read_header(r);
  if (!c) return corrupt;
  size_t time_bytes = 4;
  if (c->version >= '2') {  // skip the 32-bit block; use the 64-bit one that follows
    if (!r.has(block_size(*c, 4))) return corrupt;
    r.skip(block_size(*c, 4));
    c = read_header(r);
    if (!c) return corrupt;
    time_bytes = 8;
  }
  if (!r.has(block_size(*c, time_bytes)) || c->type == 0) return corrupt;
  std::vector<int64_t> times(c->time);
  for (auto& v : times) v = r.be(time_bytes);
  std::vector<uint8_t> indices(c->time);
  for (auto& v : indices) v = r.byte();
  struct TypeInfo {
    int32_t offset;
    bool dst;
    uint8_t abbr;
  };
  std::vector<TypeInfo> types(c->type);
  for (auto& ti : types) ti = {static_cast<int32_t>(r.be(4)), r.byte() != 0, r.byte()};
  const std::string_view chars = r.rest().substr(0, c->chars);
  r.skip(c->chars + c->leap * (time_bytes + 4) + c->isstd + c->isut);

  std::string_view footer;
  if (time_bytes == 8 && r.rest().size() >= 2 && r.rest()[0] == '\n') {
    footer = r.rest().substr(1);
    footer = footer.substr(0, footer.find('\n'));
  }
  if (!footer.empty() && (times.empty() || t > times.back())) return posix_rule_offset_at(footer, t);

  size_t type = 0;  // before the first transition: type 0
  for (size_t i = times.size(); i-- > 0;) {
    if (times[i] <= t) {
      type = indices[i];
      break;
    }
  }
  if (type >= types.size()) return corrupt;
  const TypeInfo& ti = types[type];
  std::string abbr;
  if (ti.abbr < chars.size()) abbr = std::string(chars.substr(ti.abbr, chars.find('\0', ti.abbr) - ti.abbr));
  return ZoneOffset{ti.offset, ti.dst, abbr};
}

bool valid_zone_name(std::string_view name) {
  if (name.empty() || name.size() > 255 || name.front() == '/' || name.back() == '/') return false;
  size_t start = 0;
  while (start <= name.size()) {
    const size_t slash = std::min(name.find('/', start), name.size());
    const std::string_view part = name.substr(start, slash - start);
    if (part.empty() || part == "." || part == "..") return false;
    for (char ch : part) {
      const bool ok = (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '_' ||
                      ch == '-' || ch == '+';
      if (!ok) return false;
    }
    start = slash + 1;
  }
  return true;
}

}  // namespace

Result<ZoneOffset> posix_rule_offset_at(std::string_view rule, int64_t t) {
  std::optional<PosixRule> parsed = RuleParser(rule).parse();
  if (!parsed) return Status::FailedPrecondition("cannot parse the time zone rule '" + std::string(rule) + "'");
  return evaluate(*parsed, t);
}

Result<ZoneOffset> zone_offset_at(std::string_view name, int64_t t) {
  const std::string unknown = "unknown time zone '" + std::string(name) +
                              "'; use an IANA name such as 'Europe/Paris' or 'America/New_York', or 'UTC'";
  if (!valid_zone_name(name)) return Status::InvalidArgument(unknown);
  const char* tzdir = std::getenv("TZDIR");
  const std::filesystem::path file =
      std::filesystem::path(tzdir != nullptr && *tzdir != '\0' ? tzdir : "/usr/share/zoneinfo") / std::string(name);
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec)) return Status::InvalidArgument(unknown);
  std::ifstream in(file, std::ios::binary);
  std::string data;
  try {
    data.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  } catch (const std::exception&) {
    return Status::FailedPrecondition("cannot read the time zone file for '" + std::string(name) + "'");
  }
  if (data.size() < 4 || data.compare(0, 4, "TZif") != 0) return Status::InvalidArgument(unknown);
  return lookup_tzif(data, t, name);
}

}  // namespace keel::detail
