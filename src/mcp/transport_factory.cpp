// The transport an McpServerConfig asks for.
#include "mcp/client_connect.hpp"
#include "mcp/http_client_transport.hpp"
#include "mcp/oauth_authorizer.hpp"
#include "mcp/stdio_transport.hpp"

namespace keel::mcp {

std::unique_ptr<Transport> make_transport(const McpServerConfig& config, const McpClientHooks& hooks) {
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
      {  // both HTTP transports answer a server's OAuth challenge
        OAuthAuthorizerOptions oauth;
        oauth.server_name = config.name;
        oauth.server_url = config.url;
        oauth.config = config.oauth;
        const std::string name = config.name;
        if (hooks.on_authorize) {
          oauth.authorize = [name, authorize = hooks.on_authorize](const std::string& url, const std::string& redirect) {
            return authorize(name, url, redirect);
          };
        }
        if (hooks.load_oauth) oauth.load = [name, load = hooks.load_oauth] { return load(name); };
        if (hooks.save_oauth) oauth.save = [name, save = hooks.save_oauth](const nlohmann::json& s) { save(name, s); };
        spec.authorizer = std::make_shared<OAuthAuthorizer>(std::move(oauth));
      }
      return config.transport == McpTransportKind::kHttp ? make_streamable_http_transport(std::move(spec))
                                                         : make_legacy_sse_transport(std::move(spec));
    }
  }
  return nullptr;
}

}  // namespace keel::mcp
