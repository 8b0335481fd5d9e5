// A schedule source: one observation each time its cron expression fires, in local time. Fires
// missed while keel was not running are not made up (as cron does); each fire's minute is its
// fingerprint, so a restart within the same minute does not fire twice.
#include <ctime>

#include "autopilot/observation_source.hpp"
#include "core/schedule/cron_schedule.hpp"

namespace keel::detail {
namespace {

CivilMinute local_minute(int64_t ms) {
  const std::time_t t = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  ::localtime_r(&t, &tm);
  return CivilMinute{tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min};
}

std::string minute_text(const CivilMinute& m) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d", m.year, m.month, m.day, m.hour, m.minute);
  return buf;
}

bool before(const CivilMinute& a, const CivilMinute& b) {
  return std::tie(a.year, a.month, a.day, a.hour, a.minute) < std::tie(b.year, b.month, b.day, b.hour, b.minute);
}

class ScheduleSource final : public ObservationSource {
 public:
  ScheduleSource(const AutopilotSourceConfig& config, CronSchedule schedule)
      : ObservationSource(config), schedule_(std::move(schedule)) {}

  bool due(int64_t) const override { return true; }

  Result<std::vector<Finding>> poll(int64_t now_ms, std::stop_token) override {
    const CivilMinute now = local_minute(now_ms);
    std::vector<Finding> out;
    if (!next_) {
      next_ = schedule_.next_after(now);  // the first fire after start
      if (!next_) return Status::InvalidArgument("the schedule '" + schedule_.expression() + "' never fires");
      return out;
    }
    if (before(now, *next_)) return out;
    Finding f;
    f.fingerprint = "schedule:" + minute_text(*next_);
    f.kind = "schedule";
    f.subject = "schedule " + schedule_.expression() + " at " + minute_text(*next_);
    f.payload = {{"schedule", schedule_.expression()}, {"at", minute_text(*next_)}};
    out.push_back(std::move(f));
    next_ = schedule_.next_after(now);
    return out;
  }

 private:
  CronSchedule schedule_;
  std::optional<CivilMinute> next_;
};

}  // namespace

std::unique_ptr<ObservationSource> make_schedule_source(const AutopilotSourceConfig& config) {
  Result<CronSchedule> schedule = CronSchedule::parse(config.cron);
  if (!schedule.ok()) {
    return make_failed_source(config, "schedule '" + config.cron + "': " + schedule.status().message());
  }
  return std::make_unique<ScheduleSource>(config, std::move(*schedule));
}

}  // namespace keel::detail
