#include "cli/json_events.hpp"

#include <chrono>
#include <nlohmann/json.hpp>

#include "base/clock.hpp"

namespace keel::cli {

using nlohmann::json;

int exit_code_for(const RunOutcome& o) { return detail::exit_code_for(o); }

struct JsonEventsPlugin::Writer {
  std::FILE* out;
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  void write(std::string_view type, json body, const RunContext* ctx = nullptr) {
    json line = {{"v", 1}, {"type", type}};
    if (ctx != nullptr) {
      line["run_id"] = ctx->run_id;
      if (ctx->round > 0) line["round"] = ctx->round;
    }
    line["t_ms"] = detail::ms_since(start);
    for (auto it = body.begin(); it != body.end(); ++it) line[it.key()] = it.value();
    std::string s = line.dump(-1, ' ', false, json::error_handler_t::replace);
    s.push_back('\n');
    std::fwrite(s.data(), 1, s.size(), out);
    std::fflush(out);
  }
};

JsonEventsPlugin::JsonEventsPlugin(std::FILE* out, bool stream_deltas)
    : JsonEventsPlugin(std::make_shared<Writer>(Writer{out}), stream_deltas) {}

JsonEventsPlugin::JsonEventsPlugin(std::shared_ptr<Writer> writer, bool stream_deltas)
    : detail::RunEventJson([writer](std::string_view type, json body, const RunContext* ctx) {
                             writer->write(type, std::move(body), ctx);
                           },
                           stream_deltas),
      writer_(std::move(writer)) {}

void JsonEventsPlugin::notice(const std::string& message) { writer_->write("notice", {{"message", message}}); }

void JsonEventsPlugin::error(const std::string& kind, const std::string& message, int exit_code) {
  writer_->write("run_failed", {{"kind", kind}, {"error", message}, {"exit_code", exit_code}});
}

}  // namespace keel::cli
