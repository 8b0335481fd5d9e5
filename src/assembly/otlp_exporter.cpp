// The OTLP exporter (assembly/otlp_exporter.hpp).
#include "assembly/otlp_exporter.hpp"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <fstream>
#include <memory>
#include <mutex>
#include <optional>
#include <stop_token>
#include <thread>
#include <utility>

#include "core/text/percent_decode.hpp"
#include "core/text/text_util.hpp"
#include "net/http_transport.hpp"

namespace keel::assembly {
namespace {

constexpr size_t kMaxQueuedRuns = 64;
constexpr int64_t kExitWaitMs = 500;

// A key or value of an OTEL_* list, percent-decoded (kept as written when an escape is bad) and trimmed.
std::string list_item(std::string_view raw) {
  std::optional<std::string> decoded = detail::percent_decode(raw, false);
  return std::string(detail::trim(decoded ? std::string_view(*decoded) : raw));
}

// "k=v,k2=v2" (the W3C Baggage-like list the OTel variables use), in order; malformed entries skipped.
std::vector<std::pair<std::string, std::string>> key_values(const char* text) {
  std::vector<std::pair<std::string, std::string>> out;
  if (text == nullptr) return out;
  std::string_view rest(text);
  while (!rest.empty()) {
    size_t comma = rest.find(',');
    std::string_view item = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    size_t eq = item.find('=');
    if (eq == std::string_view::npos) continue;
    std::string key = list_item(item.substr(0, eq));
    if (!key.empty()) out.emplace_back(std::move(key), list_item(item.substr(eq + 1)));
  }
  return out;
}

// The traces variable when set, else the general one.
const char* pick(const std::function<const char*(const char*)>& env, const char* traces, const char* general) {
  const char* v = env(traces);
  if (v != nullptr && *v != '\0') return v;
  v = env(general);
  return v != nullptr && *v != '\0' ? v : nullptr;
}

}  // namespace

OtlpExportSettings otlp_settings_from_env(const std::function<const char*(const char*)>& env) {
  OtlpExportSettings s;
  const char* disabled = env("OTEL_SDK_DISABLED");
  if (disabled != nullptr && detail::lowercase(disabled) == "true") return s;
  const char* exporter = env("OTEL_TRACES_EXPORTER");
  const std::string which = exporter != nullptr && *exporter != '\0' ? detail::lowercase(exporter) : "otlp";
  if (which == "none") return s;
  if (which == "console") s.console = true;
  else if (which != "otlp") s.warnings.push_back("OTEL_TRACES_EXPORTER=" + which + " is not supported (otlp, console or none)");

  if (which == "otlp") {
    if (const char* url = env("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"); url != nullptr && *url != '\0') {
      s.traces_url = url;
    } else if (const char* base = env("OTEL_EXPORTER_OTLP_ENDPOINT"); base != nullptr && *base != '\0') {
      std::string b = base;
      while (!b.empty() && b.back() == '/') b.pop_back();
      s.traces_url = b + "/v1/traces";
    }
    const char* protocol = pick(env, "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL");
    const std::string p = protocol != nullptr ? detail::lowercase(protocol) : "http/json";
    if (p == "grpc" && !s.traces_url.empty()) {
      s.warnings.push_back("OTLP over gRPC is not supported: traces are not sent to " + s.traces_url +
                           "; set OTEL_EXPORTER_OTLP_PROTOCOL=http/json and the collector's HTTP port (4318)");
      s.traces_url.clear();
    } else if (p == "http/protobuf" && !s.traces_url.empty()) {
      s.warnings.push_back("keel sends OTLP as http/json (Content-Type application/json), not http/protobuf; "
                           "OpenTelemetry collectors accept both on their HTTP port");
    }
  }
  // The traces list wins over the general one for the same header.
  std::vector<std::pair<std::string, std::string>> headers = key_values(env("OTEL_EXPORTER_OTLP_TRACES_HEADERS"));
  for (auto& [k, v] : key_values(env("OTEL_EXPORTER_OTLP_HEADERS"))) {
    const std::string key = detail::lowercase(k);
    if (std::none_of(headers.begin(), headers.end(), [&](const auto& h) { return detail::lowercase(h.first) == key; })) {
      headers.emplace_back(std::move(k), std::move(v));
    }
  }
  for (const auto& [k, v] : headers) s.headers.push_back(k + ": " + v);
  if (const char* t = pick(env, "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT", "OTEL_EXPORTER_OTLP_TIMEOUT")) {
    char* end = nullptr;
    long long ms = std::strtoll(t, &end, 10);
    if (end != t && *end == '\0' && ms > 0) s.timeout_ms = ms;
    else s.warnings.push_back(std::string("OTEL_EXPORTER_OTLP_TIMEOUT=") + t + " is not a number of milliseconds; using 10000");
  }
  if (const char* file = env("KEEL_OTLP_FILE"); file != nullptr && *file != '\0') s.file = file;
  if (const char* name = env("OTEL_SERVICE_NAME"); name != nullptr && *name != '\0') s.encoding.resource.service_name = name;
  for (auto& [k, v] : key_values(env("OTEL_RESOURCE_ATTRIBUTES"))) {
    if (k == "service.name" && env("OTEL_SERVICE_NAME") == nullptr) s.encoding.resource.service_name = v;
    s.encoding.resource.attributes.emplace_back(std::move(k), std::move(v));
  }
  const char* capture = env("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT");
  s.encoding.capture_content = capture != nullptr && detail::lowercase(capture) == "true";
  s.enabled = !s.traces_url.empty() || !s.file.empty() || s.console;
  return s;
}

struct OtlpExporter::Impl {
  OtlpExportSettings settings;
  std::function<void(const std::string&)> warn;
  mutable std::mutex mu;
  std::condition_variable changed;
  std::deque<std::vector<SpanRecord>> queue;
  size_t in_flight = 0;  // batches taken from the queue and not yet done
  Counts counts;
  bool warned_failure = false;
  std::stop_source stop;
  std::thread worker;

  void report(const std::string& line) {
    if (warn) warn(line);
  }

  // One export request to every destination; false when one failed. The HTTP session (and with it
  // libcurl) is made at the first export that needs it: a file or console export loads neither.
  bool send(std::unique_ptr<detail::HttpSession>& http, const std::string& body) {
    bool ok = true;
    if (settings.console) std::fprintf(stderr, "%s\n", body.c_str());
    if (!settings.file.empty()) {
      std::ofstream out(settings.file, std::ios::app);
      out << body << '\n';
      if (!out) {
        ok = false;
        fail_once("cannot append traces to " + settings.file);
      }
    }
    if (!settings.traces_url.empty()) {
      detail::HttpRequest request;
      request.url = settings.traces_url;
      request.target = settings.traces_url;
      request.body = body;
      request.headers = settings.headers;
      request.headers.push_back("Content-Type: application/json");
      request.connect_timeout_ms = std::min<int64_t>(settings.timeout_ms, 5000);
      request.total_timeout_ms = settings.timeout_ms;
      request.total_timeout_name = "OTEL_EXPORTER_OTLP_TIMEOUT";
      request.stop = stop.get_token();
      std::string reply;
      request.on_body = [&reply](const detail::HttpHead&, std::string_view chunk) {
        if (reply.size() < 2048) reply.append(chunk.substr(0, 2048 - reply.size()));
        return true;
      };
      if (!http) http = std::make_unique<detail::HttpSession>();
      detail::HttpOutcome outcome = http->perform(request);
      if (outcome.end != detail::HttpEnd::kCompleted) {
        ok = false;
        if (outcome.end != detail::HttpEnd::kCancelled) {
          fail_once("cannot export traces to " + settings.traces_url + ": " + outcome.error.message());
        }
      } else if (outcome.head.status < 200 || outcome.head.status >= 300) {
        ok = false;
        fail_once("the collector at " + settings.traces_url + " answered HTTP " + std::to_string(outcome.head.status) +
                  (reply.empty() ? "" : ": " + reply.substr(0, 200)));
      }
    }
    return ok;
  }

  void fail_once(const std::string& line) {
    std::lock_guard lock(mu);
    if (warned_failure) return;
    warned_failure = true;
    if (warn) warn("telemetry: " + line + " (later failures are not reported; runs are not affected)");
  }

  void run() {
    std::unique_ptr<detail::HttpSession> http;
    for (;;) {
      std::vector<SpanRecord> spans;
      {
        std::unique_lock lock(mu);
        changed.wait(lock, [&] { return !queue.empty() || stop.stop_requested(); });
        if (queue.empty()) return;  // stopping with nothing left
        if (stop.stop_requested()) {
          queue.clear();
          changed.notify_all();
          return;
        }
        spans = std::move(queue.front());
        queue.pop_front();
        ++in_flight;
      }
      const std::string body =
          spans_to_otlp(spans, settings.encoding).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
      const bool ok = send(http, body);
      std::lock_guard lock(mu);
      --in_flight;
      (ok ? counts.exported : counts.failed) += 1;
      changed.notify_all();
    }
  }
};

OtlpExporter::OtlpExporter(OtlpExportSettings settings, std::function<void(const std::string&)> warn)
    : impl_(std::make_unique<Impl>()) {
  impl_->settings = std::move(settings);
  impl_->warn = std::move(warn);
  for (const std::string& w : impl_->settings.warnings) impl_->report("telemetry: " + w);
  impl_->worker = std::thread([impl = impl_.get()] { impl->run(); });
}

OtlpExporter::~OtlpExporter() {
  const int64_t wait_ms = std::min<int64_t>(impl_->settings.timeout_ms, kExitWaitMs);
  if (!flush(wait_ms)) {
    impl_->fail_once("the traces of the last run(s) were not sent within " + std::to_string(wait_ms) +
                     " ms of exit and are dropped" +
                     (impl_->settings.traces_url.empty() ? "" : " (is the collector at " + impl_->settings.traces_url +
                                                                    " answering?)"));
  }
  {
    std::lock_guard lock(impl_->mu);
    impl_->stop.request_stop();  // aborts an export in flight
  }
  impl_->changed.notify_all();
  if (impl_->worker.joinable()) impl_->worker.join();
}

void OtlpExporter::submit(std::vector<SpanRecord> spans) {
  if (spans.empty()) return;
  bool overflow = false;
  {
    std::lock_guard lock(impl_->mu);
    if (impl_->queue.size() >= kMaxQueuedRuns) {
      ++impl_->counts.dropped;
      overflow = impl_->counts.dropped == 1;
    } else {
      impl_->queue.push_back(std::move(spans));
    }
  }
  impl_->changed.notify_all();
  if (overflow) impl_->report("telemetry: the export queue is full (64 runs); traces are being dropped");
}

bool OtlpExporter::flush(int64_t timeout_ms) {
  std::unique_lock lock(impl_->mu);
  return impl_->changed.wait_for(lock, std::chrono::milliseconds(std::max<int64_t>(0, timeout_ms)),
                                 [&] { return impl_->queue.empty() && impl_->in_flight == 0; });
}

OtlpExporter::Counts OtlpExporter::counts() const {
  std::lock_guard lock(impl_->mu);
  return impl_->counts;
}

std::shared_ptr<OtlpExporter> process_otlp_exporter() {
  // It outlives every run (and may report at exit), so it reports straight to stderr.
  auto warn = [](const std::string& line) { std::fprintf(stderr, "keel: %s\n", line.c_str()); };
  static std::once_flag once;
  static std::shared_ptr<OtlpExporter> exporter;
  std::call_once(once, [&] {
    OtlpExportSettings settings = otlp_settings_from_env([](const char* name) { return std::getenv(name); });
    if (settings.enabled) {
      exporter = std::make_shared<OtlpExporter>(std::move(settings), warn);
    } else {
      for (const std::string& w : settings.warnings) warn("telemetry: " + w);
    }
  });
  return exporter;
}

}  // namespace keel::assembly
