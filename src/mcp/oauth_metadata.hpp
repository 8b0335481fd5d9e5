// mcp/oauth_metadata.hpp — what an MCP client reads before it can ask for a token: the server's
// WWW-Authenticate challenge (RFC 6750 §3), its protected-resource metadata (RFC 9728) and its
// authorization server's metadata (RFC 8414, or OpenID Connect Discovery), with the well-known
// URLs the MCP authorization spec (2025-11-25) says to try, in order.
//
// Thread-safety: plain values and pure functions.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "keel/result.hpp"

namespace keel::mcp {

// The Bearer challenge of a 401 or 403 answer; `bearer` false when the header names no Bearer scheme.
struct BearerChallenge {
  bool bearer = false;
  std::string resource_metadata;  // URL of the protected-resource metadata
  std::string scope;              // space-separated scopes the request needs
  std::string error;              // "invalid_token", "insufficient_scope", ...
  std::string error_description;
};
BearerChallenge parse_bearer_challenge(std::string_view www_authenticate);

struct ProtectedResourceMetadata {
  std::string resource;                            // the server's canonical URI
  std::vector<std::string> authorization_servers;  // issuer URLs
  std::vector<std::string> scopes_supported;
};

struct AuthServerMetadata {
  std::string issuer;
  std::string authorization_endpoint;
  std::string token_endpoint;
  std::string registration_endpoint;                     // "" when dynamic registration is not offered
  std::vector<std::string> scopes_supported;
  std::vector<std::string> token_endpoint_auth_methods;  // RFC 8414's default when absent: client_secret_basic
  std::vector<std::string> grant_types;
  bool client_id_metadata_document_supported = false;
  // RFC 9207: the authorization response carries `iss`, which must then be present and equal.
  bool iss_parameter_supported = false;
};

// Where the protected-resource metadata of `server_url` may be, in order: the path-suffixed
// well-known URL (when the URL has a path), then the origin's.
std::vector<std::string> protected_resource_metadata_urls(std::string_view server_url);
// Where the metadata of the authorization server `issuer` may be, in order (RFC 8414 §3.1 and
// OpenID Connect Discovery, path-inserted and path-appended forms).
std::vector<std::string> auth_server_metadata_urls(std::string_view issuer);

// Parse and check the JSON documents; the error names the field at fault.
Result<ProtectedResourceMetadata> parse_protected_resource_metadata(const nlohmann::json& document);
Result<AuthServerMetadata> parse_auth_server_metadata(const nlohmann::json& document);

// Whether a token for `resource` may be used at `server_url`: the same origin (scheme, host and
// port, case-insensitive) and a path equal to or under the resource's.
bool resource_covers(std::string_view resource, std::string_view server_url);

// RFC 9207 for an authorization response (MCP 2026-07-28 requires it): a present `iss` (nullptr:
// absent) must equal the recorded issuer of `server` exactly, character for character, and one its
// metadata promises (authorization_response_iss_parameter_supported) must be present. Unauthenticated
// naming the mismatch otherwise: the response may come from another server (a mix-up attack),
// so its code must not be redeemed.
Status check_response_issuer(const std::string* iss, const AuthServerMetadata& server);

// "scheme://host[:port]" of an http(s) URL; "" when it is not one.
std::string url_origin(std::string_view url);
// The path of an http(s) URL without its query ("" or "/" for none); "" when it is not one.
std::string url_path(std::string_view url);

}  // namespace keel::mcp
