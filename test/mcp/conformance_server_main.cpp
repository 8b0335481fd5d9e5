// keel's MCP server with the conformance suite's fixtures, for the suite's server scenarios:
// `keel_mcp_conformance_server` serves Streamable HTTP on 127.0.0.1 (a free port), prints
// "serving http://127.0.0.1:PORT/mcp" on stderr, and runs until SIGINT or SIGTERM.
#include <signal.h>

#include <cstdio>

#include "keel/tool_registry.hpp"
#include "mcp/conformance_fixtures.hpp"
#include "mcp_server/keel_mcp_handler.hpp"
#include "mcp_server/mcp_http_endpoint.hpp"
#include "server/http_server.hpp"

int main() {
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);  // before any thread starts: sigwait below gets them

  keel::ToolRegistry registry;
  keel::mcp::KeelMcpServerOptions options;
  options.tools = &registry;
  options.catalogs.push_back(keel::test::conformance_fixture_catalog());
  options.server_tools = keel::test::conformance_fixture_tools();
  options.watch_interval = std::chrono::milliseconds(200);
  keel::mcp::KeelMcpServer mcp_server(std::move(options));

  keel::server::HttpServerOptions http_options;
  http_options.host = "127.0.0.1";
  http_options.port = 0;
  keel::server::HttpServer http(http_options);
  auto endpoint = keel::mcp::McpHttpEndpoint::mount(http, [&] { return mcp_server.new_session(); });
  if (!endpoint.ok()) {
    std::fprintf(stderr, "conformance server: %s\n", endpoint.status().message().c_str());
    return 1;
  }
  if (keel::Status started = http.start(); !started.ok()) {
    std::fprintf(stderr, "conformance server: %s\n", started.message().c_str());
    return 1;
  }
  std::fprintf(stderr, "serving http://127.0.0.1:%u/mcp\n", static_cast<unsigned>(http.port()));
  int signal_number = 0;
  sigwait(&stop_signals, &signal_number);
  return 0;
}
