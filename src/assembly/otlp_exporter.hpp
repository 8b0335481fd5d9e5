// Sends finished runs' trace spans to an OpenTelemetry collector over OTLP/HTTP (JSON encoding),
// to a JSON Lines file, or to stderr, as the standard OTEL_* variables say — off the run's path:
// a collector that is down or never answers neither slows nor fails a run.
//
//   OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318 keel run "..."     # POST .../v1/traces
//
// Variables (the OpenTelemetry SDK's, opentelemetry.io/docs/specs/otel/protocol/exporter and
// configuration/sdk-environment-variables):
//   OTEL_EXPORTER_OTLP_TRACES_ENDPOINT  the traces URL as it is; else OTEL_EXPORTER_OTLP_ENDPOINT
//                                       + "/v1/traces"
//   OTEL_EXPORTER_OTLP[_TRACES]_HEADERS "k=v,k2=v2" (values percent-decoded)
//   OTEL_EXPORTER_OTLP[_TRACES]_TIMEOUT milliseconds per export (default 10000)
//   OTEL_EXPORTER_OTLP[_TRACES]_PROTOCOL http/json (what keel sends); http/protobuf is answered
//                                       with JSON and a warning; grpc is not supported (warning,
//                                       no HTTP export)
//   OTEL_TRACES_EXPORTER                otlp (default), console (stderr), none
//   OTEL_SDK_DISABLED=true              nothing is exported
//   OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES   the resource (service.name defaults to keel)
//   OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true   contents in spans (off by default)
//   KEEL_OTLP_FILE                      also append each export request as one line to this file
//
// Batches wait in a bounded queue (64 runs; more are dropped and counted) for one worker thread.
// A failed export is one warning (later failures are counted, not repeated). At exit the exporter
// waits at most min(timeout, 0.5 s) for what is queued, then abandons it with a warning. The run's
// answer is out before that: only the process's exit can wait, and only when the collector is slow.
//
// Thread-safety: submit() and flush() may be called from any thread.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "assembly/otlp_json.hpp"
#include "keel/store/records.hpp"

namespace keel::assembly {

struct OtlpExportSettings {
  bool enabled = false;               // anything to export to
  std::string traces_url;             // POST target; empty: no HTTP export
  std::vector<std::string> headers;   // "Name: value" lines sent with each export
  int64_t timeout_ms = 10000;         // one export, connection included
  std::string file;                   // JSON Lines file to append to; empty: none
  bool console = false;               // print each export request to stderr
  OtlpEncoding encoding;              // resource and content capture
  std::vector<std::string> warnings;  // settings that could not be followed, worded for the user
};

// Reads the variables above through `env` (getenv in production; a map in tests).
OtlpExportSettings otlp_settings_from_env(const std::function<const char*(const char*)>& env);

class OtlpExporter {
 public:
  // `warn` receives one line per problem (an export that failed, a queue that overflowed).
  OtlpExporter(OtlpExportSettings settings, std::function<void(const std::string&)> warn);
  // Waits at most min(timeout, 0.5 s) for queued exports, then stops the one in flight.
  ~OtlpExporter();
  OtlpExporter(const OtlpExporter&) = delete;
  OtlpExporter& operator=(const OtlpExporter&) = delete;

  // Queues one run's spans; returns at once.
  void submit(std::vector<SpanRecord> spans);
  // Waits until everything queued so far was sent (or failed), at most `timeout_ms`; true when done.
  bool flush(int64_t timeout_ms);

  struct Counts {
    int exported = 0;  // export requests a destination accepted
    int failed = 0;    // export requests that failed
    int dropped = 0;   // runs dropped because the queue was full
  };
  Counts counts() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The process's exporter as the environment configures it, made on first use and kept until the
// process exits; nullptr when nothing is to be exported. Problems go to stderr ("keel: telemetry: ...").
std::shared_ptr<OtlpExporter> process_otlp_exporter();

}  // namespace keel::assembly
