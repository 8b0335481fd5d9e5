// One configured observation source inside the autopilot: it is polled when due and reports what
// it found, each finding with the fingerprint that makes it the same observation again.
//
// Thread-safety: a source is polled from the autopilot's loop thread only; still_holds() may be
// called from worker threads and must only read the disk, not the source's state.
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <stop_token>
#include <string>
#include <vector>

#include "keel/autopilot.hpp"
#include "keel/autopilot_config.hpp"
#include "keel/result.hpp"
#include "keel/store/store.hpp"
#include "llm/sha256.hpp"

namespace keel::detail {

// Something a source noticed; it becomes an observation unless its fingerprint is stored.
struct Finding {
  std::string fingerprint;
  std::string kind;     // "file", "schedule", "http", "feed", "git", "mcp"
  std::string subject;  // one line
  nlohmann::json payload = nlohmann::json::object();
};

class ObservationSource {
 public:
  explicit ObservationSource(AutopilotSourceConfig config) : config_(std::move(config)) {}
  virtual ~ObservationSource() = default;
  ObservationSource(const ObservationSource&) = delete;
  ObservationSource& operator=(const ObservationSource&) = delete;

  const AutopilotSourceConfig& config() const { return config_; }
  const std::string& name() const { return config_.name; }
  // Whether to poll at `now_ms`: the kind's own rhythm (every cycle for files and schedules).
  virtual bool due(int64_t now_ms) const = 0;
  // What is new since the last poll. An error is this source's alone: the autopilot reports it and
  // polls again when due.
  virtual Result<std::vector<Finding>> poll(int64_t now_ms, std::stop_token stop) = 0;
  // Whether what the observation saw is still there (a file not deleted or changed since); false
  // dismisses it instead of processing it.
  virtual bool still_holds(const Observation&) const { return true; }
  // A file descriptor that becomes readable when the source has something (inotify); -1: none.
  virtual int wake_fd() const { return -1; }

 private:
  AutopilotSourceConfig config_;
};

// What sources may need besides their configuration.
struct SourceEnv {
  std::string workspace;
  Store* store = nullptr;               // git keeps the commit it saw last here
  std::shared_ptr<McpResourceWatch> mcp_resources = nullptr;
};

// The source `config` describes. A broken entry (config.error) or a kind that cannot start here
// yields a source whose every poll is that error, so the others keep running.
std::unique_ptr<ObservationSource> make_observation_source(const AutopilotSourceConfig& config, const SourceEnv& env);

// A source that only reports `error` (kept with its configuration for status).
std::unique_ptr<ObservationSource> make_failed_source(const AutopilotSourceConfig& config, std::string error);

std::unique_ptr<ObservationSource> make_file_source(const AutopilotSourceConfig& config, const SourceEnv& env);
std::unique_ptr<ObservationSource> make_schedule_source(const AutopilotSourceConfig& config);
std::unique_ptr<ObservationSource> make_http_source(const AutopilotSourceConfig& config);
std::unique_ptr<ObservationSource> make_git_source(const AutopilotSourceConfig& config, const SourceEnv& env);
std::unique_ptr<ObservationSource> make_mcp_source(const AutopilotSourceConfig& config, const SourceEnv& env);

// A poller's rhythm: due at the start, then every `every_ms` after the last poll.
class PollClock {
 public:
  explicit PollClock(int64_t every_ms) : every_ms_(every_ms) {}
  bool due(int64_t now_ms) const { return last_ms_ < 0 || now_ms - last_ms_ >= every_ms_; }
  void polled(int64_t now_ms) { last_ms_ = now_ms; }

 private:
  int64_t every_ms_;
  int64_t last_ms_ = -1;
};

}  // namespace keel::detail
