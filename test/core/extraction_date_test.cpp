// is_valid_date(): the accepted forms, and that a date must exist on the calendar.
#include <gtest/gtest.h>

#include <string>

#include "keel/core/extraction.hpp"

namespace keel {
namespace {

TEST(ExtractionDate, AcceptsIsoDatesAndDateTimes) {
  for (const char* v : {"2024-03-04", "2024-02-29", "2000-02-29", "0001-01-01", "9999-12-31", "2024-3-4",
                        "2024-03-04T10:30", "2024-03-04t10:30", "2024-03-04T10:30:15Z", "2024-03-04T23:59:60",
                        "2024-03-04T10:30:15.123+02:00", "2024-03-04T10:30:15,5-0700", "2024-03-04T10:30+02",
                        "2024-03-04 10:30", "2024/3/4", "2024/03/04", "2024.03.04"}) {
    EXPECT_TRUE(is_valid_date(v)) << v;
  }
}

TEST(ExtractionDate, AcceptsNumericDayMonthYear) {
  for (const char* v : {"03/04/2024", "3/4/24", "31/12/2024", "12/31/2024", "03.04.2024", "03-04-2024", "29/02/2024",
                        "02/29/2024", " 03/04/2024 "}) {
    EXPECT_TRUE(is_valid_date(v)) << v;
  }
}

TEST(ExtractionDate, AcceptsWrittenForms) {
  for (const char* v :
       {"March 3, 2024",         "March 3 2024",       "march 3, 2024",     "MARCH 3, 2024",  "Mar 3, 2024",
        "Mar. 3rd, 2024",        "Sept 1, 2024",       "Sep 1, 2024",       "March 3",        "mar 3",
        "Sunday, March 3, 2024", "Sun March 3, 2024",  "3 March 2024",      "3rd March 2024", "03 Mar 2024",
        "3 March, 2024",         "3rd of March, 2024", "21st of September", "3 March",        "February 29",
        "29 February 2024",      "March\u00A03, 2024", "March\n3,\n2024"}) {
    EXPECT_TRUE(is_valid_date(v)) << v;
  }
}

TEST(ExtractionDate, RejectsDatesNotOnTheCalendar) {
  for (const char* v : {"2024-02-30", "February 30, 2024", "30 February 2024", "February 30", "2023-02-29",
                        "February 29, 2023", "1900-02-29", "2024-13-01", "2024-00-10", "2024-01-32", "2024-04-31",
                        "April 31", "31/31/2024", "13/13/2024", "30/02/2024", "0000-01-01", "00/00/2024"}) {
    EXPECT_FALSE(is_valid_date(v)) << v;
  }
}

TEST(ExtractionDate, RejectsOtherText) {
  for (const char* v : {"",
                        "   ",
                        "2024",
                        "2024-03",
                        "March 2024",
                        "March",
                        "Marchy 3, 2024",
                        "March 32",
                        "March 3rdx",
                        "Funday, March 3, 2024",
                        "2024-03-04T25:00",
                        "2024-03-04T10:60",
                        "2024-03-04T10",
                        "2024-03-04 and more",
                        "3/4/202",
                        "03.04.24",
                        "1.2.24",
                        "3/4-2024",
                        "2024-03/04",
                        "20240-03-04",
                        "yesterday",
                        "March  \t   3, 2024"}) {
    EXPECT_FALSE(is_valid_date(v)) << v;
  }
}

}  // namespace
}  // namespace keel
