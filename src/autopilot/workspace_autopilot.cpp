// Building a workspace's autopilot (workspace_autopilot.hpp).
#include "autopilot/workspace_autopilot.hpp"

#include <algorithm>
#include <mutex>

#include "assembly/mcp_setup.hpp"
#include "assembly/otlp_exporter.hpp"
#include "autopilot/workspace_work.hpp"
#include "keel/mcp.hpp"

namespace keel::autopilot {
namespace {

// Reads resources through the workspace's MCP servers, connecting them at the first read.
class McpResources {
 public:
  McpResources(const KeelConfig& config, const std::string& workspace, Store* store)
      : hub_(assembly::make_mcp_hub(config, workspace, store)) {}

  Result<std::string> read(const std::string& server, const std::string& uri, std::stop_token stop) {
    std::lock_guard lock(mu_);
    if (!connected_) {
      hub_->connect_all();
      connected_ = true;
    }
    KEEL_ASSIGN_OR_RETURN(McpClient * client, hub_->client(server));
    KEEL_ASSIGN_OR_RETURN(nlohmann::json result, client->read_resource(uri, stop));
    std::string text;
    if (result.contains("contents") && result["contents"].is_array()) {
      for (const nlohmann::json& c : result["contents"]) {
        if (c.contains("text") && c["text"].is_string()) text.append(c["text"].get<std::string>());
        else if (c.contains("blob") && c["blob"].is_string()) text.append(c["blob"].get<std::string>());
      }
    }
    return text;
  }

 private:
  std::mutex mu_;
  std::unique_ptr<McpHub> hub_;
  bool connected_ = false;
};

}  // namespace

Result<std::unique_ptr<Autopilot>> make_workspace_autopilot(const KeelConfig& config, const std::string& workspace,
                                                            Store* store,
                                                            std::function<void(const AutopilotEvent&)> on_event) {
  if (!config.autopilot.configured) {
    return Status::FailedPrecondition("no autopilot is configured for " + workspace +
                                      ": add an autopilot section (sources and triggers) to its keel.yaml");
  }
  AutopilotOptions o;
  o.config = config.autopilot;
  o.workspace = workspace;
  o.store = store;
  o.work = make_workspace_work(workspace, store);
  o.on_event = std::move(on_event);
  const bool wants_mcp = std::any_of(o.config.sources.begin(), o.config.sources.end(),
                                     [](const AutopilotSourceConfig& s) { return s.kind == "mcp" && s.error.empty(); });
  if (wants_mcp) {
    auto resources = std::make_shared<McpResources>(config, workspace, store);
    o.mcp_reader = [resources](const std::string& server, const std::string& uri, int64_t, std::stop_token stop) {
      return resources->read(server, uri, stop);
    };
  }
  if (std::shared_ptr<assembly::OtlpExporter> exporter = assembly::process_otlp_exporter()) {
    o.export_spans = [exporter](std::vector<SpanRecord> spans) { exporter->submit(std::move(spans)); };
  }
  Result<std::unique_ptr<Autopilot>> pilot = Autopilot::create(std::move(o));
  if (!pilot.ok()) return Status::FailedPrecondition(pilot.status().message() + " (" + config.autopilot.source_file + ")");
  return pilot;
}

}  // namespace keel::autopilot
