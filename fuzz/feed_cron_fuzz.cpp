// libFuzzer target for the autopilot's readers of outside input: RSS/Atom feeds (parse_feed) and
// cron expressions (CronSchedule). Invariants: no crash, hang or leak on any bytes; a feed either
// parses or has an error message, never both; every item has an id; a parsed cron expression
// finds its next fire in bounded time, and that minute matches the schedule and lies after the start.
// Build: clang++-14 -std=c++20 -g -O1 -fsanitize=fuzzer,address,undefined -I include -I src
//        src/core/text/*.cpp src/core/schedule/*.cpp fuzz/feed_cron_fuzz.cpp -o /tmp/feedfuzz
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <tuple>

#include "core/schedule/cron_schedule.hpp"
#include "core/text/feed_items.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  keel::Result<keel::detail::Feed> feed = keel::detail::parse_feed(text);
  if (feed.ok()) {
    if (feed->kind != "rss" && feed->kind != "atom" && feed->kind != "rdf") std::abort();
    for (const keel::detail::FeedItem& item : feed->items) {
      if (item.id.empty() && !(item.title.empty() && item.published.empty())) std::abort();
    }
  } else if (feed.status().message().empty()) {
    std::abort();
  }
  if (size > 200) return 0;  // cron expressions are short
  keel::Result<keel::detail::CronSchedule> cron = keel::detail::CronSchedule::parse(text);
  if (!cron.ok()) {
    if (cron.status().message().empty()) std::abort();
    return 0;
  }
  const keel::detail::CivilMinute start{2024, 2, 28, 23, 59};
  std::optional<keel::detail::CivilMinute> next = cron->next_after(start);
  if (next) {
    if (!cron->matches(*next)) std::abort();
    if (std::tie(next->year, next->month, next->day, next->hour, next->minute) <=
        std::tie(start.year, start.month, start.day, start.hour, start.minute)) {
      std::abort();
    }
  }
  return 0;
}
