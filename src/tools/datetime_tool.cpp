// get_datetime — the current date and time: ISO 8601 local time with its UTC offset, UTC time,
// POSIX seconds, weekday and the zone's name.
//
// Time zones: none given (or "local") means the host's zone, via localtime_r. "UTC" (also "Z",
// "GMT", "Etc/UTC") is built in. Any other name is looked up as an IANA zone in the system
// database (time_zone.hpp) without touching TZ, so the tool is safe to run in parallel with
// itself and with the rest of the process.
#include <time.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "tools/builtin_factories.hpp"
#include "tools/fs_common.hpp"
#include "core/text/utf8_text.hpp"
#include "tools/time_zone.hpp"

namespace keel::detail {
namespace {

constexpr const char* kSchema = R"({
  "type": "object",
  "properties": {
    "timezone": {"type": "string", "description": "IANA time zone such as \"Europe/Paris\", or \"UTC\"; default: the host's local time zone"}
  },
  "additionalProperties": false
})";

// "+05:30", "-08:00", "+00:00".
std::string format_offset(int64_t seconds_east) {
  const char sign = seconds_east < 0 ? '-' : '+';
  const int64_t a = seconds_east < 0 ? -seconds_east : seconds_east;
  char buf[16];
  std::snprintf(buf, sizeof buf, "%c%02d:%02d", sign, static_cast<int>(a / 3600), static_cast<int>(a / 60 % 60));
  return buf;
}

// The host zone's name: $TZ, else the zoneinfo link /etc/localtime points to, else
// /etc/timezone, else empty.
std::string local_zone_name() {
  if (const char* tz = std::getenv("TZ"); tz != nullptr && *tz != '\0') return tz[0] == ':' ? tz + 1 : tz;
  char buf[512];
  const ssize_t n = ::readlink("/etc/localtime", buf, sizeof buf - 1);
  if (n > 0) {
    const std::string target(buf, static_cast<size_t>(n));
    const size_t at = target.find("zoneinfo/");
    if (at != std::string::npos) return target.substr(at + 9);
  }
  std::ifstream in("/etc/timezone");
  std::string line;
  if (std::getline(in, line) && !line.empty()) return line;
  return {};
}

bool is_utc_name(const std::string& tz) {
  return tz == "UTC" || tz == "utc" || tz == "Z" || tz == "GMT" || tz == "Etc/UTC" || tz == "Etc/GMT";
}

Result<std::string> now_text(const nlohmann::json& args) {
  const std::string tz = string_arg(args, "timezone", "");
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  int64_t offset = 0;
  std::string abbreviation;
  std::string zone = tz;
  if (tz.empty() || tz == "local") {
    if (localtime_r(&t, &tm) == nullptr) return Status::Internal("cannot determine the local time");
    offset = tm.tm_gmtoff;
    abbreviation = tm.tm_zone != nullptr ? tm.tm_zone : "";
    zone = local_zone_name();
    if (zone.empty()) zone = "local";
  } else if (is_utc_name(tz)) {
    gmtime_r(&t, &tm);
    abbreviation = "UTC";
    zone = "UTC";
  } else {
    KEEL_ASSIGN_OR_RETURN(ZoneOffset z, zone_offset_at(tz, static_cast<int64_t>(t)));
    offset = z.utc_offset_s;
    abbreviation = z.abbreviation;
    const std::time_t shifted = t + static_cast<std::time_t>(offset);
    gmtime_r(&shifted, &tm);
  }

  static constexpr const char* kWeekdays[] = {"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday",
                                              "Saturday"};
  char local[64];
  const size_t n = std::strftime(local, sizeof local, "%Y-%m-%dT%H:%M:%S", &tm);
  std::string out = "local: " + std::string(local, n) + format_offset(offset) + "\n";
  out += "utc: " + iso8601_utc(t) + "\n";
  out += "unix: " + std::to_string(static_cast<long long>(t)) + "\n";
  out += "weekday: " + std::string(kWeekdays[tm.tm_wday >= 0 && tm.tm_wday < 7 ? tm.tm_wday : 0]) + "\n";
  out += "timezone: " + zone + " (" + (abbreviation.empty() ? "" : abbreviation + ", ") + "UTC" +
         format_offset(offset) + ")\n";
  return out;
}

}  // namespace

std::unique_ptr<Tool> make_datetime_tool() {
  ToolSpec spec;
  spec.name = "get_datetime";
  spec.description = "Get the current date and time (ISO 8601), optionally in a given IANA time zone.";
  spec.parameters_schema = kSchema;
  spec.read_only = true;
  spec.concurrency_safe = true;
  spec.risk = Risk::kLow;
  spec.timeout_ms = 5000;
  spec.cacheable = false;
  spec.bounded = true;  // the clock, and at most one time-zone file
  return make_tool(std::move(spec), [](const nlohmann::json& args, const ToolContext&) { return now_text(args); });
}

}  // namespace keel::detail
