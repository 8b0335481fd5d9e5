// A 5-field cron expression and the next minute it fires, for the autopilot's schedule sources.
// Pure: civil (wall-clock) time in, civil time out; the caller converts to and from its time zone,
// so this builds anywhere (WebAssembly included) and is tested without a clock.
//
//   KEEL_ASSIGN_OR_RETURN(CronSchedule s, CronSchedule::parse("0 9 * * mon-fri"));
//   std::optional<CivilMinute> at = s.next_after({2026, 11, 28, 20, 38});  // 2026-11-30 09:00
//
// Thread-safety: a parsed schedule is an immutable value.
#pragma once

#include <bitset>
#include <optional>
#include <string>
#include <string_view>

#include "keel/result.hpp"

namespace keel::detail {

// A minute of civil (wall-clock) time. Valid when month is 1-12, day exists in that month of the
// proleptic Gregorian calendar, hour is 0-23, minute 0-59 and |year| <= 1,000,000.
struct CivilMinute {
  int year = 1970;
  int month = 1;  // 1-12
  int day = 1;    // 1-31
  int hour = 0;
  int minute = 0;
};

// The day of the week of a civil date: 0 = Sunday .. 6 = Saturday (proleptic Gregorian, pure
// arithmetic, any year).
int weekday_of(int year, int month, int day);

class CronSchedule {
 public:
  // Standard 5-field cron (minute hour day-of-month month day-of-week) separated by any whitespace:
  // '*', numbers, ranges a-b, steps */n, a-b/n and a/n (a to the field's last value), lists with
  // ',', month names jan..dec and weekday names sun..sat (any case), 7 as Sunday, '?' alone as '*'
  // in the two day fields, and @yearly @annually @monthly @weekly @daily @midnight @hourly.
  // InvalidArgument naming the field, the token and what is accepted for anything else: seconds or
  // year fields, @reboot, L/W/# extensions, values out of range, a-b with a > b, a step of 0.
  static Result<CronSchedule> parse(std::string_view expression);

  // Whether the schedule fires at `m`. When both day fields are restricted (neither starts with
  // '*' or is '?'), either one matching is enough, as Vixie cron and its descendants do; otherwise
  // both must. An invalid minute (month 13, 31 April) never matches.
  bool matches(const CivilMinute& m) const;

  // The first minute strictly after `after` that fires; nullopt when none comes within 8 years
  // ("0 0 30 2 *") or `after` is not a valid minute. Skips whole months, days and hours that
  // cannot match, so the worst case is a few thousand steps.
  std::optional<CivilMinute> next_after(const CivilMinute& after) const;

  const std::string& expression() const { return expression_; }  // as given, trimmed

 private:
  bool day_matches(const CivilMinute& m) const;

  std::string expression_;
  std::bitset<60> minutes_;
  std::bitset<24> hours_;
  std::bitset<32> days_;     // index 1-31
  std::bitset<13> months_;   // index 1-12
  std::bitset<7> weekdays_;  // 0 = Sunday
  bool day_restricted_ = false;
  bool weekday_restricted_ = false;
};

}  // namespace keel::detail
