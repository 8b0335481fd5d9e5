// KeelMcpServer: the server-wide half of keel's MCP server (initialize's answer, the tool list,
// running a call under the policy, the catalogs and the resource watch); keel_mcp_session.cpp
// holds the per-session half.
#include "mcp_server/keel_mcp_handler.hpp"

#include <atomic>
#include <map>
#include <mutex>
#include <set>

#include "keel/tool_executor.hpp"
#include "tools/schema_validator.hpp"
#include "mcp/client_connect.hpp"
#include "mcp_server/catalog_methods.hpp"
#include "mcp_server/keel_mcp_session.hpp"
#include "mcp_server/request_meta.hpp"

#ifndef KEEL_VERSION
#define KEEL_VERSION "0"
#endif

namespace keel::mcp {

using nlohmann::json;

namespace {

constexpr const char* kRunAgent = "run_agent";

json text_result(const std::string& text, bool is_error) {
  return {{"content", json::array({{{"type", "text"}, {"text", text}}})}, {"isError", is_error}};
}

json tool_json(const ToolSpec& spec) {
  json schema = json::parse(spec.parameters_schema, nullptr, false);
  if (!schema.is_object()) schema = {{"type", "object"}};
  json annotations = {{"readOnlyHint", spec.read_only}, {"destructiveHint", spec.risk == Risk::kHigh}};
  json tool = {{"name", spec.name}, {"description", spec.description}, {"inputSchema", std::move(schema)},
               {"annotations", std::move(annotations)}};
  if (json output = json::parse(spec.output_schema, nullptr, false); output.is_object()) tool["outputSchema"] = std::move(output);
  return tool;
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

class KeelMcpServer::Impl final : public SessionHost {
 public:
  explicit Impl(KeelMcpServerOptions options)
      : options_(std::move(options)),
        watch_([this](const std::string& uri) { return catalog_resource_version(catalogs(), uri); },
               options_.watch_interval) {
    ToolExecutorOptions eo;
    eo.workspace_root = options_.workspace_root;
    eo.redactor = options_.redactor;
    executor_ = std::make_unique<ToolExecutor>(*options_.tools, eo);
    tools_ = json::array();
    std::set<std::string> names;
    for (const ToolSpec& spec : options_.tools->specs()) {
      tools_.push_back(tool_json(spec));
      names.insert(spec.name);
      if (spec.output_schema.empty()) continue;
      if (auto compiled = keel::detail::CompiledSchema::compile(spec.output_schema); compiled.ok()) {
        output_schemas_.emplace(spec.name, *compiled);
      }
    }
    if (options_.run_agent) {
      tools_.push_back(tool_json(run_agent_spec()));
      names.insert(kRunAgent);
    }
    for (ServerTool& tool : options_.server_tools) {
      std::string name = tool.definition.value("name", "");
      if (name.empty() || !tool.call || !names.insert(name).second) continue;
      tools_.push_back(tool.definition);
      server_tools_.emplace(name, &tool);
    }
  }

  json initialize_result(const json& params) const override {
    std::string asked = params.is_object() ? params.value("protocolVersion", "") : "";
    std::string version = is_handshake_protocol_version(asked) ? asked : kHandshakeProtocolVersions[0];
    json result = {{"protocolVersion", version}, {"capabilities", capabilities()}, {"serverInfo", server_info_}};
    if (!options_.instructions.empty()) result["instructions"] = options_.instructions;
    return result;
  }

  json discover_result() const override {
    json result = {{"supportedVersions", supported_protocol_versions()}, {"capabilities", capabilities()}};
    if (!options_.instructions.empty()) result["instructions"] = options_.instructions;
    return result;
  }

  const json& server_info() const override { return server_info_; }
  const RequestStateSeal& seal() const override { return seal_; }

  const json& tool_list() const override { return tools_; }
  Catalogs catalogs() const override { return options_.catalogs; }
  const SecretRedactor* redactor() const override { return options_.redactor.get(); }
  ResourceWatch& watch() override { return watch_; }

  std::optional<json> call_tool(const std::string& name, const json& arguments, CallContext& context) override {
    if (auto it = server_tools_.find(name); it != server_tools_.end()) {
      json result = it->second->call(arguments, context);
      log(name + (result.value("isError", false) ? " failed" : " answered"), context);
      return result;
    }
    bool is_agent = options_.run_agent && name == kRunAgent;
    const Tool* tool = is_agent ? nullptr : options_.tools->find(name);
    if (!is_agent && tool == nullptr) return std::nullopt;
    ToolSpec spec = is_agent ? run_agent_spec() : tool->spec();
    ToolCall call;
    call.id = "mcp_" + std::to_string(++calls_);
    call.name = name;
    call.arguments = arguments.dump();
    if (std::string refusal = refused(call, spec, context); !refusal.empty()) {
      log(refusal, context, "warning");
      return text_result(refusal, true);
    }
    context.progress(0, 1, "running " + name);
    json result = is_agent ? run_agent(arguments, context) : run_registry_tool(call, context);
    context.progress(1, 1, "");
    return result;
  }

 private:
  json capabilities() const {
    json capabilities = {{"tools", {{"listChanged", false}}}, {"logging", json::object()}};
    if (!options_.catalogs.empty()) {
      capabilities["resources"] = {{"subscribe", true}, {"listChanged", false}};
      capabilities["prompts"] = {{"listChanged", false}};
      capabilities["completions"] = json::object();
    }
    return capabilities;
  }

  json run_registry_tool(const ToolCall& call, CallContext& context) {
    std::vector<ToolResult> results;
    {
      std::lock_guard<std::mutex> lock(exec_mu_);
      results = executor_->run_batch(std::span<const ToolCall>(&call, 1), {}, context.stop());
    }
    const ToolResult& r = results.front();
    log(call.name + " " + std::string(tool_status_name(r.status)) + " in " + std::to_string(r.duration_ms) + " ms",
        context);
    json result = text_result(r.content, !r.ok());
    if (r.ok()) add_structured_content(call.name, r.content, result, context);
    return result;
  }

  // A tool with an output schema answers with one JSON object: it goes out as structuredContent
  // too (the text stays, for clients that read only content), once it is checked against the
  // schema the client was given. A result that does not match is sent as text alone and logged.
  void add_structured_content(const std::string& name, const std::string& text, json& result, CallContext& context) {
    auto schema = output_schemas_.find(name);
    if (schema == output_schemas_.end()) return;
    json value = json::parse(text, nullptr, false);
    if (!value.is_object()) {
      log(name + " answered text that is not the JSON object its output schema describes", context, "warning");
      return;
    }
    if (Status s = schema->second->validate(value, name); !s.ok()) {
      log(name + "'s result does not match its output schema: " + s.message(), context, "warning");
      return;
    }
    result["structuredContent"] = std::move(value);
  }

  // Why the policy refuses `call`, or empty when it may run. A call the policy would ask a person
  // about is asked of the client's user (elicitation) when the client can show the question;
  // otherwise it is refused, saying how to allow it.
  std::string refused(const ToolCall& call, const ToolSpec& spec, CallContext& context) const {
    std::string reason;
    if (!options_.gate) {
      if (spec.risk != Risk::kHigh) return {};
      reason = "it is a high-risk tool";
    } else {
      GateVerdict v = options_.gate->check(call, call.arguments, spec);
      if (v.kind == GateVerdict::Kind::kAllow) return {};
      if (v.kind == GateVerdict::Kind::kDeny) return "keel refused " + call.name + ": " + v.reason;
      reason = v.reason.empty() ? "the approval policy asks about it" : v.reason;
    }
    if (context.client_capabilities().contains("elicitation")) return ask_user(call, spec, reason, context);
    return "keel refused " + call.name + ": it needs approval (" + reason +
           "), and this MCP client cannot ask anyone (it declared no elicitation capability); allow it in keel.yaml "
           "approvals (mode auto or an allow pattern) or with `keel approvals add`";
  }

  // The approval question, as elicitation/create: empty when the user allowed the call.
  std::string ask_user(const ToolCall& call, const ToolSpec& spec, const std::string& reason,
                       CallContext& context) const {
    std::string message = "keel wants to run " + call.name + " (risk " + std::string(risk_name(spec.risk)) + ", " +
                          reason + ") with " + call.arguments + ". Allow it?";
    json schema = {{"type", "object"},
                   {"properties",
                    {{"allow", {{"type", "boolean"}, {"title", "Allow this call"}, {"default", false}}}}},
                   {"required", {"allow"}}};
    Result<json> answer =
        context.ask_client("elicitation/create", {{"message", message}, {"requestedSchema", std::move(schema)}},
                           options_.approval_timeout);
    const std::string refused = "keel refused " + call.name + ": it needs approval (" + reason + "), and ";
    if (!answer.ok()) return refused + "no approval came from the client: " + answer.status().message();
    const json content = answer->value("content", json::object());
    auto allow = content.is_object() ? content.find("allow") : content.end();
    bool allowed = answer->value("action", "") == "accept" && allow != content.end() && allow->is_boolean() &&
                   allow->get<bool>();
    if (allowed) {
      if (options_.on_log) options_.on_log(call.name + " allowed by the client's user");
      return {};
    }
    const json action = answer->value("action", json("no answer"));
    return refused + "the client's user did not allow it (" + (action.is_string() ? action.get<std::string>() : action.dump()) + ")";
  }

  json run_agent(const json& arguments, CallContext& context) {
    std::string task = arguments.value("task", "");
    if (task.empty()) return text_result("run_agent needs a non-empty \"task\"", true);
    std::optional<int> rounds;
    if (auto r = arguments.find("max_rounds"); r != arguments.end() && r->is_number_integer()) {
      rounds = r->get<int>();
      if (*rounds < 1 || *rounds > 100) return text_result("run_agent: max_rounds must be from 1 to 100", true);
    }
    Result<std::string> answer = options_.run_agent(task, rounds, context.stop());
    log(std::string("run_agent ") + (answer.ok() ? "answered" : "failed: " + answer.status().message()), context);
    if (!answer.ok()) return text_result("the agent failed: " + answer.status().message(), true);
    return text_result(*answer, false);
  }

  // One line per call: to the operator's log, and to the client when its level asks for it.
  void log(const std::string& line, CallContext& context, std::string_view level = "info") const {
    if (options_.on_log) options_.on_log(line);
    context.log(level, line);
  }

  KeelMcpServerOptions options_;
  std::unique_ptr<ToolExecutor> executor_;
  std::mutex exec_mu_;
  json tools_;
  std::map<std::string, const ServerTool*> server_tools_;
  std::map<std::string, std::shared_ptr<const keel::detail::CompiledSchema>> output_schemas_;  // by tool name
  std::atomic<uint64_t> calls_{0};
  const json server_info_ = {{"name", "keel"}, {"version", KEEL_VERSION}};
  const RequestStateSeal seal_;
  ResourceWatch watch_;  // last: its thread stops before the catalogs it reads go away
};

KeelMcpServer::KeelMcpServer(KeelMcpServerOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {}
KeelMcpServer::~KeelMcpServer() = default;

std::unique_ptr<MessageHandler> KeelMcpServer::new_session() { return make_keel_session(*impl_); }

}  // namespace keel::mcp
