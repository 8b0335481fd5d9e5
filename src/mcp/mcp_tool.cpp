// An MCP server's tool as a keel Tool: SERVER__tool, its schema and metadata from tools/list, and
// execute() forwarding to the hub's (re)connected client.
#include "mcp/mcp_tool.hpp"

namespace keel::mcp {

using nlohmann::json;

Risk risk_from_annotations(const json& annotations) {
  // MCP's defaults: readOnlyHint false, destructiveHint true (a tool may destroy unless it says not).
  if (annotations.is_object()) {
    auto ro = annotations.find("readOnlyHint");
    if (ro != annotations.end() && ro->is_boolean() && ro->get<bool>()) return Risk::kLow;
    auto destructive = annotations.find("destructiveHint");
    if (destructive != annotations.end() && destructive->is_boolean() && !destructive->get<bool>()) return Risk::kMedium;
  }
  return Risk::kHigh;
}

ToolSpec spec_for(const McpServerConfig& server, const McpToolInfo& tool, std::string schema) {
  ToolTraits traits;
  traits.risk = risk_from_annotations(tool.annotations);
  traits.read_only = traits.risk == Risk::kLow;
  traits.timeout_ms = static_cast<int>(std::min<int64_t>(server.call_timeout_ms, 86400000));
  std::string description = tool.description.empty() ? tool.title : tool.description;
  if (description.empty()) description = "Tool " + tool.name;
  description += " (MCP server " + server.name + ")";
  return make_tool_spec(mcp_tool_name(server.name, tool.name), std::move(description), std::move(schema), traits);
}

namespace {

class McpTool final : public Tool {
 public:
  McpTool(McpHub& hub, std::string server, std::string tool, ToolSpec spec, int64_t timeout_ms)
      : hub_(hub), server_(std::move(server)), tool_(std::move(tool)), spec_(std::move(spec)), timeout_ms_(timeout_ms) {}

  const ToolSpec& spec() const override { return spec_; }

  Result<std::string> execute(const json& args, const ToolContext& ctx) override {
    KEEL_ASSIGN_OR_RETURN(McpClient * client, hub_.tool_client(server_, tool_));
    KEEL_ASSIGN_OR_RETURN(McpToolResult result,
                          client->call_tool(tool_, args, ctx.stop, std::chrono::milliseconds(timeout_ms_)));
    std::string text = result.text();
    if (result.is_error) {
      return Status::FailedPrecondition("MCP tool " + server_ + "/" + tool_ + " reported an error: " +
                                        (text.empty() ? std::string("(no details)") : text));
    }
    return text;
  }

 private:
  McpHub& hub_;
  std::string server_;
  std::string tool_;
  ToolSpec spec_;
  int64_t timeout_ms_;
};

}  // namespace

std::unique_ptr<Tool> make_mcp_tool(McpHub& hub, const McpServerConfig& server, const McpToolInfo& tool,
                                    std::string schema, bool deferred) {
  ToolSpec spec = spec_for(server, tool, std::move(schema));
  spec.deferred = deferred;
  return std::make_unique<McpTool>(hub, server.name, tool.name, std::move(spec), server.call_timeout_ms);
}

}  // namespace keel::mcp
