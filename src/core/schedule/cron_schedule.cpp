// Parsing 5-field cron expressions and finding the next minute they fire (cron_schedule.hpp).
#include "core/schedule/cron_schedule.hpp"

#include <array>
#include <vector>

#include "core/text/text_util.hpp"

namespace keel::detail {
namespace {

struct FieldSpec {
  const char* name;
  int lo;
  int hi;
  const char* const* names;  // lowercase names for lo.., or nullptr
};

constexpr const char* kMonthNames[] = {"jan", "feb", "mar", "apr", "may", "jun",
                                       "jul", "aug", "sep", "oct", "nov", "dec"};
constexpr const char* kDayNames[] = {"sun", "mon", "tue", "wed", "thu", "fri", "sat"};

constexpr FieldSpec kFields[] = {{"minute", 0, 59, nullptr},
                                 {"hour", 0, 23, nullptr},
                                 {"day-of-month", 1, 31, nullptr},
                                 {"month", 1, 12, kMonthNames},
                                 {"day-of-week", 0, 7, kDayNames}};

bool is_leap(int y) {
  return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

int days_in_month(int y, int m) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && is_leap(y) ? 29 : kDays[m - 1];
}

Status field_error(const FieldSpec& f, std::string_view token, std::string_view why) {
  std::string m = "cron ";
  m.append(f.name).append(" field: '").append(token).append("' ");
  m.append(why);
  m.append(" (accepted: ").append(std::to_string(f.lo)).append("-").append(std::to_string(f.hi));
  if (f.names == kMonthNames) m.append(", jan-dec");
  if (f.names == kDayNames) m.append(", sun-sat");
  m.append(", *, lists a,b, ranges a-b and steps */n)");
  return Status::InvalidArgument(std::move(m));
}

// A number or (for months and weekdays) a name; nullopt when it is neither.
std::optional<int> value_of(const FieldSpec& f, std::string_view token) {
  if (token.empty()) return std::nullopt;
  if (token.find_first_not_of("0123456789") == std::string_view::npos) {
    if (token.size() > 4) return std::nullopt;
    return std::stoi(std::string(token));
  }
  if (f.names == nullptr) return std::nullopt;
  const std::string lower = lowercase(token);
  const int count = f.names == kMonthNames ? 12 : 7;
  for (int i = 0; i < count; ++i) {
    if (lower == f.names[i]) return f.names == kMonthNames ? i + 1 : i;
  }
  return std::nullopt;
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t from = 0;
  for (;;) {
    size_t p = s.find(sep, from);
    out.push_back(s.substr(from, p == std::string_view::npos ? std::string_view::npos : p - from));
    if (p == std::string_view::npos) return out;
    from = p + 1;
  }
}

// Sets the values of one field in `bits` (index = value); `restricted` is false for '*' / '?'.
template <size_t N>
Status parse_field(const FieldSpec& f, std::string_view text, std::bitset<N>& bits, bool& restricted) {
  restricted = !(text.front() == '*' || text == "?");
  if (text == "?" && f.hi != 31 && f.hi != 7) return field_error(f, text, "is only allowed in the day fields");
  for (std::string_view item : split(text, ',')) {
    if (item.empty()) return field_error(f, text, "has an empty list item");
    std::string_view range = item;
    int step = 1;
    if (size_t slash = item.find('/'); slash != std::string_view::npos) {
      range = item.substr(0, slash);
      std::string_view step_text = item.substr(slash + 1);
      if (step_text.empty() || step_text.find_first_not_of("0123456789") != std::string_view::npos ||
          step_text.size() > 4) {
        return field_error(f, item, "has a step that is not a number");
      }
      step = std::stoi(std::string(step_text));
      if (step == 0) return field_error(f, item, "has a step of 0");
    }
    int lo = f.lo, hi = f.hi;
    if (range == "*" || range == "?") {
      if (f.hi == 7) hi = 6;  // '*' weekdays are 0-6; 7 is only another name for Sunday
    } else {
      const size_t dash = range.find('-');
      std::optional<int> a = value_of(f, dash == std::string_view::npos ? range : range.substr(0, dash));
      if (!a) return field_error(f, item, "is not a number or name");
      lo = *a;
      if (dash != std::string_view::npos) {
        std::optional<int> b = value_of(f, range.substr(dash + 1));
        if (!b) return field_error(f, item, "is not a number or name");
        hi = *b;
      } else if (item.find('/') == std::string_view::npos) {
        hi = lo;
      }  // a/n: from a to the field's max
      if (lo < f.lo || lo > f.hi || hi < f.lo || hi > f.hi) return field_error(f, item, "is out of range");
      if (lo > hi) return field_error(f, item, "is a range whose start is after its end");
    }
    for (int v = lo; v <= hi; v += step) bits.set(static_cast<size_t>(f.hi == 7 && v == 7 ? 0 : v));
  }
  return Status::Ok();
}

std::string_view macro_expansion(std::string_view m) {
  if (m == "@yearly" || m == "@annually") return "0 0 1 1 *";
  if (m == "@monthly") return "0 0 1 * *";
  if (m == "@weekly") return "0 0 * * 0";
  if (m == "@daily" || m == "@midnight") return "0 0 * * *";
  if (m == "@hourly") return "0 * * * *";
  return {};
}

}  // namespace

int weekday_of(int year, int month, int day) {
  // Days since 1970-01-01 (a Thursday) by the civil-from-days inverse (proleptic Gregorian).
  const int y = month <= 2 ? year - 1 : year;
  const int era = (y >= 0 ? y : y - 399) / 400;
  const int yoe = y - era * 400;
  const int mp = (month + 9) % 12;
  const int doy = (153 * mp + 2) / 5 + day - 1;
  const int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  const long long days = static_cast<long long>(era) * 146097 + doe - 719468;
  const long long w = (days + 4) % 7;
  return static_cast<int>(w < 0 ? w + 7 : w);
}

Result<CronSchedule> CronSchedule::parse(std::string_view expression) {
  std::string_view text = trim(expression);
  CronSchedule s;
  s.expression_ = std::string(text);
  if (text.empty()) return Status::InvalidArgument("the cron expression is empty; e.g. '0 3 * * *' (03:00 daily)");
  if (text.front() == '@') {
    std::string lower = lowercase(text);
    if (lower == "@reboot") return Status::InvalidArgument("cron @reboot is not supported: the autopilot has no boot");
    std::string_view expanded = macro_expansion(lower);
    if (expanded.empty()) {
      return Status::InvalidArgument("unknown cron macro '" + std::string(text) +
                                     "'; known: @yearly, @annually, @monthly, @weekly, @daily, @midnight, @hourly");
    }
    Result<CronSchedule> r = parse(expanded);
    if (r.ok()) r->expression_ = std::string(text);
    return r;
  }
  std::vector<std::string_view> fields;
  for (size_t i = 0; i < text.size();) {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
    size_t j = i;
    while (j < text.size() && text[j] != ' ' && text[j] != '\t') ++j;
    if (j > i) fields.push_back(text.substr(i, j - i));
    i = j;
  }
  if (fields.size() != 5) {
    return Status::InvalidArgument("a cron expression has 5 fields (minute hour day-of-month month day-of-week), '" +
                                   std::string(text) + "' has " + std::to_string(fields.size()) +
                                   (fields.size() == 6 ? " (seconds are not supported)" : ""));
  }
  bool ignored = false;
  KEEL_TRY(parse_field(kFields[0], fields[0], s.minutes_, ignored));
  KEEL_TRY(parse_field(kFields[1], fields[1], s.hours_, ignored));
  KEEL_TRY(parse_field(kFields[2], fields[2], s.days_, s.day_restricted_));
  KEEL_TRY(parse_field(kFields[3], fields[3], s.months_, ignored));
  KEEL_TRY(parse_field(kFields[4], fields[4], s.weekdays_, s.weekday_restricted_));
  return s;
}

bool CronSchedule::matches(const CivilMinute& m) const {
  if (!minutes_.test(static_cast<size_t>(m.minute)) || !hours_.test(static_cast<size_t>(m.hour)) ||
      !months_.test(static_cast<size_t>(m.month))) {
    return false;
  }
  return day_matches(m);
}

bool CronSchedule::day_matches(const CivilMinute& m) const {
  const bool dom = days_.test(static_cast<size_t>(m.day));
  const bool dow = weekdays_.test(static_cast<size_t>(weekday_of(m.year, m.month, m.day)));
  // Vixie cron: when both day fields are restricted, either one matching is enough.
  return day_restricted_ && weekday_restricted_ ? (dom || dow) : (dom && dow);
}

namespace {

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
  if (++t.day > days_in_month(t.year, t.month)) next_month(t);
}

void next_hour(CivilMinute& t) {
  t.minute = 0;
  if (++t.hour == 24) next_day(t);
}

}  // namespace

std::optional<CivilMinute> CronSchedule::next_after(const CivilMinute& after) const {
  CivilMinute t = after;
  if (++t.minute == 60) next_hour(t);
  const int last_year = after.year + 8;
  while (t.year <= last_year) {
    if (!months_.test(static_cast<size_t>(t.month))) {
      next_month(t);
      continue;
    }
    if (!day_matches(t)) {
      next_day(t);
      continue;
    }
    if (!hours_.test(static_cast<size_t>(t.hour))) {
      next_hour(t);
      continue;
    }
    for (int m = t.minute; m < 60; ++m) {
      if (minutes_.test(static_cast<size_t>(m))) {
        t.minute = m;
        return t;
      }
    }
    next_hour(t);
  }
  return std::nullopt;
}

}  // namespace keel::detail
