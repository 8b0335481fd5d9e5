// `keel run --json`: every run event as one JSON object per line (JSON Lines) on stdout.
// The schema is versioned ("v": 1) and documented in docs/events.md; the last line of a run is
// run_finished (with the answer) or run_failed.
#pragma once

#include <cstdio>
#include <memory>
#include <string>

#include "keel/hooks.hpp"
#include "runtime/run_event_json.hpp"

namespace keel::cli {

// Thread-safety: called by the agent one hook at a time; writes whole lines.
class JsonEventsPlugin final : public detail::RunEventJson {
 public:
  // `out` must outlive the plugin. With `stream_deltas` false, model_delta events are left out.
  JsonEventsPlugin(std::FILE* out, bool stream_deltas);
  // A line that is not tied to a hook: {"v":1,"type":"notice","message":...}.
  void notice(const std::string& message);
  // The last line when a run could not start: {"type":"run_failed","kind":"usage"...}.
  void error(const std::string& kind, const std::string& message, int exit_code);

 private:
  struct Writer;
  JsonEventsPlugin(std::shared_ptr<Writer> writer, bool stream_deltas);
  std::shared_ptr<Writer> writer_;
};

// The exit code keel uses for an outcome: 0 answer, 3 run failed, 4 backend error, 130 aborted.
int exit_code_for(const RunOutcome& outcome);

}  // namespace keel::cli
