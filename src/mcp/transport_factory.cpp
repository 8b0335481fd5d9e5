// The transport an McpServerConfig asks for.
#include "mcp/client_connect.hpp"
#include "mcp/http_client_transport.hpp"
#include "mcp/stdio_transport.hpp"

namespace keel::mcp {

std::unique_ptr<Transport> make_transport(const McpServerConfig& config) {
  switch (config.transport) {
    case McpTransportKind::kStdio: {
      StdioServerSpec spec;
      spec.command = config.command;
      spec.args = config.args;
      spec.env = config.env;
      spec.cwd = config.cwd;
      return make_stdio_transport(std::move(spec));
    }
    case McpTransportKind::kHttp:
    case McpTransportKind::kSse: {
      HttpServerSpec spec;
      spec.url = config.url;
      spec.headers = config.headers;
      spec.connect_timeout_ms = std::min<int64_t>(config.startup_timeout_ms, 10000);
      return config.transport == McpTransportKind::kHttp ? make_streamable_http_transport(std::move(spec))
                                                         : make_legacy_sse_transport(std::move(spec));
    }
  }
  return nullptr;
}

}  // namespace keel::mcp
