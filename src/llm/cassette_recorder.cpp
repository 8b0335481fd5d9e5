// The recording side of keel/cassette.hpp: passes every call through to the wrapped backend and
// appends the exchange to the cassette once it has completed.
#include <cstdio>
#include <cstring>
#include <cerrno>
#include <mutex>
#include <nlohmann/json.hpp>
#include <utility>

#include "keel/cassette.hpp"
#include "llm/cassette_json.hpp"

namespace keel {
namespace {

using nlohmann::json;

class RecordingClient final : public LlmClient {
 public:
  RecordingClient(std::unique_ptr<LlmClient> inner, std::FILE* file) : inner_(std::move(inner)), file_(file) {
    write_line(json{{"cassette", 1}, {"backend", inner_->describe()}});
  }
  ~RecordingClient() override { std::fclose(file_); }
  RecordingClient(const RecordingClient&) = delete;
  RecordingClient& operator=(const RecordingClient&) = delete;

  Result<ModelReply> complete(const ModelRequest& request, const CallOptions& options) override {
    std::lock_guard<std::mutex> lock(mutex_);
    json events = json::array();
    CallOptions inner = options;
    // Pieces are kept in arrival order; consecutive pieces of one kind stay separate so replay
    // hands the callbacks exactly what the backend did.
    inner.on_text = [&](std::string_view piece) {
      events.push_back({{"text", std::string(piece)}});
      if (options.on_text) options.on_text(piece);
    };
    inner.on_reasoning = [&](std::string_view piece) {
      events.push_back({{"reasoning", std::string(piece)}});
      if (options.on_reasoning) options.on_reasoning(piece);
    };
    inner.on_retry = [&](int attempt, const Status& why, int64_t delay_ms) {
      json retry = cassette_retry_json(attempt, why, delay_ms);
      events.push_back({{"retry", std::move(retry)}});
      if (options.on_retry) options.on_retry(attempt, why, delay_ms);
    };
    json line = json::object();
    line["request"] = detail::cassette_request_json(request, options.stream);
    Result<ModelReply> reply = inner_->complete(request, inner);
    line["events"] = std::move(events);
    if (reply.ok()) {
      line["reply"] = detail::cassette_reply_json(*reply);
    } else {
      line["error"] = detail::cassette_status_json(reply.status());
    }
    write_line(line);
    return reply;
  }

  std::string describe() const override { return inner_->describe(); }

 private:
  static json cassette_retry_json(int attempt, const Status& why, int64_t delay_ms) {
    json j = detail::cassette_status_json(why);
    j["attempt"] = attempt;
    j["delay_ms"] = delay_ms;
    return j;
  }

  // One line, flushed at once: a crash later keeps every completed exchange.
  void write_line(const json& j) {
    std::string text = j.dump(-1, ' ', false, json::error_handler_t::replace);
    text.push_back('\n');
    std::fwrite(text.data(), 1, text.size(), file_);
    std::fflush(file_);
  }

  std::mutex mutex_;
  std::unique_ptr<LlmClient> inner_;
  std::FILE* file_;
};

}  // namespace

Result<std::unique_ptr<LlmClient>> make_recording_client(std::unique_ptr<LlmClient> inner, const std::string& path) {
  if (!inner) return Status::InvalidArgument("make_recording_client: no backend to record");
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr) {
    std::string m = "cannot write the cassette '";
    m.append(path).append("': ").append(std::strerror(errno)).append("; check that its folder exists and is writable");
    return Status::Unavailable(std::move(m));
  }
  return std::unique_ptr<LlmClient>(new RecordingClient(std::move(inner), file));
}

}  // namespace keel
