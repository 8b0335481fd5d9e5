// Building a workspace's autopilot (workspace_autopilot.hpp).
#include "autopilot/workspace_autopilot.hpp"

#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <mutex>
#include <set>

#include "assembly/mcp_setup.hpp"
#include "assembly/otlp_exporter.hpp"
#include "autopilot/workspace_work.hpp"
#include "keel/mcp.hpp"

namespace keel::autopilot {
namespace {

// Notifications of changed resources, shared with the MCP clients' reader threads.
struct ResourceUpdates {
  std::mutex mu;
  std::set<std::string> changed;  // "server\nuri"
  int fd = -1;                    // eventfd, written on each update

  static std::string key(std::string_view server, const std::string& uri) {
    return std::string(server) + "\n" + uri;
  }
  void arrived(std::string_view server, const std::string& uri) {
    {
      std::lock_guard lock(mu);
      changed.insert(key(server, uri));
    }
    const uint64_t one = 1;
    if (fd >= 0) (void)!::write(fd, &one, sizeof one);
  }
};

// The workspace's MCP servers as the autopilot's mcp sources see them: connected at the first
// read, subscriptions taken where a server offers them.
class HubResources final : public McpResourceWatch {
 public:
  HubResources(const KeelConfig& config, const std::string& workspace, Store* store)
      : updates_(std::make_shared<ResourceUpdates>()) {
    updates_->fd = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    hub_ = assembly::make_mcp_hub(config, workspace, store, {},
                                  [u = updates_](std::string_view server, const std::string& uri) { u->arrived(server, uri); });
  }
  ~HubResources() override {
    hub_.reset();  // no reader thread calls back after this
    if (updates_->fd >= 0) ::close(updates_->fd);
  }

  Result<std::string> read(const std::string& server, const std::string& uri, int64_t, std::stop_token stop) override {
    KEEL_ASSIGN_OR_RETURN(McpClient * client, connected(server));
    KEEL_ASSIGN_OR_RETURN(nlohmann::json result, client->read_resource(uri, stop));
    std::string text;
    if (result.contains("contents") && result["contents"].is_array()) {
      for (const nlohmann::json& c : result["contents"]) {
        if (c.contains("text") && c["text"].is_string()) {
          text.append(c["text"].get<std::string>());
        } else if (c.contains("blob") && c["blob"].is_string()) {
          text.append(c["blob"].get<std::string>());
        }
      }
    }
    return text;
  }

  bool subscribe(const std::string& server, const std::string& uri, std::stop_token stop) override {
    Result<McpClient*> client = connected(server);
    if (!client.ok()) return false;
    const nlohmann::json& caps = (*client)->server_capabilities();
    const bool offered = caps.is_object() && caps.contains("resources") && caps["resources"].is_object() &&
                         caps["resources"].value("subscribe", false);
    return offered && (*client)->request("resources/subscribe", {{"uri", uri}}, stop).ok();
  }

  bool take_update(const std::string& server, const std::string& uri) override {
    uint64_t drained = 0;
    if (updates_->fd >= 0) (void)!::read(updates_->fd, &drained, sizeof drained);
    std::lock_guard lock(updates_->mu);
    return updates_->changed.erase(ResourceUpdates::key(server, uri)) > 0;
  }

  int wake_fd() const override { return updates_->fd; }

 private:
  Result<McpClient*> connected(const std::string& server) {
    std::lock_guard lock(mu_);
    if (!connected_) {
      hub_->connect_all();
      connected_ = true;
    }
    return hub_->client(server);
  }

  std::shared_ptr<ResourceUpdates> updates_;
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
  o.work = make_workspace_work(workspace, store, config.autopilot);
  o.on_event = std::move(on_event);
  const bool wants_mcp = std::any_of(o.config.sources.begin(), o.config.sources.end(),
                                     [](const AutopilotSourceConfig& s) { return s.kind == "mcp" && s.error.empty(); });
  if (wants_mcp) {
    o.mcp_resources = std::make_shared<HubResources>(config, workspace, store);
  }
  if (std::shared_ptr<assembly::OtlpExporter> exporter = assembly::process_otlp_exporter()) {
    o.export_spans = [exporter](std::vector<SpanRecord> spans) { exporter->submit(std::move(spans)); };
  }
  Result<std::unique_ptr<Autopilot>> pilot = Autopilot::create(std::move(o));
  if (!pilot.ok()) return Status::FailedPrecondition(pilot.status().message() + " (" + config.autopilot.source_file + ")");
  return pilot;
}

}  // namespace keel::autopilot
