// mcp/oauth_authorizer.hpp — OAuth 2.1 for one HTTP MCP server, as the MCP authorization spec
// (2025-11-25) describes it: on the server's 401 the authorizer finds its protected-resource
// metadata (RFC 9728; the challenge's URL, then the well-known ones; none: the 2025-03-26 rule,
// the server's own origin) and its authorization server's metadata (RFC 8414 / OpenID
// Discovery; none: /authorize, /token, /register on that origin), registers keel (pre-registered
// client, client ID metadata document, or dynamic registration, RFC 7591), runs the authorization
// code flow with PKCE S256, a state and a resource indicator (RFC 8707), and keeps the tokens.
// A later 401 tries the refresh token first; a 403 insufficient_scope asks again with the union
// of the scopes held and those the challenge names (step-up). With McpOAuthConfig::grant
// "client_credentials" keel is the client itself: no person signs in, the token comes from its
// client secret or a JWT signed with its private key (private_key_jwt, RFC 7523).
//
// A token is only ever sent to the MCP server it was obtained for (the transport attaches it to
// that URL alone), and protected-resource metadata whose `resource` does not cover the server's
// URL is refused, so a server cannot collect a token meant for another.
//
// Thread-safety: one flow at a time (a mutex); access_token() may be called from any thread.
#pragma once

#include <functional>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "keel/mcp_config.hpp"
#include "keel/result.hpp"
#include "mcp/http_client_transport.hpp"
#include "mcp/oauth_metadata.hpp"

namespace keel::mcp {

struct OAuthAuthorizerOptions {
  std::string server_name;  // named in messages
  std::string server_url;   // the MCP endpoint the tokens are for
  McpOAuthConfig config;
  // Shows the authorization URL to a person; returns the URL they were redirected to. nullptr:
  // only stored or refreshed tokens can be used.
  std::function<Result<std::string>(const std::string& url, const std::string& redirect_uri)> authorize;
  std::function<std::optional<nlohmann::json>()> load;  // the stored state; nullptr: none
  std::function<void(const nlohmann::json&)> save;      // called after each change; nullptr: kept in memory
  int64_t timeout_ms = 30000;                           // each request to the authorization server
};

class OAuthAuthorizer final : public HttpAuthorizer {
 public:
  explicit OAuthAuthorizer(OAuthAuthorizerOptions options);

  std::string access_token() override;
  Status answer_challenge(long status, std::string_view www_authenticate, std::stop_token stop) override;

 private:
  struct Client {
    std::string id, secret, auth_method, issuer;
  };
  struct Tokens {
    std::string access, refresh, scope;
  };

  void load_locked();
  void save_locked();
  Status discover_locked(const BearerChallenge& challenge, std::stop_token stop);
  Status register_client_locked(std::stop_token stop);
  Status authorize_locked(const std::string& scope, std::stop_token stop);
  Status client_credentials_locked(const BearerChallenge& challenge, std::stop_token stop);
  Status refresh_locked(std::stop_token stop);
  Status token_request_locked(const std::string& grant, std::vector<std::pair<std::string, std::string>> form,
                              std::stop_token stop);
  std::string choose_scope_locked(const BearerChallenge& challenge) const;
  std::string refused(const std::string& what) const;

  const OAuthAuthorizerOptions options_;
  mutable std::mutex mu_;
  bool loaded_ = false;
  std::optional<ProtectedResourceMetadata> resource_;
  std::optional<AuthServerMetadata> server_;
  std::string resource_uri_;  // sent as `resource`
  Client client_;
  Tokens tokens_;
  std::string refused_token_;  // the access token the last refresh attempt was made for
};

}  // namespace keel::mcp
