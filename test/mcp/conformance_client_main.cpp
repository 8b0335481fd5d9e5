// keel's MCP client as the official conformance suite drives it: `keel_mcp_conformance_client URL`
// with the scenario in MCP_CONFORMANCE_SCENARIO. It connects over Streamable HTTP, lists the
// tools, makes the call the scenario expects, and exits non-zero on any error.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "keel/mcp.hpp"

namespace {

using nlohmann::json;

int fail(const std::string& what, const keel::Status& status) {
  std::fprintf(stderr, "conformance client: %s: %s\n", what.c_str(), status.message().c_str());
  return 1;
}

// Arguments for a tool from its schema: numbers count up from 1, strings say "test", booleans true.
json sample_arguments(const keel::McpToolInfo& tool) {
  json args = json::object();
  const json& props = tool.input_schema.contains("properties") ? tool.input_schema["properties"] : json::object();
  int n = 0;
  for (auto it = props.begin(); it != props.end(); ++it) {
    std::string type = it->is_object() ? it->value("type", "string") : "string";
    if (type == "number" || type == "integer") {
      args[it.key()] = ++n;
    } else if (type == "boolean") {
      args[it.key()] = true;
    } else if (type == "string") {
      args[it.key()] = "test";
    }
  }
  return args;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s SERVER_URL  (scenario in MCP_CONFORMANCE_SCENARIO)\n", argv[0]);
    return 2;
  }
  const char* scenario_env = std::getenv("MCP_CONFORMANCE_SCENARIO");
  const std::string scenario = scenario_env ? scenario_env : "initialize";
  keel::McpServerConfig config;
  config.name = "conformance";
  config.transport = keel::McpTransportKind::kHttp;
  config.url = argv[argc - 1];
  config.startup_timeout_ms = 10000;
  config.call_timeout_ms = 10000;
  keel::McpClientHooks hooks;
  hooks.on_log = [](std::string_view, std::string_view line) {
    std::fprintf(stderr, "server: %.*s\n", static_cast<int>(line.size()), line.data());
  };
  auto client = keel::McpClient::connect(config, hooks);
  if (!client.ok()) return fail("connect", client.status());
  auto tools = (*client)->list_tools();
  if (!tools.ok()) return fail("tools/list", tools.status());
  std::printf("connected to %s (protocol %s), %zu tools\n", (*client)->server_info().value("name", "?").c_str(),
              (*client)->protocol_version().c_str(), tools->size());
  if (scenario != "initialize") {
    // Every other client scenario expects each offered tool to be called once.
    for (const keel::McpToolInfo& tool : *tools) {
      auto result = (*client)->call_tool(tool.name, sample_arguments(tool));
      if (!result.ok()) return fail("tools/call " + tool.name, result.status());
      std::printf("%s: %s\n", tool.name.c_str(), result->text().c_str());
    }
  }
  (*client)->close();
  return 0;
}
