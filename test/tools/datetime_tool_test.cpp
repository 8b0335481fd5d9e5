#include <time.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>

#include "keel/builtin_tools.hpp"
#include "support/temp_dir.hpp"
#include "tools/time_zone.hpp"

namespace keel {
namespace {

int64_t utc(int y, int mo, int d, int h, int mi, int s) {
  std::tm tm{};
  tm.tm_year = y - 1900;
  tm.tm_mon = mo - 1;
  tm.tm_mday = d;
  tm.tm_hour = h;
  tm.tm_min = mi;
  tm.tm_sec = s;
  return static_cast<int64_t>(timegm(&tm));
}

// The zones these tests read must be in the system database ($TZDIR, else /usr/share/zoneinfo, as
// tools/time_zone.hpp reads it). Without it the tests fail: the tool needs it at run time too.
::testing::AssertionResult zone_database_installed() {
  const char* tzdir = std::getenv("TZDIR");
  const std::filesystem::path dir = tzdir != nullptr && *tzdir != '\0' ? tzdir : "/usr/share/zoneinfo";
  for (const char* zone : {"Europe/Paris", "Asia/Kolkata", "America/New_York", "Asia/Tokyo"}) {
    if (!std::filesystem::is_regular_file(dir / zone)) {
      return ::testing::AssertionFailure() << "no time zone database: " << (dir / zone)
                                           << " is missing; install tzdata (scripts/install-deps.sh does, "
                                           << "or apt-get install tzdata)";
    }
  }
  return ::testing::AssertionSuccess();
}

class DatetimeToolTest : public ::testing::Test {
 protected:
  void SetUp() override {
    BuiltinToolOptions o;
    o.workspace_root = tmp_.path().string();
    ASSERT_TRUE(register_builtin_tools(registry_, o).ok());
  }
  Result<std::string> now(const nlohmann::json& args) {
    Status valid = registry_.validate_arguments("get_datetime", args);
    if (!valid.ok()) return valid;
    return registry_.find("get_datetime")->execute(args, ToolContext{});
  }
  testing::TempDir tmp_;
  ToolRegistry registry_;
};

const std::regex kLocal(R"(local: (\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)([+-]\d\d:\d\d)\n)");
const std::regex kUtc(R"(utc: (\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)Z\n)");
const std::regex kUnix(R"(unix: (\d+)\n)");

TEST_F(DatetimeToolTest, ReturnsParseableIsoTimestamps) {
  const time_t before = ::time(nullptr);
  auto r = now(nlohmann::json::object());
  ASSERT_TRUE(r.ok()) << r.status().message();
  std::smatch m;
  ASSERT_TRUE(std::regex_search(*r, m, kLocal)) << *r;
  ASSERT_TRUE(std::regex_search(*r, m, kUtc)) << *r;
  std::tm tm{};
  ASSERT_NE(strptime(m[1].str().c_str(), "%Y-%m-%dT%H:%M:%S", &tm), nullptr);
  const time_t parsed = timegm(&tm);
  EXPECT_LE(std::llabs(static_cast<long long>(parsed - before)), 2);
  ASSERT_TRUE(std::regex_search(*r, m, kUnix)) << *r;
  EXPECT_LE(std::llabs(std::stoll(m[1].str()) - static_cast<long long>(before)), 2);
  EXPECT_TRUE(std::regex_search(*r, std::regex(R"(weekday: (Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day\n)"))) << *r;
  EXPECT_NE(r->find("timezone: "), std::string::npos);
}

TEST_F(DatetimeToolTest, UtcZone) {
  auto r = now({{"timezone", "UTC"}});
  ASSERT_TRUE(r.ok());
  std::smatch local, u;
  ASSERT_TRUE(std::regex_search(*r, local, kLocal)) << *r;
  ASSERT_TRUE(std::regex_search(*r, u, kUtc)) << *r;
  EXPECT_EQ(local[7].str(), "+00:00");
  EXPECT_NE(r->find("timezone: UTC (UTC, UTC+00:00)"), std::string::npos) << *r;
}

TEST_F(DatetimeToolTest, IanaZones) {
  ASSERT_TRUE(zone_database_installed());
  auto kolkata = now({{"timezone", "Asia/Kolkata"}});
  ASSERT_TRUE(kolkata.ok()) << kolkata.status().message();
  std::smatch m;
  ASSERT_TRUE(std::regex_search(*kolkata, m, kLocal)) << *kolkata;
  EXPECT_EQ(m[7].str(), "+05:30");
  EXPECT_NE(kolkata->find("timezone: Asia/Kolkata (IST, UTC+05:30)"), std::string::npos) << *kolkata;
  auto paris = now({{"timezone", "Europe/Paris"}});
  ASSERT_TRUE(paris.ok());
  ASSERT_TRUE(std::regex_search(*paris, m, kLocal)) << *paris;
  EXPECT_TRUE(m[7].str() == "+01:00" || m[7].str() == "+02:00") << *paris;
}

TEST_F(DatetimeToolTest, UnknownZonesAreRefused) {
  for (const char* bad : {"Mars/Olympus_Mons", "../../etc/passwd", "/etc/localtime", "Europe", "Europe/../Asia/Tokyo"}) {
    auto r = now({{"timezone", bad}});
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().code(), ErrorCode::kInvalidArgument) << bad;
    EXPECT_NE(r.status().message().find("IANA name"), std::string::npos) << r.status().message();
  }
}

TEST(TimeZoneTest, PosixRulesNorthernHemisphere) {
  const char* paris = "CET-1CEST,M3.5.0,M10.5.0/3";
  auto winter = detail::posix_rule_offset_at(paris, utc(2030, 1, 15, 12, 0, 0));
  ASSERT_TRUE(winter.ok());
  EXPECT_EQ(winter->utc_offset_s, 3600);
  EXPECT_EQ(winter->abbreviation, "CET");
  auto summer = detail::posix_rule_offset_at(paris, utc(2030, 7, 1, 12, 0, 0));
  ASSERT_TRUE(summer.ok());
  EXPECT_EQ(summer->utc_offset_s, 7200);
  EXPECT_TRUE(summer->is_dst);
  // US: DST starts 2030-03-10 at 02:00 EST = 07:00 UTC.
  const char* ny = "EST5EDT,M3.2.0,M11.1.0";
  EXPECT_EQ(detail::posix_rule_offset_at(ny, utc(2030, 3, 10, 6, 59, 59))->utc_offset_s, -5 * 3600);
  EXPECT_EQ(detail::posix_rule_offset_at(ny, utc(2030, 3, 10, 7, 0, 0))->utc_offset_s, -4 * 3600);
}

TEST(TimeZoneTest, PosixRulesSouthernHemisphereAndFixed) {
  const char* sydney = "AEST-10AEDT,M10.1.0,M4.1.0/3";
  EXPECT_EQ(detail::posix_rule_offset_at(sydney, utc(2030, 1, 10, 0, 0, 0))->utc_offset_s, 11 * 3600);
  EXPECT_EQ(detail::posix_rule_offset_at(sydney, utc(2030, 7, 10, 0, 0, 0))->utc_offset_s, 10 * 3600);
  auto fixed = detail::posix_rule_offset_at("<+0530>-5:30", 0);
  ASSERT_TRUE(fixed.ok());
  EXPECT_EQ(fixed->utc_offset_s, 5 * 3600 + 1800);
  EXPECT_EQ(fixed->abbreviation, "+0530");
  EXPECT_FALSE(detail::posix_rule_offset_at("garbage!", 0).ok());
}

TEST(TimeZoneTest, TzifTransitionsAndFooter) {
  ASSERT_TRUE(zone_database_installed());
  EXPECT_EQ(detail::zone_offset_at("Europe/Paris", utc(2021, 1, 1, 0, 0, 0))->utc_offset_s, 3600);
  EXPECT_EQ(detail::zone_offset_at("Europe/Paris", utc(2021, 7, 1, 0, 0, 0))->utc_offset_s, 7200);
  EXPECT_EQ(detail::zone_offset_at("Europe/Paris", utc(2100, 7, 1, 0, 0, 0))->utc_offset_s, 7200);  // footer rule
  EXPECT_EQ(detail::zone_offset_at("America/New_York", utc(2024, 12, 1, 0, 0, 0))->abbreviation, "EST");
  EXPECT_EQ(detail::zone_offset_at("Asia/Tokyo", utc(2024, 6, 1, 0, 0, 0))->utc_offset_s, 9 * 3600);
}

}  // namespace
}  // namespace keel
