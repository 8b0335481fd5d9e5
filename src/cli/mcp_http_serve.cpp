#include "cli/mcp_http_serve.hpp"

#include <charconv>
#include <cstdlib>
#include <condition_variable>
#include <cstdio>
#include <mutex>

#include "cli/commands.hpp"
#include "cli/interrupt.hpp"
#include "assembly/serve_token.hpp"
#include "mcp_server/mcp_http_endpoint.hpp"
#include "server/access_guard.hpp"
#include "server/host_origin_policy.hpp"
#include "server/http_server.hpp"

namespace keel::cli {

namespace {

// "HOST:PORT", "[V6]:PORT" or ":PORT" (loopback) into host and port; false when malformed.
bool split_host_port(const std::string& text, std::string& host, uint16_t& port) {
  size_t colon = text.rfind(':');
  if (colon == std::string::npos) return false;
  host = text.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  if (host.empty()) host = "127.0.0.1";
  std::string digits = text.substr(colon + 1);
  unsigned value = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size() || value > 65535) return false;
  port = static_cast<uint16_t>(value);
  return true;
}

}  // namespace

Result<HttpToken> resolve_http_token(const std::string& given, bool no_auth) {
  if (no_auth && !given.empty()) {
    return Status::InvalidArgument("--no-auth and --token (or KEEL_SERVE_TOKEN) contradict each other");
  }
  HttpToken out;
  out.token = given;
  if (out.token.empty() && !no_auth) {
    KEEL_ASSIGN_OR_RETURN(assembly::ServeToken kept, assembly::load_or_create_serve_token());
    out.token = std::move(kept.token);
    out.kept_in = kept.path.string();
  }
  if (!out.token.empty()) ::setenv("KEEL_SERVE_TOKEN", out.token.c_str(), 1);
  return out;
}

int serve_mcp_http(mcp::KeelMcpServer& server, const std::string& host_port, const HttpToken& http_token) {
  const std::string& token = http_token.token;
  std::string host;
  uint16_t port = 0;
  if (!split_host_port(host_port, host, port)) {
    std::fprintf(stderr, "keel: --http must be HOST:PORT (e.g. 127.0.0.1:8765 or [::1]:8765), got '%s'\n",
                 host_port.c_str());
    return kExitUsage;
  }
  if (!server::is_loopback_host(host) && (token.empty() || !http_token.kept_in.empty())) {
    std::fprintf(stderr, "keel: serving on %s is reachable from other machines; give --token so requests must "
                         "carry it\n", host.c_str());
    return kExitUsage;
  }
  std::string token_note;
  if (!http_token.kept_in.empty()) {
    token_note = "requests need 'Authorization: Bearer <the token in " + http_token.kept_in + ">'";
  }
  std::stop_token interrupted = install_interrupt_handler();
  server::HttpServerOptions options;
  options.host = host;
  options.port = port;
  server::HttpServer http(options);
  server::AccessGuardOptions guard;
  guard.hosts = server::make_host_origin_policy(host, {}, {});
  guard.token = token;
  http.guard(server::AccessGuard::make(std::move(guard)));
  mcp::McpHttpEndpointOptions endpoint_options;
  endpoint_options.bearer_token = token;
  auto endpoint = mcp::McpHttpEndpoint::mount(http, [&server] { return server.new_session(); }, endpoint_options);
  if (!endpoint.ok()) {
    std::fprintf(stderr, "keel: %s\n", endpoint.status().message().c_str());
    return kExitUsage;
  }
  if (Status started = http.start(); !started.ok()) {
    std::fprintf(stderr, "keel: %s\n", started.message().c_str());
    return kExitUsage;
  }
  std::string shown = host.find(':') != std::string::npos ? "[" + host + "]" : host;
  std::fprintf(stderr, "keel mcp: serving http://%s:%u/mcp (Ctrl-C stops)\n", shown.c_str(),
               static_cast<unsigned>(http.port()));
  if (!token_note.empty()) std::fprintf(stderr, "keel mcp: %s\n", token_note.c_str());
  if (token.empty()) std::fprintf(stderr, "keel mcp: warning: --no-auth: every program on this machine can call these tools\n");
  std::mutex mu;
  std::condition_variable_any cv;
  std::unique_lock<std::mutex> lock(mu);
  cv.wait(lock, interrupted, [] { return false; });
  lock.unlock();
  std::fprintf(stderr, "keel mcp: stopping\n");
  http.stop();
  return kExitOk;
}

}  // namespace keel::cli
