// Cron expressions: the standard 5 fields with names, ranges, steps and lists, the macros, the
// Vixie rule for the two day fields, and next-fire times across month, year and leap-year edges.
// The table of next fires is checked by hand against the crontab(5) rules of cronie
// (github.com/cronie-crond/cronie, man/crontab.5).
#include <gtest/gtest.h>

#include "core/schedule/cron_schedule.hpp"

namespace keel::detail {
namespace {

std::string text(const std::optional<CivilMinute>& m) {
  if (!m) return "never";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02d %02d:%02d", m->year, m->month, m->day, m->hour, m->minute);
  return buf;
}

std::string next(const std::string& expr, CivilMinute from) {
  auto s = CronSchedule::parse(expr);
  EXPECT_TRUE(s.ok()) << expr << ": " << s.status().to_string();
  return s.ok() ? text(s->next_after(from)) : "";
}

TEST(CronSchedule, Weekdays) {
  EXPECT_EQ(weekday_of(1970, 1, 1), 4);   // Thursday
  EXPECT_EQ(weekday_of(2000, 2, 29), 2);  // Tuesday
  EXPECT_EQ(weekday_of(2026, 11, 28), 6); // Saturday
  EXPECT_EQ(weekday_of(1900, 3, 1), 4);
}

TEST(CronSchedule, NextFires) {
  const CivilMinute t{2026, 11, 28, 20, 38};  // a Saturday
  EXPECT_EQ(next("* * * * *", t), "2026-11-28 20:39");
  EXPECT_EQ(next("0 3 * * *", t), "2026-11-29 03:00");
  EXPECT_EQ(next("*/15 * * * *", t), "2026-11-28 20:45");
  EXPECT_EQ(next("0 9-17/4 * * mon-fri", t), "2026-11-30 09:00");
  EXPECT_EQ(next("30 12 1 jan,JUL *", t), "2027-01-01 12:30");
  EXPECT_EQ(next("0 0 * * 7", t), "2026-11-29 00:00") << "7 is Sunday";
  EXPECT_EQ(next("59 23 31 12 *", t), "2026-12-31 23:59");
  EXPECT_EQ(next("0 0 29 2 *", t), "2028-02-29 00:00") << "the next leap year";
  EXPECT_EQ(next("0 0 30 2 *", t), "never");
  EXPECT_EQ(next("5/20 * * * *", t), "2026-11-28 20:45") << "a/n runs from a to the end";
  EXPECT_EQ(next("0 0 1,15 * *", {2026, 12, 31, 23, 59}), "2027-01-01 00:00");
  EXPECT_EQ(next("@hourly", t), "2026-11-28 21:00");
  EXPECT_EQ(next("@weekly", t), "2026-11-29 00:00");
  EXPECT_EQ(next("@yearly", t), "2027-01-01 00:00");
}

TEST(CronSchedule, EitherDayFieldMatchesWhenBothAreRestricted) {
  // "0 0 13 * fri": the 13th OR any Friday (not only Friday the 13th).
  const CivilMinute t{2026, 11, 28, 0, 0};
  EXPECT_EQ(next("0 0 13 * fri", t), "2026-12-04 00:00");
  EXPECT_EQ(next("0 0 13 * *", t), "2026-12-13 00:00");
  EXPECT_EQ(next("0 0 * * fri", t), "2026-12-04 00:00");
  auto s = CronSchedule::parse("0 0 13 * fri");
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE(s->matches({2026, 12, 13, 0, 0}));
  EXPECT_TRUE(s->matches({2026, 12, 4, 0, 0}));
  EXPECT_FALSE(s->matches({2026, 12, 5, 0, 0}));
}

TEST(CronSchedule, ErrorsNameTheFieldAndTheToken) {
  auto err = [](const std::string& e) { return CronSchedule::parse(e).status().message(); };
  EXPECT_EQ(err(""), "the cron expression is empty; e.g. '0 3 * * *' (03:00 daily)");
  EXPECT_NE(err("61 * * * *").find("cron minute field: '61' is out of range"), std::string::npos) << err("61 * * * *");
  EXPECT_NE(err("* 24 * * *").find("cron hour field"), std::string::npos);
  EXPECT_NE(err("* * 0 * *").find("cron day-of-month field: '0' is out of range"), std::string::npos);
  EXPECT_NE(err("* * * foo *").find("cron month field: 'foo' is not a number or name"), std::string::npos);
  EXPECT_NE(err("* * * * 8").find("cron day-of-week field"), std::string::npos);
  EXPECT_NE(err("*/0 * * * *").find("has a step of 0"), std::string::npos);
  EXPECT_NE(err("5-1 * * * *").find("start is after its end"), std::string::npos);
  EXPECT_NE(err("0 0 * * * *").find("has 6 (seconds are not supported)"), std::string::npos);
  EXPECT_NE(err("@reboot").find("not supported"), std::string::npos);
  EXPECT_NE(err("@often").find("unknown cron macro"), std::string::npos);
  EXPECT_NE(err("? * * * *").find("only allowed in the day fields"), std::string::npos);
  EXPECT_NE(err("1,,2 * * * *").find("empty list item"), std::string::npos);
}

}  // namespace
}  // namespace keel::detail
