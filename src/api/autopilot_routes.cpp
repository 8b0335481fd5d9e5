// GET /api/autopilot: the workspace autopilot's last status document, its observations by state
// and the newest observations, read from the store (so it shows an autopilot running in this
// server or in a `keel autopilot run` of the same workspace).
#include "api/api_routes.hpp"
#include "autopilot/autopilot_report.hpp"
#include "keel/autopilot.hpp"

namespace keel::api {
namespace {

using server::HttpRequest;
using server::HttpResponder;

constexpr int kListed = 50;

void autopilot(const std::shared_ptr<ApiContext>& ctx, const HttpRequest& req, HttpResponder& out) {
  if (!ctx->autopilot) return reply_json(*ctx, req, out, 200, nlohmann::json{{"enabled", false}});
  const std::string& workspace = ctx->runs.workspace();
  Result<std::optional<std::string>> doc = ctx->store.get_daemon_status(workspace, kAutopilotStatusName);
  if (!doc.ok()) return reply_status(*ctx, req, out, doc.status());
  Result<std::vector<std::pair<ObservationState, int64_t>>> counts = ctx->store.count_observations(workspace);
  if (!counts.ok()) return reply_status(*ctx, req, out, counts.status());
  ObservationQuery q;
  q.limit = kListed;
  Result<std::vector<Observation>> newest = ctx->store.list_observations(workspace, q);
  if (!newest.ok()) return reply_status(*ctx, req, out, newest.status());
  nlohmann::json status = doc->has_value() ? nlohmann::json::parse(**doc, nullptr, false) : nlohmann::json(nullptr);
  if (status.is_discarded()) status = nullptr;
  nlohmann::json list = nlohmann::json::array();
  for (const Observation& o : *newest) list.push_back(detail::observation_json(o, false));
  reply_json(*ctx, req, out, 200,
             nlohmann::json{{"enabled", true}, {"status", status}, {"counts", detail::observation_counts_json(*counts)}, {"observations", list}});
}

}  // namespace

void mount_autopilot_routes(server::HttpServer& http, std::shared_ptr<ApiContext> ctx) {
  http.route("GET", "/api/autopilot", [ctx](const HttpRequest& req, std::shared_ptr<HttpResponder> out) {
    autopilot(ctx, req, *out);
  });
}

}  // namespace keel::api
