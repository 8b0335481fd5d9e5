// Cron expressions: the standard 5 fields with names, ranges, steps and lists, the macros, the
// Vixie rule for the two day fields, next-fire times across month, year and leap-year edges, and
// an error naming the field and the token for everything else. Besides cases of our own, three
// tables hold vectors from public test suites (croniter, robfig/cron), cited above each.
#include "core/schedule/cron_schedule.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <vector>

namespace keel::detail {
namespace {

std::string text(const std::optional<CivilMinute>& m) {
  if (!m) return "never";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02d %02d:%02d", m->year, m->month, m->day, m->hour, m->minute);
  return buf;
}

CronSchedule must_parse(const std::string& expr) {
  Result<CronSchedule> s = CronSchedule::parse(expr);
  EXPECT_TRUE(s.ok()) << expr << ": " << s.status().to_string();
  return s.ok() ? std::move(s).value() : CronSchedule();
}

std::string next(const std::string& expr, CivilMinute from) {
  return text(must_parse(expr).next_after(from));
}

// The fires after `from`, each from the one before.
std::vector<std::string> fires(const std::string& expr, CivilMinute from, size_t count) {
  const CronSchedule s = must_parse(expr);
  std::vector<std::string> out;
  std::optional<CivilMinute> t = from;
  for (size_t i = 0; i < count && t; ++i) {
    t = s.next_after(*t);
    out.push_back(text(t));
  }
  return out;
}

std::string error(const std::string& expr) {
  Result<CronSchedule> s = CronSchedule::parse(expr);
  EXPECT_FALSE(s.ok()) << expr << " parsed";
  EXPECT_EQ(s.status().code(), ErrorCode::kInvalidArgument) << expr;
  return s.status().message();
}

::testing::AssertionResult has_prefix(const std::string& message, std::string_view prefix) {
  if (message.starts_with(prefix)) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "'" << message << "' does not start with '" << prefix << "'";
}

TEST(CronSchedule, Weekdays) {
  EXPECT_EQ(weekday_of(1970, 1, 1), 4);    // Thursday
  EXPECT_EQ(weekday_of(2000, 2, 29), 2);   // Tuesday
  EXPECT_EQ(weekday_of(2026, 11, 28), 6);  // Saturday
  EXPECT_EQ(weekday_of(1900, 3, 1), 4);
  EXPECT_EQ(weekday_of(1600, 1, 1), 6);
  EXPECT_EQ(weekday_of(1, 1, 1), 1);  // Monday, proleptic Gregorian
  EXPECT_EQ(weekday_of(0, 1, 1), 6);  // year 0 is a leap year: 366 days before a Monday
  EXPECT_EQ(weekday_of(-1, 12, 31), 5);
}

TEST(CronSchedule, ExpressionIsKeptTrimmed) {
  EXPECT_EQ(must_parse("  0 3 * * *\n").expression(), "0 3 * * *");
  EXPECT_EQ(must_parse("@Daily").expression(), "@Daily");
  EXPECT_EQ(next("0\t3\n*  *\r\n*", {2026, 1, 1, 0, 0}), "2026-01-01 03:00") << "any whitespace separates fields";
}

TEST(CronSchedule, NamesStepsAndLists) {
  const CronSchedule s = must_parse("0,30 9-17/4 * JAN,mar-May,Dec mon-FRI");
  EXPECT_TRUE(s.matches({2026, 3, 2, 9, 0}));  // Monday
  EXPECT_TRUE(s.matches({2026, 3, 2, 13, 30}));
  EXPECT_TRUE(s.matches({2026, 3, 2, 17, 0}));
  EXPECT_FALSE(s.matches({2026, 3, 2, 11, 0}));  // 9, 13, 17 only
  EXPECT_FALSE(s.matches({2026, 3, 2, 9, 15}));
  EXPECT_FALSE(s.matches({2026, 2, 2, 9, 0}));  // February
  EXPECT_FALSE(s.matches({2026, 3, 1, 9, 0}));  // Sunday
  EXPECT_TRUE(must_parse("5/20 * * * *").matches({2026, 1, 1, 0, 45})) << "a/n runs from a to the end";
  EXPECT_FALSE(must_parse("5/20 * * * *").matches({2026, 1, 1, 0, 0}));
  EXPECT_TRUE(must_parse("0 0 * * 7").matches({2026, 11, 29, 0, 0})) << "7 is Sunday";
  EXPECT_TRUE(must_parse("0 0 * * 5-7").matches({2026, 11, 29, 0, 0})) << "a range may end on 7";
  EXPECT_TRUE(must_parse("0 0 * * sat/1").matches({2026, 11, 28, 0, 0}));
  EXPECT_FALSE(must_parse("0 0 * * sat/1").matches({2026, 11, 29, 0, 0})) << "a/n ends on Saturday, not 7";
  EXPECT_TRUE(must_parse("0 0 ? * *").matches({2026, 11, 29, 0, 0})) << "'?' is '*'";
  EXPECT_TRUE(must_parse("* * * * *").matches({2026, 12, 31, 23, 59}));
}

TEST(CronSchedule, Macros) {
  const CivilMinute t{2026, 11, 28, 20, 38};  // a Saturday
  EXPECT_EQ(next("@hourly", t), "2026-11-28 21:00");
  EXPECT_EQ(next("@daily", t), "2026-11-29 00:00");
  EXPECT_EQ(next("@midnight", t), "2026-11-29 00:00");
  EXPECT_EQ(next("@weekly", t), "2026-11-29 00:00");
  EXPECT_EQ(next("@monthly", t), "2026-12-01 00:00");
  EXPECT_EQ(next("@yearly", t), "2027-01-01 00:00");
  EXPECT_EQ(next("@ANNUALLY", t), "2027-01-01 00:00");
}

TEST(CronSchedule, NextFires) {
  const CivilMinute t{2026, 11, 28, 20, 38};  // a Saturday
  EXPECT_EQ(next("* * * * *", t), "2026-11-28 20:39");
  EXPECT_EQ(next("38 20 * * *", t), "2026-11-29 20:38") << "strictly after";
  EXPECT_EQ(next("0 3 * * *", t), "2026-11-29 03:00");
  EXPECT_EQ(next("*/15 * * * *", t), "2026-11-28 20:45");
  EXPECT_EQ(next("0 9-17/4 * * mon-fri", t), "2026-11-30 09:00");
  EXPECT_EQ(next("30 12 1 jan,JUL *", t), "2027-01-01 12:30");
  EXPECT_EQ(next("59 23 31 12 *", t), "2026-12-31 23:59");
}

TEST(CronSchedule, MonthAndYearRollover) {
  EXPECT_EQ(next("0 0 1,15 * *", {2026, 12, 31, 23, 59}), "2027-01-01 00:00");
  EXPECT_EQ(next("* * * * *", {2026, 12, 31, 23, 59}), "2027-01-01 00:00");
  EXPECT_EQ(next("0 0 31 * *", {2026, 1, 31, 0, 0}), "2026-03-31 00:00") << "February has no 31st";
  EXPECT_EQ(next("0 12 30 * *", {2026, 4, 30, 12, 0}), "2026-05-30 12:00");
  EXPECT_EQ(next("0 0 1 jan *", {2026, 1, 1, 0, 0}), "2027-01-01 00:00");
  EXPECT_EQ(fires("0 0 28-31 * *", {2027, 2, 27, 0, 0}, 3),
            (std::vector<std::string>{"2027-02-28 00:00", "2027-03-28 00:00", "2027-03-29 00:00"}));
}

TEST(CronSchedule, LeapYears) {
  EXPECT_EQ(next("0 0 29 2 *", {2026, 11, 28, 20, 38}), "2028-02-29 00:00");
  EXPECT_EQ(next("0 0 29 2 *", {2028, 2, 29, 0, 0}), "2032-02-29 00:00");
  EXPECT_EQ(next("0 0 29 2 *", {2096, 3, 1, 0, 0}), "2104-02-29 00:00") << "2100 is not a leap year";
  EXPECT_EQ(next("0 0 29 2 *", {1999, 1, 1, 0, 0}), "2000-02-29 00:00") << "2000 is";
  EXPECT_EQ(next("0 0 * 2 *", {2024, 2, 28, 0, 0}), "2024-02-29 00:00");
  EXPECT_EQ(next("0 0 * 2 *", {2025, 2, 28, 0, 0}), "2026-02-01 00:00");
}

TEST(CronSchedule, EitherDayFieldMatchesWhenBothAreRestricted) {
  // "0 0 13 * fri": the 13th OR any Friday (not only Friday the 13th).
  const CivilMinute t{2026, 11, 28, 0, 0};
  EXPECT_EQ(next("0 0 13 * fri", t), "2026-12-04 00:00");
  EXPECT_EQ(next("0 0 13 * *", t), "2026-12-13 00:00");
  EXPECT_EQ(next("0 0 * * fri", t), "2026-12-04 00:00");
  const CronSchedule s = must_parse("0 0 13 * fri");
  EXPECT_TRUE(s.matches({2026, 12, 13, 0, 0}));  // a Sunday
  EXPECT_TRUE(s.matches({2026, 12, 4, 0, 0}));   // a Friday
  EXPECT_FALSE(s.matches({2026, 12, 5, 0, 0}));
  // A day field that starts with '*' is not restricted, even with a step or a list: both must match.
  EXPECT_FALSE(must_parse("0 0 */2 * fri").matches({2026, 12, 4, 0, 0})) << "the 4th is even";
  EXPECT_TRUE(must_parse("0 0 */2 * fri").matches({2026, 12, 11, 0, 0}));
  EXPECT_FALSE(must_parse("0 0 13 * *,5").matches({2026, 12, 4, 0, 0}));
  EXPECT_FALSE(must_parse("0 0 13 * ?").matches({2026, 12, 4, 0, 0}));
}

TEST(CronSchedule, NeverFiringSchedulesEndQuickly) {
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 50; ++i) {
    EXPECT_EQ(next("0 0 30 2 *", {2026, 1, 1, 0, 0}), "never");
    EXPECT_EQ(next("0 0 31 4,6,9,11 *", {2026, 1, 1, 0, 0}), "never");
    EXPECT_EQ(next("59 23 31 2 mon", {2026, 1, 1, 0, 0}), "2026-02-02 23:59") << "Mondays still fire";
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

TEST(CronSchedule, InvalidMinutesNeverMatch) {
  const CronSchedule s = must_parse("* * * * *");
  EXPECT_FALSE(s.matches({2026, 13, 1, 0, 0}));
  EXPECT_FALSE(s.matches({2026, 4, 31, 0, 0}));
  EXPECT_FALSE(s.matches({2026, 2, 29, 0, 0}));
  EXPECT_FALSE(s.matches({2026, 1, 1, 24, 0}));
  EXPECT_FALSE(s.matches({2026, 1, 1, 0, -1}));
  EXPECT_EQ(text(s.next_after({2026, 0, 1, 0, 0})), "never");
  EXPECT_EQ(text(s.next_after({2147483647, 12, 31, 23, 59})), "never");
  EXPECT_EQ(text(s.next_after({1000000, 12, 31, 23, 59})), "1000001-01-01 00:00");
}

TEST(CronSchedule, ErrorsNameTheFieldTheTokenAndWhatIsAccepted) {
  EXPECT_EQ(error(""), "the cron expression is empty; write 5 fields, e.g. '0 3 * * *' for 03:00 daily");
  EXPECT_EQ(error(" \t\n"), error(""));
  EXPECT_EQ(error("61 * * * *"),
            "cron minute field: '61' is out of range (accepted: 0-59, *, lists a,b, ranges a-b, steps */n, a-b/n "
            "and a/n)");
  EXPECT_TRUE(has_prefix(error("* 24 * * *"), "cron hour field: '24' is out of range"));
  EXPECT_TRUE(has_prefix(error("* * 0 * *"), "cron day-of-month field: '0' is out of range (accepted: 1-31 or ?"));
  EXPECT_TRUE(has_prefix(error("* * * foo *"),
                         "cron month field: 'foo' is not a number or a month name (accepted: 1-12 or jan-dec"));
  EXPECT_TRUE(
      has_prefix(error("* * * * 8"),
                 "cron day-of-week field: '8' is out of range (accepted: 0-7 (0 and 7 are Sunday), sun-sat or ?"));
  EXPECT_TRUE(has_prefix(error("* * * * mon-sunday"),
                         "cron day-of-week field: 'mon-sunday' is not a number or a weekday name"));
  EXPECT_TRUE(has_prefix(error("*/0 * * * *"), "cron minute field: '*/0' has a step of 0; a step is 1 or more"));
  EXPECT_TRUE(has_prefix(error("*/61 * * * *"), "cron minute field: '*/61' has a step larger than the field's range"));
  EXPECT_TRUE(has_prefix(error("1-5/x * * * *"), "cron minute field: '1-5/x' has a step that is not a whole number"));
  EXPECT_TRUE(has_prefix(error("5-1 * * * *"), "cron minute field: '5-1' starts after it ends"));
  EXPECT_TRUE(has_prefix(
      error("* * * * 5-0"),
      "cron day-of-week field: '5-0' starts after it ends; write Sunday as 7 to end a range on it (accepted"));
  EXPECT_TRUE(has_prefix(error("1,,2 * * * *"), "cron minute field: '1,,2' has an empty list item"));
  EXPECT_TRUE(has_prefix(error("1- * * * *"), "cron minute field: '1-' has no end value "));
  EXPECT_TRUE(has_prefix(error("? * * * *"), "cron minute field: '?' uses '?', which only the two day fields accept"));
  EXPECT_TRUE(has_prefix(error("* * ?,1 * *"), "cron day-of-month field: '?' uses '?', which may only stand alone"));
  EXPECT_TRUE(
      has_prefix(error("* * L * *"),
                 "cron day-of-month field: 'L' uses an L, W or H extension, which standard cron does not have"));
  EXPECT_TRUE(has_prefix(error("* * 15W * *"), "cron day-of-month field: '15W' uses an L, W or H"));
  EXPECT_TRUE(has_prefix(error("H * * * *"), "cron minute field: 'H' uses an L, W or H"));
  EXPECT_TRUE(has_prefix(error("* * * hello *"), "cron month field: 'hello' is not a number or a month name"));
  EXPECT_TRUE(has_prefix(error("* * * * 5#3"),
                         "cron day-of-week field: '5#3' uses '#' (nth weekday), which standard cron does not have"));
  EXPECT_EQ(error("0 0 * * * *"),
            "a cron expression has 5 fields (minute hour day-of-month month day-of-week), '0 0 * * * *' has 6; a "
            "seconds or year field is not supported");
  EXPECT_EQ(error("0 0 * *"),
            "a cron expression has 5 fields (minute hour day-of-month month day-of-week), '0 0 * *' has 4; add the "
            "missing fields");
  EXPECT_EQ(error("@reboot"), "cron @reboot is not supported: schedules fire at times of day; use e.g. @daily");
  EXPECT_EQ(error("@often"),
            "unknown cron macro '@often'; known: @yearly, @annually, @monthly, @weekly, @daily, @midnight, @hourly");
}

// From croniter's test suite: pallets-eco/croniter, src/croniter/tests/test_croniter.py
// (https://github.com/pallets-eco/croniter/blob/master/src/croniter/tests/test_croniter.py, read at
// commit 3dd4d14e971294c03d3fb9be3f5ca03ae1c25310), the 5-field cases of test_minute, test_hour,
// test_day, test_weekday, test_iso_weekday, test_month, test_sunday_to_thursday_with_alpha_conversion,
// test_weekday_day_or_with_impossible_day_of_month, test_impossible_day_of_month_alone_still_raises,
// test_dom_dow_vixie_cron_bug (its implement_cron_bug=True half, which is Vixie cron's rule),
// test_bug2, test_bug3, test_bug57, test_multiple_months, test_range_generator,
// test_next_when_now_satisfies_cron, test_first_of_march, test_question_mark and test_issue156.
// Each row is successive get_next() calls from the start time; where a test skips calls in a loop,
// the skipped fires are listed too.
struct NextCase {
  const char* expr = "";
  CivilMinute from = {};
  std::vector<std::string> fires = {};
};

const std::vector<NextCase> kCroniterCases = {
    // test_minute
    {"*/1 * * * *", {2010, 1, 23, 12, 18}, {"2010-01-23 12:19"}},
    {"*/5 * * * *",
     {2010, 1, 23, 12, 18},
     {"2010-01-23 12:20", "2010-01-23 12:25", "2010-01-23 12:30", "2010-01-23 12:35", "2010-01-23 12:40",
      "2010-01-23 12:45", "2010-01-23 12:50", "2010-01-23 12:55", "2010-01-23 13:00"}},
    // test_hour
    {"0 */3 * * *",
     {2010, 1, 24, 12, 2},
     {"2010-01-24 15:00", "2010-01-24 18:00", "2010-01-24 21:00", "2010-01-25 00:00"}},
    // test_day
    {"0 0 */3 * *", {2010, 2, 24, 12, 9}, {"2010-02-25 00:00", "2010-02-28 00:00", "2010-03-01 00:00"}},
    {"0 0 * * *", {1996, 2, 27, 0, 0}, {"1996-02-28 00:00", "1996-02-29 00:00"}},
    {"0 0 * * *", {2000, 2, 27, 0, 0}, {"2000-02-28 00:00", "2000-02-29 00:00"}},
    // test_weekday
    {"0 0 * * sat", {2010, 2, 25, 0, 0}, {"2010-02-27 00:00", "2010-03-06 00:00"}},
    {"0 0 1 * wed", {2010, 1, 25, 0, 0}, {"2010-01-27 00:00", "2010-02-01 00:00", "2010-02-03 00:00"}},
    // test_iso_weekday
    {"0 0 * * 6", {2010, 2, 25, 0, 0}, {"2010-02-27 00:00", "2010-03-06 00:00"}},
    // test_month
    {"0 0 1 * *",
     {2010, 1, 25, 0, 0},
     {"2010-02-01 00:00", "2010-03-01 00:00", "2010-04-01 00:00", "2010-05-01 00:00", "2010-06-01 00:00",
      "2010-07-01 00:00", "2010-08-01 00:00", "2010-09-01 00:00", "2010-10-01 00:00", "2010-11-01 00:00",
      "2010-12-01 00:00", "2011-01-01 00:00"}},
    // test_sunday_to_thursday_with_alpha_conversion
    {"30 22 * * sun-thu", {2010, 8, 25, 15, 56}, {"2010-08-25 22:30"}},
    // test_weekday_day_or_with_impossible_day_of_month
    {"0 0 31 2 0", {2026, 1, 1, 0, 0}, {"2026-02-01 00:00", "2026-02-08 00:00", "2026-02-15 00:00"}},
    {"0 0 30 2 0", {2026, 1, 1, 0, 0}, {"2026-02-01 00:00", "2026-02-08 00:00", "2026-02-15 00:00"}},
    {"0 0 31 4 0", {2026, 1, 1, 0, 0}, {"2026-04-05 00:00", "2026-04-12 00:00", "2026-04-19 00:00"}},
    // test_impossible_day_of_month_alone_still_raises
    {"0 0 31 2 *", {2026, 1, 1, 0, 0}, {"never"}},
    {"0 0 30 2 *", {2026, 1, 1, 0, 0}, {"never"}},
    // test_dom_dow_vixie_cron_bug, implement_cron_bug=True: "*/2" starts with '*', so both must match
    {"0 16 */2 * sat",
     {2023, 5, 2, 0, 0},
     {"2023-05-13 16:00", "2023-05-27 16:00", "2023-06-03 16:00", "2023-06-17 16:00"}},
    // test_bug2
    {"0 * * 3 *", {2012, 1, 1, 0, 0}, {"2012-03-01 00:00", "2012-03-01 01:00", "2012-03-01 02:00"}},
    // test_bug3 (the start is 12:17:34)
    {"00 03 16,30 * *", {2013, 3, 1, 12, 17}, {"2013-03-16 03:00", "2013-03-30 03:00", "2013-04-16 03:00"}},
    // test_bug57
    {"0 4/6 * * *", {2012, 2, 24, 0, 0}, {"2012-02-24 04:00"}},
    {"0 0/6 * * *", {2012, 2, 24, 0, 0}, {"2012-02-24 06:00"}},
    // test_multiple_months
    {"0 0 1 3,6,9,12 *", {2016, 3, 1, 0, 0}, {"2016-06-01 00:00"}},
    {"0 0 1 3,6,9,12 *", {2016, 2, 15, 0, 0}, {"2016-03-01 00:00"}},
    {"0 0 1 3,6,9,12 *", {2016, 12, 3, 10, 0}, {"2017-03-01 00:00"}},
    // test_range_generator
    {"1-9/2 0 1 * *",
     {2013, 3, 4, 0, 0},
     {"2013-04-01 00:01", "2013-04-01 00:03", "2013-04-01 00:05", "2013-04-01 00:07", "2013-04-01 00:09"}},
    // test_next_when_now_satisfies_cron
    {"4 * * * *", {2018, 5, 21, 0, 3}, {"2018-05-21 00:04"}},
    {"4 * * * *", {2018, 5, 21, 0, 4}, {"2018-05-21 01:04"}},
    // test_first_of_march
    {"0 0 */10 * *", {2025, 2, 22, 0, 0}, {"2025-03-01 00:00"}},
    // test_question_mark
    {"0 0 1 * ?", {2010, 8, 25, 15, 56}, {"2010-09-01 00:00"}},
    // test_issue156: 1547463660 is 2019-01-14 11:01 UTC; the start is 11:00:59.999999
    {"* * * * *,0", {2019, 1, 14, 11, 0}, {"2019-01-14 11:01"}},
};

TEST(CronSchedule, CroniterNextVectors) {
  for (const NextCase& c : kCroniterCases) {
    EXPECT_EQ(fires(c.expr, c.from, c.fires.size()), c.fires) << c.expr << " from " << text(c.from);
  }
}

// croniter's test_match and test_impossible_day_of_month_still_matches (same file and commit as
// above), with its default day_or=True.
TEST(CronSchedule, CroniterMatchVectors) {
  EXPECT_TRUE(must_parse("0 0 * * *").matches({2019, 1, 14, 0, 0}));
  EXPECT_FALSE(must_parse("0 0 * * *").matches({2019, 1, 14, 0, 1}));
  EXPECT_TRUE(must_parse("31 * * * *").matches({2019, 1, 14, 1, 31}));
  EXPECT_TRUE(must_parse("0 0 10 * wed").matches({2020, 6, 10, 0, 0}));
  EXPECT_TRUE(must_parse("0 0 10 * fri").matches({2020, 6, 10, 0, 0}));
  EXPECT_TRUE(must_parse("0 0 10 * fri").matches({2020, 6, 12, 0, 0}));
  EXPECT_TRUE(must_parse("0 0 31 2 0").matches({2026, 2, 1, 0, 0}));
  EXPECT_FALSE(must_parse("0 0 31 2 0").matches({2026, 2, 2, 0, 0}));
}

// Expressions croniter rejects, from test_error, test_invalid_zerorepeat, test_invalid_question_mark,
// test_overflow, test_issue156 and test_issue_k6 (same file and commit as above).
TEST(CronSchedule, CroniterRejections) {
  for (const char* expr :
       {"* * * *",        "-90 * * * *",   "a * * * *",     "* * * janu-jun *", "1-1_0 * * * *", "0-10/error * * * *",
        "0-10/ * * * *",  "0-1& * * * *",  "* * 5-100 * *", "*/0 * * * *",      "5-5/0 * * * *", "59-0/0 * * * *",
        "* * 31-1/0 * *", "* * * * 6-0/0", "? * * * *",     "* ? * * *",        "* * ?,* * *",   "0-10000000 * * * *",
        "* * * * *,b",    "0 0 0 0 0",     "0 0 0 1 0"}) {
    Result<CronSchedule> s = CronSchedule::parse(expr);
    EXPECT_FALSE(s.ok()) << expr;
    EXPECT_EQ(s.status().code(), ErrorCode::kInvalidArgument) << expr;
  }
  EXPECT_TRUE(has_prefix(error("-90 * * * *"), "cron minute field: '-90' has no start value (ac"));
  EXPECT_TRUE(has_prefix(error("0-10000000 * * * *"), "cron minute field: '0-10000000' is out of range (a"));
  EXPECT_TRUE(has_prefix(error("0 0 0 1 0"), "cron day-of-month field: '0' is out of range "));
}

// From robfig/cron's spec_test.go, TestActivation (parsed with ParseStandard, i.e. 5 fields):
// https://github.com/robfig/cron/blob/master/spec_test.go, read at commit
// bc59245fe10efaed9d51b56900192527ed733435. Left out: {"Sun Jul 15 00:00 2012", "* * */10 * Sun",
// true}, because robfig/cron counts "*/10" as restricted where Vixie cron (and this parser) count
// any day field starting with '*' as unrestricted, so only Sundays that are the 1st, 11th, 21st or
// 31st fire.
struct MatchCase {
  CivilMinute at = {};
  const char* spec = "";
  bool expected = false;
};

const std::vector<MatchCase> kRobfigActivation = {
    {{2012, 7, 9, 15, 0}, "0/15 * * * *", true},  // Mon Jul 9 15:00 2012
    {{2012, 7, 9, 15, 45}, "0/15 * * * *", true},
    {{2012, 7, 9, 15, 40}, "0/15 * * * *", false},
    {{2012, 7, 9, 15, 5}, "5/15 * * * *", true},
    {{2012, 7, 9, 15, 20}, "5/15 * * * *", true},
    {{2012, 7, 9, 15, 50}, "5/15 * * * *", true},
    {{2012, 7, 15, 15, 0}, "0/15 * * Jul *", true},  // Sun Jul 15 15:00 2012
    {{2012, 7, 15, 15, 0}, "0/15 * * Jun *", false},
    {{2012, 7, 15, 8, 30}, "30 08 ? Jul Sun", true},
    {{2012, 7, 15, 8, 30}, "30 08 15 Jul ?", true},
    {{2012, 7, 16, 8, 30}, "30 08 ? Jul Sun", false},
    {{2012, 7, 16, 8, 30}, "30 08 15 Jul ?", false},
    {{2012, 7, 9, 15, 0}, "@hourly", true},
    {{2012, 7, 9, 15, 4}, "@hourly", false},
    {{2012, 7, 9, 15, 0}, "@daily", false},
    {{2012, 7, 9, 0, 0}, "@daily", true},
    {{2012, 7, 9, 0, 0}, "@weekly", false},
    {{2012, 7, 8, 0, 0}, "@weekly", true},
    {{2012, 7, 8, 1, 0}, "@weekly", false},
    {{2012, 7, 8, 0, 0}, "@monthly", false},
    {{2012, 7, 1, 0, 0}, "@monthly", true},
    {{2012, 7, 15, 0, 0}, "* * 1,15 * Sun", true},
    {{2012, 6, 15, 0, 0}, "* * 1,15 * Sun", true},
    {{2012, 8, 1, 0, 0}, "* * 1,15 * Sun", true},
    {{2012, 7, 15, 0, 0}, "* * * * Mon", false},
    {{2012, 7, 9, 0, 0}, "* * 1,15 * *", false},
    {{2012, 7, 15, 0, 0}, "* * 1,15 * *", true},
    {{2012, 7, 15, 0, 0}, "* * */2 * Sun", true},
};

TEST(CronSchedule, RobfigActivationVectors) {
  for (const MatchCase& c : kRobfigActivation) {
    EXPECT_EQ(must_parse(c.spec).matches(c.at), c.expected) << c.spec << " at " << text(c.at);
  }
  EXPECT_FALSE(must_parse("* * */10 * Sun").matches({2012, 7, 15, 0, 0})) << "the Vixie reading of the left-out row";
}

// From robfig/cron's spec_test.go, TestNext (same file and commit as above): the rows whose seconds
// field is 0 and that need no time zone, with that field dropped. Left out as well:
// {"Mon Jul 9 23:35 2012", "0 0 0 */5 Apr,Aug,Oct Mon", "Tue Aug 1 00:00 2012"}, which rests on
// robfig/cron's reading of "*/5" as restricted (see above); under Vixie cron's rule it is Aug 6.
const std::vector<NextCase> kRobfigNext = {
    {"0/15 * * * *", {2012, 7, 9, 14, 45}, {"2012-07-09 15:00"}},
    {"0/15 * * * *", {2012, 7, 9, 14, 59}, {"2012-07-09 15:00"}},      // from 14:59 and from 14:59:59
    {"20-35/15 * * * *", {2012, 7, 9, 15, 45}, {"2012-07-09 16:20"}},  // wrap around hours
    {"*/15 * * * *", {2012, 7, 9, 23, 46}, {"2012-07-10 00:00"}},      // wrap around days
    {"20-35/15 * * * *", {2012, 7, 9, 23, 45}, {"2012-07-10 00:20"}},
    {"0 0 9 Apr-Oct ?", {2012, 7, 9, 23, 35}, {"2012-08-09 00:00"}},  // wrap around months
    {"0 0 */5 Oct Mon", {2012, 7, 9, 23, 35}, {"2012-10-01 00:00"}},
    {"0 0 * Feb Mon", {2012, 7, 9, 23, 35}, {"2013-02-04 00:00"}},  // wrap around years
    {"0 0 * Feb Mon/2", {2012, 7, 9, 23, 35}, {"2013-02-01 00:00"}},
    {"* * * * *", {2012, 12, 31, 23, 59}, {"2013-01-01 00:00"}},   // from Dec 31 23:59:45
    {"0 0 29 Feb ?", {2012, 7, 9, 23, 35}, {"2016-02-29 00:00"}},  // leap year
    {"0 0 30 Feb ?", {2012, 7, 9, 23, 35}, {"never"}},             // unsatisfiable
    {"0 0 31 Apr ?", {2012, 7, 9, 23, 35}, {"never"}},
};

TEST(CronSchedule, RobfigNextVectors) {
  for (const NextCase& c : kRobfigNext) {
    EXPECT_EQ(fires(c.expr, c.from, c.fires.size()), c.fires) << c.expr << " from " << text(c.from);
  }
  EXPECT_EQ(next("0 0 */5 Apr,Aug,Oct Mon", {2012, 7, 9, 23, 35}), "2012-08-06 00:00") << "the left-out row";
}

}  // namespace
}  // namespace keel::detail
