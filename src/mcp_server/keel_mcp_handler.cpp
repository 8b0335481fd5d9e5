// KeelMcpServer: initialize, ping, logging/setLevel, tools/list and tools/call over keel's registry.
#include "mcp_server/keel_mcp_handler.hpp"

#include <map>
#include <mutex>
#include <set>

#include "keel/tool_executor.hpp"
#include "mcp/client_connect.hpp"

#ifndef KEEL_VERSION
#define KEEL_VERSION "0"
#endif

namespace keel::mcp {

using nlohmann::json;

namespace {

constexpr const char* kRunAgent = "run_agent";

json error_response(const json& id, int code, const std::string& message) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}};
}

json result_response(const json& id, json result) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}};
}

json text_result(const std::string& text, bool is_error) {
  return {{"content", json::array({{{"type", "text"}, {"text", text}}})}, {"isError", is_error}};
}

json tool_json(const ToolSpec& spec) {
  json schema = json::parse(spec.parameters_schema, nullptr, false);
  if (!schema.is_object()) schema = {{"type", "object"}};
  json annotations = {{"readOnlyHint", spec.read_only}, {"destructiveHint", spec.risk == Risk::kHigh}};
  return {{"name", spec.name}, {"description", spec.description}, {"inputSchema", std::move(schema)},
          {"annotations", std::move(annotations)}};
}

ToolSpec run_agent_spec() {
  ToolTraits traits;
  traits.risk = Risk::kMedium;  // every call the agent makes passes the policy itself
  traits.timeout_ms = 3600000;
  return make_tool_spec(kRunAgent,
                        "Run a keel agent on a task: it works with keel's tools under the same approval policy and "
                        "returns its final answer.",
                        R"({"type":"object","properties":{"task":{"type":"string","description":"What the agent should do"},)"
                        R"("max_rounds":{"type":"integer","minimum":1,"maximum":100,"description":"Model calls before it must answer"}},)"
                        R"("required":["task"],"additionalProperties":false})",
                        traits);
}

}  // namespace

class KeelMcpServer::Impl {
 public:
  explicit Impl(KeelMcpServerOptions options) : options_(std::move(options)) {
    ToolExecutorOptions eo;
    eo.workspace_root = options_.workspace_root;
    eo.redactor = options_.redactor;
    executor_ = std::make_unique<ToolExecutor>(*options_.tools, eo);
    tools_ = json::array();
    for (const ToolSpec& spec : options_.tools->specs()) tools_.push_back(tool_json(spec));
    if (options_.run_agent) tools_.push_back(tool_json(run_agent_spec()));
  }

  json initialize(const json& params) const {
    std::string asked = params.is_object() ? params.value("protocolVersion", "") : "";
    std::string version = supported_protocol_version(asked) ? asked : kProtocolVersions[0];
    json result = {{"protocolVersion", version},
                   {"capabilities", {{"tools", {{"listChanged", false}}}, {"logging", json::object()}}},
                   {"serverInfo", {{"name", "keel"}, {"version", KEEL_VERSION}}}};
    if (!options_.instructions.empty()) result["instructions"] = options_.instructions;
    return result;
  }

  const json& tools() const { return tools_; }

  // The tools/call result, or a JSON-RPC error {code, message} for an unknown tool.
  json call(const std::string& name, const json& arguments, std::stop_token stop, bool& unknown) {
    unknown = false;
    bool is_agent = options_.run_agent && name == kRunAgent;
    const Tool* tool = is_agent ? nullptr : options_.tools->find(name);
    if (!is_agent && tool == nullptr) {
      unknown = true;
      return {};
    }
    ToolSpec spec = is_agent ? run_agent_spec() : tool->spec();
    ToolCall call;
    call.id = "mcp_" + std::to_string(++calls_);
    call.name = name;
    call.arguments = arguments.dump();
    if (std::string refusal = refused(call, spec); !refusal.empty()) {
      log(refusal);
      return text_result(refusal, true);
    }
    if (is_agent) return run_agent(arguments, stop);
    std::vector<ToolResult> results;
    {
      std::lock_guard<std::mutex> lock(exec_mu_);
      results = executor_->run_batch(std::span<const ToolCall>(&call, 1), {}, stop);
    }
    const ToolResult& r = results.front();
    log(name + " " + std::string(tool_status_name(r.status)) + " in " + std::to_string(r.duration_ms) + " ms");
    return text_result(r.content, !r.ok());
  }

 private:
  // Why the policy refuses `call`, or empty when it may run. Nobody can be asked here.
  std::string refused(const ToolCall& call, const ToolSpec& spec) const {
    if (!options_.gate) {
      if (spec.risk != Risk::kHigh) return {};
      return "keel refused " + call.name + ": it is a high-risk tool and this MCP server cannot ask anyone to approve "
             "it (allow it in keel.yaml approvals)";
    }
    GateVerdict v = options_.gate->check(call, call.arguments, spec);
    if (v.kind == GateVerdict::Kind::kAllow) return {};
    if (v.kind == GateVerdict::Kind::kDeny) return "keel refused " + call.name + ": " + v.reason;
    std::string out = "keel refused " + call.name + ": it needs approval";
    if (!v.reason.empty()) out += " (" + v.reason + ")";
    return out + ", and this MCP server cannot ask anyone; allow it in keel.yaml approvals (mode auto or an "
                 "allow pattern) or with `keel approvals add`";
  }

  json run_agent(const json& arguments, std::stop_token stop) {
    std::string task = arguments.value("task", "");
    if (task.empty()) return text_result("run_agent needs a non-empty \"task\"", true);
    std::optional<int> rounds;
    if (auto r = arguments.find("max_rounds"); r != arguments.end() && r->is_number_integer()) {
      rounds = r->get<int>();
      if (*rounds < 1 || *rounds > 100) return text_result("run_agent: max_rounds must be from 1 to 100", true);
    }
    Result<std::string> answer = options_.run_agent(task, rounds, stop);
    log(std::string("run_agent ") + (answer.ok() ? "answered" : "failed: " + answer.status().message()));
    if (!answer.ok()) return text_result("the agent failed: " + answer.status().message(), true);
    return text_result(*answer, false);
  }

  void log(const std::string& line) const {
    if (options_.on_log) options_.on_log(line);
  }

  KeelMcpServerOptions options_;
  std::unique_ptr<ToolExecutor> executor_;
  std::mutex exec_mu_;
  json tools_;
  std::atomic<uint64_t> calls_{0};
};

namespace {

const std::set<std::string>& log_levels() {
  static const std::set<std::string> levels = {"debug",    "info",  "notice", "warning",
                                               "error",    "critical", "alert", "emergency"};
  return levels;
}

// One MCP session: its in-flight requests (for notifications/cancelled) and logging level.
class KeelSession final : public MessageHandler {
 public:
  explicit KeelSession(KeelMcpServer::Impl& server) : server_(server) {}

  std::optional<json> handle(const json& message, const Notify& notify) override {
    (void)notify;
    try {
      return dispatch(message);
    } catch (const std::exception& e) {
      json id = message.is_object() && message.contains("id") ? message["id"] : json();
      return error_response(id, -32603, std::string("internal error: ") + e.what());
    }
  }

 private:
  std::optional<json> dispatch(const json& message) {
    if (!message.is_object()) return error_response(nullptr, -32600, "a message must be a JSON object");
    auto method_it = message.find("method");
    bool has_id = message.contains("id");
    json id = has_id ? message["id"] : json();
    if (method_it == message.end()) return std::nullopt;  // a response to a request keel never sends
    if (!method_it->is_string()) return has_id ? std::optional<json>(error_response(id, -32600, "method must be a string")) : std::nullopt;
    const std::string method = method_it->get<std::string>();
    json params = message.value("params", json::object());
    if (!has_id) {
      if (method == "notifications/cancelled" && params.is_object() && params.contains("requestId")) {
        std::lock_guard<std::mutex> lock(mu_);
        auto it = in_flight_.find(params["requestId"].dump());
        if (it != in_flight_.end()) it->second.request_stop();
      }
      return std::nullopt;
    }
    if (method == "initialize") return result_response(id, server_.initialize(params));
    if (method == "ping") return result_response(id, json::object());
    if (method == "tools/list") return result_response(id, {{"tools", server_.tools()}});
    if (method == "logging/setLevel") {
      std::string level = params.is_object() ? params.value("level", "") : "";
      if (!log_levels().count(level)) return error_response(id, -32602, "unknown logging level \"" + level + "\"");
      return result_response(id, json::object());
    }
    if (method == "tools/call") return call_tool(id, params);
    return error_response(id, -32601, "method not found: " + method);
  }

  json call_tool(const json& id, const json& params) {
    if (!params.is_object() || !params.contains("name") || !params["name"].is_string()) {
      return error_response(id, -32602, "tools/call needs params.name (a string)");
    }
    json arguments = params.value("arguments", json::object());
    if (!arguments.is_object()) return error_response(id, -32602, "tools/call params.arguments must be an object");
    std::stop_source stop;
    const std::string key = id.dump();
    {
      std::lock_guard<std::mutex> lock(mu_);
      in_flight_[key] = stop;
    }
    bool unknown = false;
    std::string name = params["name"].get<std::string>();
    json result = server_.call(name, arguments, stop.get_token(), unknown);
    {
      std::lock_guard<std::mutex> lock(mu_);
      in_flight_.erase(key);
    }
    if (unknown) return error_response(id, -32602, "unknown tool: " + name);
    return result_response(id, std::move(result));
  }

  KeelMcpServer::Impl& server_;
  std::mutex mu_;
  std::map<std::string, std::stop_source> in_flight_;
};

}  // namespace

KeelMcpServer::KeelMcpServer(KeelMcpServerOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {}
KeelMcpServer::~KeelMcpServer() = default;

std::unique_ptr<MessageHandler> KeelMcpServer::new_session() { return std::make_unique<KeelSession>(*impl_); }

}  // namespace keel::mcp
