// The source factory, the source that only reports its error, and the mcp source (an MCP
// resource whose content changes; each new content is an observation).
#include "autopilot/observation_source.hpp"
#include "llm/sha256.hpp"

namespace keel::detail {
namespace {

constexpr int64_t kMcpDefaultEveryMs = 5000;
constexpr int64_t kMcpSafetyReadMs = 60000;  // a subscribed resource is read at least this often

class FailedSource final : public ObservationSource {
 public:
  FailedSource(const AutopilotSourceConfig& config, std::string error)
      : ObservationSource(config), error_(std::move(error)), clock_(30000) {}
  bool due(int64_t now_ms) const override { return clock_.due(now_ms); }
  Result<std::vector<Finding>> poll(int64_t now_ms, std::stop_token) override {
    clock_.polled(now_ms);
    return Status::InvalidArgument(error_);
  }

 private:
  std::string error_;
  PollClock clock_;
};

class McpSource final : public ObservationSource {
 public:
  McpSource(const AutopilotSourceConfig& config, std::shared_ptr<McpResourceWatch> watch)
      : ObservationSource(config), watch_(std::move(watch)),
        clock_(config.every_ms > 0 ? config.every_ms : kMcpDefaultEveryMs) {}

  // Subscribed: every cycle looks for a notification (cheap); else the poll interval.
  bool due(int64_t now_ms) const override { return subscribed_ || clock_.due(now_ms); }
  int wake_fd() const override { return subscribed_ ? watch_->wake_fd() : -1; }

  Result<std::vector<Finding>> poll(int64_t now_ms, std::stop_token stop) override {
    const std::string& server = config().server;
    const std::string& uri = config().uri;
    if (subscribed_ && !watch_->take_update(server, uri) && now_ms - last_read_ms_ < kMcpSafetyReadMs) {
      return std::vector<Finding>{};
    }
    clock_.polled(now_ms);
    last_read_ms_ = now_ms;
    KEEL_ASSIGN_OR_RETURN(std::string text, watch_->read(server, uri, config().timeout_ms, stop));
    if (!tried_subscribe_) {
      tried_subscribe_ = true;
      subscribed_ = watch_->subscribe(server, uri, stop);
    }
    Finding f;
    f.fingerprint = "mcp:" + sha256_hex(text);
    f.kind = "mcp";
    f.subject = server + " " + uri;
    f.payload = {{"server", server}, {"uri", uri}, {"text", text.substr(0, 64 * 1024)}};
    return std::vector<Finding>{std::move(f)};
  }

 private:
  std::shared_ptr<McpResourceWatch> watch_;
  PollClock clock_;
  bool tried_subscribe_ = false;
  bool subscribed_ = false;
  int64_t last_read_ms_ = 0;
};

}  // namespace

std::unique_ptr<ObservationSource> make_failed_source(const AutopilotSourceConfig& config, std::string error) {
  return std::make_unique<FailedSource>(config, std::move(error));
}

std::unique_ptr<ObservationSource> make_mcp_source(const AutopilotSourceConfig& config, const SourceEnv& env) {
  if (!env.mcp_resources) return make_failed_source(config, "mcp sources cannot run here: no MCP servers are connected");
  return std::make_unique<McpSource>(config, env.mcp_resources);
}

std::unique_ptr<ObservationSource> make_observation_source(const AutopilotSourceConfig& config, const SourceEnv& env) {
  if (!config.error.empty()) return make_failed_source(config, config.error);
  if (config.kind == "files") return make_file_source(config, env);
  if (config.kind == "schedule") return make_schedule_source(config);
  if (config.kind == "http") return make_http_source(config);
  if (config.kind == "git") return make_git_source(config, env);
  if (config.kind == "mcp") return make_mcp_source(config, env);
  return make_failed_source(config, "unknown source kind '" + config.kind + "'");
}

}  // namespace keel::detail
