// A 5-field cron expression and the next minute it fires (pure: civil time in, civil time out;
// the caller converts to and from its time zone).
#pragma once

#include <bitset>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "keel/result.hpp"

namespace keel::detail {

// A minute of civil (wall-clock) time.
struct CivilMinute {
  int year = 1970;
  int month = 1;  // 1-12
  int day = 1;    // 1-31
  int hour = 0;
  int minute = 0;
};

int weekday_of(int year, int month, int day);  // 0 = Sunday .. 6 = Saturday

class CronSchedule {
 public:
  // Standard 5-field cron (minute hour day-of-month month day-of-week): '*', numbers, ranges a-b,
  // steps */n, a-b/n and a/n, lists, month and weekday names, 7 as Sunday, '?' in the day fields,
  // and @yearly @annually @monthly @weekly @daily @midnight @hourly. InvalidArgument naming the
  // field, the token and what is accepted for anything else (seconds, @reboot, out of range).
  static Result<CronSchedule> parse(std::string_view expression);
  // Whether the schedule fires at `m`. When both day fields are restricted, either one matching
  // is enough (as Vixie cron and its descendants do).
  bool matches(const CivilMinute& m) const;
  // The first minute strictly after `after` that fires; nullopt when none in 8 years ("0 0 30 2 *").
  // Skips whole months, days and hours that cannot match.
  std::optional<CivilMinute> next_after(const CivilMinute& after) const;
  const std::string& expression() const { return expression_; }  // as given, trimmed

 private:
  bool day_matches(const CivilMinute& m) const;

  std::string expression_;
  std::bitset<60> minutes_;
  std::bitset<24> hours_;
  std::bitset<32> days_;
  std::bitset<13> months_;
  std::bitset<7> weekdays_;
  bool day_restricted_ = false;
  bool weekday_restricted_ = false;
};

}  // namespace keel::detail
