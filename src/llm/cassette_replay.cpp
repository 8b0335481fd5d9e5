// The replaying side of keel/cassette.hpp: answers each call from the next recorded exchange after
// checking that the run asked exactly what was recorded. No network, no waiting.
#include <fstream>
#include <optional>
#include <mutex>
#include <nlohmann/json.hpp>
#include <utility>
#include <vector>

#include "keel/cassette.hpp"
#include "llm/cassette_json.hpp"

namespace keel {
namespace {

using nlohmann::json;

// One streamed piece or retry notice, in the order the backend produced them.
struct ReplayEvent {
  enum class Kind { kText, kReasoning, kRetry } kind = Kind::kText;
  std::string text;
  int attempt = 0;
  Status why;
  int64_t delay_ms = 0;
};

struct ReplayExchange {
  json request;
  std::vector<ReplayEvent> events;
  std::optional<ModelReply> reply;
  Status error;
};

Status replay_line_error(const std::string& where, const std::string& what) {
  std::string m = where;
  m.append(": ").append(what);
  return Status::InvalidArgument(std::move(m));
}

Result<std::vector<ReplayEvent>> replay_events(const json& line, const std::string& where) {
  std::vector<ReplayEvent> out;
  auto it = line.find("events");
  if (it == line.end()) return out;
  if (!it->is_array()) return replay_line_error(where, "\"events\" must be a list");
  for (const json& e : *it) {
    ReplayEvent ev;
    if (e.is_object() && e.contains("text") && e["text"].is_string()) {
      ev.kind = ReplayEvent::Kind::kText;
      ev.text = e["text"].get<std::string>();
    } else if (e.is_object() && e.contains("reasoning") && e["reasoning"].is_string()) {
      ev.kind = ReplayEvent::Kind::kReasoning;
      ev.text = e["reasoning"].get<std::string>();
    } else if (e.is_object() && e.contains("retry") && e["retry"].is_object()) {
      ev.kind = ReplayEvent::Kind::kRetry;
      KEEL_TRY(detail::cassette_status_from_json(e["retry"], where, ev.why));
      const json& r = e["retry"];
      ev.attempt = r.contains("attempt") && r["attempt"].is_number_integer() ? r["attempt"].get<int>() : 0;
      ev.delay_ms = r.contains("delay_ms") && r["delay_ms"].is_number_integer() ? r["delay_ms"].get<int64_t>() : 0;
    } else {
      return replay_line_error(where, "an event must be {\"text\":...}, {\"reasoning\":...} or {\"retry\":{...}}");
    }
    out.push_back(std::move(ev));
  }
  return out;
}

class ReplayClient final : public LlmClient {
 public:
  ReplayClient(std::string path, std::string backend, std::vector<ReplayExchange> exchanges)
      : path_(std::move(path)), backend_(std::move(backend)), exchanges_(std::move(exchanges)) {}

  Result<ModelReply> complete(const ModelRequest& request, const CallOptions& options) override {
    std::lock_guard<std::mutex> lock(mutex_);
    if (options.stop.stop_requested()) return Status::Cancelled("the model call was cancelled");
    const size_t number = next_ + 1;
    if (next_ >= exchanges_.size()) {
      std::string m = "replay: the run made request ";
      m.append(std::to_string(number)).append(" but ").append(path_).append(" holds only ");
      m.append(std::to_string(exchanges_.size()));
      return Status::FailedPrecondition(std::move(m));
    }
    const ReplayExchange& ex = exchanges_[next_];
    json got = detail::cassette_request_json(request, options.stream);
    if (auto diff = detail::cassette_first_difference(ex.request, got)) {
      std::string m = "replay: request ";
      m.append(std::to_string(number)).append(" differs at ").append(*diff);
      return Status::FailedPrecondition(std::move(m));
    }
    ++next_;
    for (const ReplayEvent& e : ex.events) {
      switch (e.kind) {
        case ReplayEvent::Kind::kText:
          if (options.on_text) options.on_text(e.text);
          break;
        case ReplayEvent::Kind::kReasoning:
          if (options.on_reasoning) options.on_reasoning(e.text);
          break;
        case ReplayEvent::Kind::kRetry:
          if (options.on_retry) options.on_retry(e.attempt, e.why, e.delay_ms);
          break;
      }
    }
    if (ex.reply) return *ex.reply;
    return ex.error;
  }

  // The recorded backend's own description, so that a replayed run's events match the original's.
  std::string describe() const override { return backend_; }

 private:
  std::mutex mutex_;
  std::string path_;
  std::string backend_;
  std::vector<ReplayExchange> exchanges_;
  size_t next_ = 0;
};

}  // namespace

Result<std::unique_ptr<LlmClient>> make_replay_client(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::string m = "cannot read the cassette '";
    m.append(path).append("'; record one with --record FILE");
    return Status::InvalidArgument(std::move(m));
  }
  std::string backend;
  std::vector<ReplayExchange> exchanges;
  std::string text;
  size_t line_no = 0;
  bool header = false;
  while (std::getline(in, text)) {
    ++line_no;
    std::string where = path;
    where.append(":").append(std::to_string(line_no));
    if (text.find_first_not_of(" \t\r") == std::string::npos) continue;
    json line = json::parse(text, nullptr, false);
    if (line.is_discarded() || !line.is_object()) return replay_line_error(where, "not a JSON object");
    if (!header) {
      if (!line.contains("cassette") || line["cassette"] != 1) {
        return replay_line_error(where, "not a keel cassette: the first line must be {\"cassette\":1,...}");
      }
      if (line.contains("backend") && line["backend"].is_string()) backend = line["backend"].get<std::string>();
      header = true;
      continue;
    }
    ReplayExchange ex;
    auto req = line.find("request");
    if (req == line.end() || !req->is_object()) return replay_line_error(where, "missing the \"request\" object");
    ex.request = *req;
    KEEL_ASSIGN_OR_RETURN(ex.events, replay_events(line, where));
    if (auto r = line.find("reply"); r != line.end()) {
      KEEL_ASSIGN_OR_RETURN(ModelReply reply, detail::cassette_reply_from_json(*r, where));
      ex.reply = std::move(reply);
    } else if (auto e = line.find("error"); e != line.end()) {
      KEEL_TRY(detail::cassette_status_from_json(*e, where, ex.error));
    } else {
      return replay_line_error(where, "has neither \"reply\" nor \"error\"");
    }
    exchanges.push_back(std::move(ex));
  }
  if (!header) {
    std::string m = path;
    m.append(": empty file, not a keel cassette");
    return Status::InvalidArgument(std::move(m));
  }
  return std::unique_ptr<LlmClient>(new ReplayClient(path, std::move(backend), std::move(exchanges)));
}

}  // namespace keel
