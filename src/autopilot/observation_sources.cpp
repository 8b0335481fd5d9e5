// The source factory, the source that only reports its error, and the mcp source (an MCP
// resource whose content changes; each new content is an observation).
#include "autopilot/observation_source.hpp"
#include "llm/sha256.hpp"

namespace keel::detail {
namespace {

constexpr int64_t kMcpDefaultEveryMs = 5000;

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
  McpSource(const AutopilotSourceConfig& config, McpResourceReader reader)
      : ObservationSource(config), reader_(std::move(reader)),
        clock_(config.every_ms > 0 ? config.every_ms : kMcpDefaultEveryMs) {}
  bool due(int64_t now_ms) const override { return clock_.due(now_ms); }
  Result<std::vector<Finding>> poll(int64_t now_ms, std::stop_token stop) override {
    clock_.polled(now_ms);
    KEEL_ASSIGN_OR_RETURN(std::string text, reader_(config().server, config().uri, config().timeout_ms, stop));
    Finding f;
    f.fingerprint = "mcp:" + sha256_hex(text);
    f.kind = "mcp";
    f.subject = config().server + " " + config().uri;
    f.payload = {{"server", config().server}, {"uri", config().uri}, {"text", text.substr(0, 64 * 1024)}};
    return std::vector<Finding>{std::move(f)};
  }

 private:
  McpResourceReader reader_;
  PollClock clock_;
};

}  // namespace

std::unique_ptr<ObservationSource> make_failed_source(const AutopilotSourceConfig& config, std::string error) {
  return std::make_unique<FailedSource>(config, std::move(error));
}

std::unique_ptr<ObservationSource> make_mcp_source(const AutopilotSourceConfig& config, const SourceEnv& env) {
  if (!env.mcp_reader) return make_failed_source(config, "mcp sources cannot run here: no MCP servers are connected");
  return std::make_unique<McpSource>(config, env.mcp_reader);
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
