// keel's MCP client as the official conformance suite drives it: `keel_mcp_conformance_client URL`
// with the scenario in MCP_CONFORMANCE_SCENARIO and its revision in MCP_CONFORMANCE_PROTOCOL_VERSION.
// It connects over Streamable HTTP, lists the tools, calls each (with the arguments the scenario's
// context names in toolCalls, else sample ones), and exits non-zero on any error.
//
// OAuth: the suite's authorization server approves every request at once, so the sign-in a person
// would do in a browser is one GET of the authorization URL whose redirect (Location) is the
// answer. Pre-registered credentials come in MCP_CONFORMANCE_CONTEXT; the client ID metadata
// document URL is the one the suite's scenarios accept.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "keel/mcp.hpp"
#include "net/http_transport.hpp"

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

// The browser's part of a sign-in: GET the authorization URL, return where it redirects.
keel::Result<std::string> follow_authorization(const std::string& url) {
  keel::detail::HttpSession session;
  keel::detail::HttpRequest request;
  request.method = "GET";
  request.url = url;
  request.target = url;
  request.capture_headers = {"location"};
  request.total_timeout_ms = 10000;
  request.on_body = [](const keel::detail::HttpHead&, std::string_view) { return true; };
  keel::detail::HttpOutcome out = session.perform(request);
  if (out.end != keel::detail::HttpEnd::kCompleted) return out.error;
  std::string location(out.head.header("location"));
  if (location.empty()) {
    return keel::Status::Unauthenticated("the authorization endpoint answered HTTP " + std::to_string(out.head.status) +
                                         " without a redirect");
  }
  return location;
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
  // The suite names the revision a scenario runs at: 2026-07-28 is the stateless one, the dated
  // ones before it the initialize handshake.
  if (const char* version = std::getenv("MCP_CONFORMANCE_PROTOCOL_VERSION")) config.protocol_version = version;
  config.oauth.client_metadata_url = "https://conformance-test.local/client-metadata.json";
  config.oauth.redirect_uri = "http://localhost:3000/callback";
  json planned_calls = json::object();  // tool name -> the arguments a scenario asks for
  if (const char* context = std::getenv("MCP_CONFORMANCE_CONTEXT")) {
    json c = json::parse(context, nullptr, false);
    if (c.is_object() && c.contains("toolCalls") && c["toolCalls"].is_array()) {
      for (const json& call : c["toolCalls"]) {
        if (call.is_object() && call.contains("name") && call["name"].is_string()) {
          planned_calls[call["name"].get<std::string>()] = call.value("arguments", json::object());
        }
      }
    }
    if (c.is_object()) {
      config.oauth.client_id = c.value("client_id", "");
      config.oauth.client_secret = c.value("client_secret", "");
      config.oauth.private_key = c.value("private_key_pem", "");
      config.oauth.signing_algorithm = c.value("signing_algorithm", "ES256");
    }
  }
  // The machine-to-machine scenarios: keel as the client itself, no person signing in.
  if (scenario.rfind("auth/client-credentials", 0) == 0) config.oauth.grant = "client_credentials";
  keel::McpClientHooks hooks;
  hooks.on_authorize = [](std::string_view, const std::string& url, const std::string&) {
    return follow_authorization(url);
  };
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
      json arguments = planned_calls.contains(tool.name) ? planned_calls[tool.name] : sample_arguments(tool);
      if (tool.name == "json_schema_echo") {
        // The schema-preservation scenario: the other tool's inputSchema, as keel kept it.
        for (const keel::McpToolInfo& other : *tools) {
          if (other.name != tool.name) arguments = {{"schema", other.input_schema}};
        }
      }
      auto result = (*client)->call_tool(tool.name, arguments);
      if (!result.ok()) return fail("tools/call " + tool.name, result.status());
      std::printf("%s: %s\n", tool.name.c_str(), result->text().c_str());
    }
  }
  (*client)->close();
  return 0;
}
