// A tools/call of the 2026-07-28 revision; see stateless_call.hpp.
#include "mcp_server/stateless_call.hpp"

#include <array>

#include "base/clock.hpp"
#include "mcp_server/request_meta.hpp"

namespace keel::mcp {

using nlohmann::json;

namespace {

constexpr std::array<std::string_view, 8> kMcpLogLevels = {"debug", "info",     "notice", "warning",
                                                           "error", "critical", "alert",  "emergency"};

}  // namespace

std::string mcp_capability_for(const std::string& method) {
  if (method == "sampling/createMessage") return "sampling";
  if (method == "elicitation/create") return "elicitation";
  if (method == "roots/list") return "roots";
  return "";
}

int mcp_log_level_rank(std::string_view level) {
  for (size_t i = 0; i < kMcpLogLevels.size(); ++i) {
    if (kMcpLogLevels[i] == level) return static_cast<int>(i);
  }
  return -1;
}

StatelessCall::StatelessCall(const MessageHandler::Notify& notify, const json& meta, const json& params,
                             std::string binding, const RequestStateSeal& seal, std::stop_token cancelled)
    : notify_(notify),
      binding_(std::move(binding)),
      seal_(seal),
      on_cancelled_(std::move(cancelled), std::function<void()>([this] { stop_.request_stop(); })) {
  capabilities_ = meta.value(kMetaClientCapabilities, json::object());
  if (auto t = meta.find("progressToken"); t != meta.end() && (t->is_string() || t->is_number_integer())) {
    progress_token_ = *t;
  }
  if (auto level = meta.find(kMetaLogLevel); level != meta.end() && level->is_string()) {
    log_rank_ = mcp_log_level_rank(level->get<std::string>());
  }
  if (params.is_object()) {
    if (auto r = params.find("inputResponses"); r != params.end() && r->is_object()) input_responses_ = *r;
    if (auto s = params.find("requestState"); s != params.end() && s->is_string()) request_state_ = s->get<std::string>();
  }
  state_verified_ = !request_state_.empty() && seal_.verify(request_state_, binding_, keel::detail::wall_now_ms());
}

void StatelessCall::progress(double progress, std::optional<double> total, const std::string& message) {
  if (progress_token_.is_null()) return;
  json params = {{"progressToken", progress_token_}, {"progress", progress}};
  if (total) params["total"] = *total;
  if (!message.empty()) params["message"] = message;
  notify_({{"jsonrpc", "2.0"}, {"method", "notifications/progress"}, {"params", std::move(params)}});
}

void StatelessCall::log(std::string_view level, const json& data) {
  const int rank = mcp_log_level_rank(level);
  if (log_rank_ < 0 || rank < log_rank_) return;
  notify_({{"jsonrpc", "2.0"},
           {"method", "notifications/message"},
           {"params", {{"level", std::string(level)}, {"logger", "keel"}, {"data", data}}}});
}

Result<json> StatelessCall::ask_client(const std::string& method, const json& params, std::chrono::milliseconds timeout) {
  (void)timeout;  // the client answers on its retry, not while this call waits
  const std::string capability = mcp_capability_for(method);
  if (!capability.empty() && !capabilities_.contains(capability)) {
    return Status::FailedPrecondition("the MCP client did not declare the " + capability +
                                      " capability in its request, so keel cannot ask it " + method);
  }
  const std::string key = "keel_input_" + std::to_string(++asks_);
  if (state_verified_ && input_responses_.is_object()) {
    if (auto answer = input_responses_.find(key); answer != input_responses_.end() && answer->is_object()) {
      return *answer;
    }
  }
  pending_[key] = {{"method", method}, {"params", params}};
  return Status::Unavailable("keel asked the MCP client for input (" + method +
                             "); the client answers by calling again with inputResponses");
}

void StatelessCall::reject(int code, const std::string& message, json data) {
  json error = {{"code", code}, {"message", message}};
  if (!data.is_null()) error["data"] = std::move(data);
  rejection_ = std::move(error);
}

json StatelessCall::input_required_result(int64_t expires_ms) const {
  json requests = json::object();
  for (const auto& [key, request] : pending_) requests[key] = request;
  return {{"resultType", "input_required"},
          {"inputRequests", std::move(requests)},
          {"requestState", seal_.seal(binding_, expires_ms)}};
}

}  // namespace keel::mcp
