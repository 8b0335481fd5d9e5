// tools/time_zone.hpp — the UTC offset of an IANA time zone at a given instant, read from the
// system time zone database (TZif files, RFC 8536, under $TZDIR or /usr/share/zoneinfo).
//
// Why not TZ + localtime_r: changing TZ is process-global and races every other thread that
// formats local time, and GCC 12's libstdc++ has no std::chrono::tzdb. Reading the TZif file
// directly is thread-safe and exact: transitions come from the file, and instants after its last
// transition follow the POSIX TZ rule in its footer (e.g. "CET-1CEST,M3.5.0,M10.5.0/3").
//
// Thread-safety: stateless; safe from any thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "keel/result.hpp"

namespace keel::detail {

struct ZoneOffset {
  int32_t utc_offset_s = 0;  // seconds east of UTC
  bool is_dst = false;
  std::string abbreviation;  // "CEST", "+0530", ...
};

// The offset of zone `name` (e.g. "Europe/Paris") at POSIX time `t`. InvalidArgument for a name
// that is not a zone in the database, with a hint the model can act on.
Result<ZoneOffset> zone_offset_at(std::string_view name, int64_t t);

// Evaluates a POSIX TZ rule string (the TZif footer) at `t`; exposed for tests.
Result<ZoneOffset> posix_rule_offset_at(std::string_view rule, int64_t t);

}  // namespace keel::detail
