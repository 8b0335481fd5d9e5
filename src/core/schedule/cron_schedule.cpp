// Parsing 5-field cron expressions into one bit set per field, and finding the next minute they
// fire by skipping months, days and hours whose bit is clear (cron_schedule.hpp).
#include "core/schedule/cron_schedule.hpp"

#include <charconv>
#include <climits>
#include <vector>

#include "core/text/text_util.hpp"

namespace keel::detail {
namespace {

constexpr int kMaxAbsYear = 1000000;
constexpr int kSearchYears = 8;

constexpr std::string_view kMonthNames[] = {"jan", "feb", "mar", "apr", "may", "jun",
                                            "jul", "aug", "sep", "oct", "nov", "dec"};
constexpr std::string_view kDayNames[] = {"sun", "mon", "tue", "wed", "thu", "fri", "sat"};

// One of the five fields: its name in messages, the values it accepts and its names, if any.
struct FieldSpec {
  std::string_view name = {};
  int lo = 0;
  int hi = 0;                          // the largest value written (7 in day-of-week: Sunday again)
  const std::string_view* names = {};  // lowercase names of lo, lo+1, ... or nullptr
  int name_count = 0;
  std::string_view accepted = {};  // for messages
};

constexpr FieldSpec kMinute{"minute", 0, 59, nullptr, 0, "0-59"};
constexpr FieldSpec kHour{"hour", 0, 23, nullptr, 0, "0-23"};
constexpr FieldSpec kDayOfMonth{"day-of-month", 1, 31, nullptr, 0, "1-31 or ?"};
constexpr FieldSpec kMonth{"month", 1, 12, kMonthNames, 12, "1-12 or jan-dec"};
constexpr FieldSpec kDayOfWeek{"day-of-week", 0, 7, kDayNames, 7, "0-7 (0 and 7 are Sunday), sun-sat or ?"};

bool is_day_field(const FieldSpec& f) {
  return &f == &kDayOfMonth || &f == &kDayOfWeek;
}

bool cron_is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

bool cron_is_leap(int y) {
  return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

int cron_days_in_month(int y, int m) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && cron_is_leap(y) ? 29 : kDays[m - 1];
}

bool valid_minute(const CivilMinute& m) {
  return m.year >= -kMaxAbsYear && m.year <= kMaxAbsYear && m.month >= 1 && m.month <= 12 && m.day >= 1 &&
         m.day <= cron_days_in_month(m.year, m.month) && m.hour >= 0 && m.hour <= 23 && m.minute >= 0 && m.minute <= 59;
}

Status field_error(const FieldSpec& f, std::string_view token, std::string_view why) {
  return Status::InvalidArgument(concat({"cron ", f.name, " field: '", token, "' ", why, " (accepted: ", f.accepted,
                                         ", *, lists a,b, ranges a-b, steps */n, a-b/n and a/n)"}));
}

// A non-negative decimal number; INT_MAX when it does not fit; nullopt when `s` is not digits.
std::optional<int> number(std::string_view s) {
  if (s.empty() || s.find_first_not_of("0123456789") != std::string_view::npos) return std::nullopt;
  int v = 0;
  return std::from_chars(s.data(), s.data() + s.size(), v).ec == std::errc() ? v : INT_MAX;
}

// A number or (months and weekdays) a name; nullopt when it is neither.
std::optional<int> value_of(const FieldSpec& f, std::string_view token) {
  if (std::optional<int> n = number(token)) return n;
  const std::string lower = lowercase(token);
  for (int i = 0; i < f.name_count; ++i) {
    if (lower == f.names[i]) return f.lo + i;
  }
  return std::nullopt;
}

// Why `token` is not a value: a named extension of other crons (L, W, #, H), or not a number/name.
std::string_view not_a_value(const FieldSpec& f, std::string_view token) {
  const std::string lower = lowercase(token);
  const size_t digits = lower.find_first_not_of("0123456789");
  const std::string_view rest = std::string_view(lower).substr(digits == std::string::npos ? lower.size() : digits);
  if (token.find('#') != std::string_view::npos) return "uses '#' (nth weekday), which standard cron does not have";
  if (rest == "l" || rest == "w" || rest == "lw" || lower == "h" || lower.starts_with("h(")) {
    return "uses an L, W or H extension, which standard cron does not have";
  }
  if (&f == &kMonth) return "is not a number or a month name";
  if (&f == &kDayOfWeek) return "is not a number or a weekday name";
  return "is not a number";
}

// Sets the values one list item names ("*", "5", "1-5", "*/15", "1-30/5", "5/15", "mon-fri").
template <size_t N>
Status parse_item(const FieldSpec& f, std::string_view item, std::bitset<N>& bits) {
  const bool weekday = &f == &kDayOfWeek;
  std::string_view range = item;
  int step = 1;
  const size_t slash = item.find('/');
  if (slash != std::string_view::npos) {
    range = item.substr(0, slash);
    std::optional<int> s = number(item.substr(slash + 1));
    if (!s) return field_error(f, item, "has a step that is not a whole number");
    if (*s == 0) return field_error(f, item, "has a step of 0; a step is 1 or more");
    if (*s > f.hi - f.lo + 1) return field_error(f, item, "has a step larger than the field's range");
    step = *s;
  }
  int lo = f.lo;
  int hi = weekday ? 6 : f.hi;  // Sunday once, as 0
  if (range == "?") return field_error(f, item, "uses '?', which may only stand alone");
  if (range != "*") {
    const size_t dash = range.find('-');
    const std::string_view first = dash == std::string_view::npos ? range : range.substr(0, dash);
    std::optional<int> a = value_of(f, first);
    if (!a) return field_error(f, item, first.empty() ? std::string_view("has no start value") : not_a_value(f, first));
    lo = *a;
    if (dash != std::string_view::npos) {
      const std::string_view second = range.substr(dash + 1);
      std::optional<int> b = value_of(f, second);
      if (!b)
        return field_error(f, item, second.empty() ? std::string_view("has no end value") : not_a_value(f, second));
      hi = *b;
    } else if (slash == std::string_view::npos) {
      hi = lo;
    } else if (weekday && lo == 7) {
      lo = 0;  // "7/2" is Sunday onwards
    }
    if (lo < f.lo || lo > f.hi || hi < f.lo || hi > f.hi) return field_error(f, item, "is out of range");
    if (lo > hi) {
      return field_error(
          f, item,
          weekday && hi == 0 ? "starts after it ends; write Sunday as 7 to end a range on it" : "starts after it ends");
    }
  }
  for (int v = lo; v <= hi; v += step) bits.set(static_cast<size_t>(weekday && v == 7 ? 0 : v));
  return Status::Ok();
}

// Sets the values of one field; `restricted` is false when it starts with '*' or is '?' (the
// Vixie rule for the two day fields looks at exactly that).
template <size_t N>
Status parse_field(const FieldSpec& f, std::string_view text, std::bitset<N>& bits, bool& restricted) {
  restricted = !(text.front() == '*' || text == "?");
  if (text == "?") {
    if (!is_day_field(f)) return field_error(f, text, "uses '?', which only the two day fields accept");
    return parse_item(f, "*", bits);
  }
  for (size_t from = 0;;) {
    const size_t comma = text.find(',', from);
    const std::string_view item =
        text.substr(from, comma == std::string_view::npos ? std::string_view::npos : comma - from);
    if (item.empty()) return field_error(f, text, "has an empty list item");
    KEEL_TRY(parse_item(f, item, bits));
    if (comma == std::string_view::npos) return Status::Ok();
    from = comma + 1;
  }
}

std::string_view macro_expansion(std::string_view lower) {
  if (lower == "@yearly" || lower == "@annually") return "0 0 1 1 *";
  if (lower == "@monthly") return "0 0 1 * *";
  if (lower == "@weekly") return "0 0 * * 0";
  if (lower == "@daily" || lower == "@midnight") return "0 0 * * *";
  if (lower == "@hourly") return "0 * * * *";
  return {};
}

// Moves `t` to the first minute of the next month, day or hour.
void next_month(CivilMinute& t) {
  t.day = 1;
  t.hour = 0;
  t.minute = 0;
  if (++t.month == 13) {
    t.month = 1;
    ++t.year;
  }
}

void next_day(CivilMinute& t) {
  t.hour = 0;
  t.minute = 0;
  if (++t.day > cron_days_in_month(t.year, t.month)) next_month(t);
}

void next_hour(CivilMinute& t) {
  t.minute = 0;
  if (++t.hour == 24) next_day(t);
}

}  // namespace

int weekday_of(int year, int month, int day) {
  // Days since 1970-01-01 (a Thursday), counted from March so that the leap day comes last.
  const long long y = month <= 2 ? static_cast<long long>(year) - 1 : year;
  const long long era = (y >= 0 ? y : y - 399) / 400;
  const long long yoe = y - era * 400;
  const long long mp = (month + 9) % 12;
  const long long doy = (153 * mp + 2) / 5 + day - 1;
  const long long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  const long long days = era * 146097 + doe - 719468;
  const long long w = (days + 4) % 7;
  return static_cast<int>(w < 0 ? w + 7 : w);
}

Result<CronSchedule> CronSchedule::parse(std::string_view expression) {
  size_t b = 0;
  size_t e = expression.size();
  while (b < e && cron_is_space(expression[b])) ++b;
  while (e > b && cron_is_space(expression[e - 1])) --e;
  const std::string_view text = expression.substr(b, e - b);
  if (text.empty()) {
    return Status::InvalidArgument("the cron expression is empty; write 5 fields, e.g. '0 3 * * *' for 03:00 daily");
  }
  if (text.front() == '@') {
    const std::string lower = lowercase(text);
    if (lower == "@reboot") {
      return Status::InvalidArgument("cron @reboot is not supported: schedules fire at times of day; use e.g. @daily");
    }
    const std::string_view expanded = macro_expansion(lower);
    if (expanded.empty()) {
      return Status::InvalidArgument(concat({"unknown cron macro '", text,
                                             "'; known: @yearly, @annually, @monthly, @weekly, @daily, @midnight, "
                                             "@hourly"}));
    }
    Result<CronSchedule> r = parse(expanded);
    if (r.ok()) r->expression_ = std::string(text);
    return r;
  }
  std::vector<std::string_view> fields;
  for (size_t i = 0; i < text.size();) {
    while (i < text.size() && cron_is_space(text[i])) ++i;
    size_t j = i;
    while (j < text.size() && !cron_is_space(text[j])) ++j;
    if (j > i) fields.push_back(text.substr(i, j - i));
    i = j;
  }
  if (fields.size() != 5) {
    std::string_view why = fields.size() < 5    ? "; add the missing fields"
                           : fields.size() <= 7 ? "; a seconds or year field is not supported"
                                                : "";
    return Status::InvalidArgument(
        concat({"a cron expression has 5 fields (minute hour day-of-month month "
                "day-of-week), '",
                text, "' has ", Decimal(fields.size()), why}));
  }
  CronSchedule s;
  s.expression_ = std::string(text);
  bool unused = false;
  KEEL_TRY(parse_field(kMinute, fields[0], s.minutes_, unused));
  KEEL_TRY(parse_field(kHour, fields[1], s.hours_, unused));
  KEEL_TRY(parse_field(kDayOfMonth, fields[2], s.days_, s.day_restricted_));
  KEEL_TRY(parse_field(kMonth, fields[3], s.months_, unused));
  KEEL_TRY(parse_field(kDayOfWeek, fields[4], s.weekdays_, s.weekday_restricted_));
  return s;
}

bool CronSchedule::matches(const CivilMinute& m) const {
  if (!valid_minute(m)) return false;
  return minutes_[static_cast<size_t>(m.minute)] && hours_[static_cast<size_t>(m.hour)] &&
         months_[static_cast<size_t>(m.month)] && day_matches(m);
}

bool CronSchedule::day_matches(const CivilMinute& m) const {
  const bool dom = days_[static_cast<size_t>(m.day)];
  const bool dow = weekdays_[static_cast<size_t>(weekday_of(m.year, m.month, m.day))];
  return day_restricted_ && weekday_restricted_ ? (dom || dow) : (dom && dow);
}

std::optional<CivilMinute> CronSchedule::next_after(const CivilMinute& after) const {
  if (!valid_minute(after)) return std::nullopt;
  CivilMinute t = after;
  if (++t.minute == 60) next_hour(t);
  const int last_year = after.year + kSearchYears;
  while (t.year <= last_year) {
    if (!months_[static_cast<size_t>(t.month)]) {
      next_month(t);
    } else if (!day_matches(t)) {
      next_day(t);
    } else if (!hours_[static_cast<size_t>(t.hour)]) {
      next_hour(t);
    } else {
      for (int m = t.minute; m < 60; ++m) {
        if (minutes_[static_cast<size_t>(m)]) {
          t.minute = m;
          return t;
        }
      }
      next_hour(t);
    }
  }
  return std::nullopt;
}

}  // namespace keel::detail
