// Challenge parsing is tolerant (tokens or quoted strings, any order, other schemes skipped);
// metadata parsing is strict about the fields a flow needs.
#include "mcp/oauth_metadata.hpp"

#include <cctype>

#include "core/text/text_util.hpp"

namespace keel::mcp {

namespace {

using nlohmann::json;

bool is_token_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

std::vector<std::string> string_list(const json& doc, const char* key) {
  std::vector<std::string> out;
  auto it = doc.find(key);
  if (it == doc.end() || !it->is_array()) return out;
  for (const json& v : *it) {
    if (v.is_string()) out.push_back(v.get<std::string>());
  }
  return out;
}

std::string string_field(const json& doc, const char* key) {
  auto it = doc.find(key);
  return it != doc.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

BearerChallenge parse_bearer_challenge(std::string_view h) {
  BearerChallenge out;
  size_t i = 0;
  bool in_bearer = false;
  auto skip_space = [&] {
    while (i < h.size() && (h[i] == ' ' || h[i] == '\t' || h[i] == ',')) ++i;
  };
  while (i < h.size()) {
    skip_space();
    size_t start = i;
    while (i < h.size() && is_token_char(h[i])) ++i;
    if (i == start) {
      ++i;  // a stray character: skip it
      continue;
    }
    std::string token(h.substr(start, i - start));
    size_t after = i;
    while (after < h.size() && (h[after] == ' ' || h[after] == '\t')) ++after;
    if (after >= h.size() || h[after] != '=') {  // a scheme name (or a token68 credential)
      in_bearer = keel::detail::lowercase(token) == "bearer";
      if (in_bearer) out.bearer = true;
      continue;
    }
    i = after + 1;
    while (i < h.size() && (h[i] == ' ' || h[i] == '\t')) ++i;
    std::string value;
    if (i < h.size() && h[i] == '"') {
      for (++i; i < h.size() && h[i] != '"'; ++i) {
        if (h[i] == '\\' && i + 1 < h.size()) ++i;
        value += h[i];
      }
      if (i < h.size()) ++i;  // the closing quote
    } else {
      size_t v = i;
      while (i < h.size() && h[i] != ',' && h[i] != ' ' && h[i] != '\t') ++i;
      value = std::string(h.substr(v, i - v));
    }
    if (!in_bearer) continue;
    std::string name = keel::detail::lowercase(token);
    if (name == "resource_metadata") out.resource_metadata = value;
    else if (name == "scope") out.scope = value;
    else if (name == "error") out.error = value;
    else if (name == "error_description") out.error_description = value;
  }
  return out;
}

std::string url_origin(std::string_view url) {
  size_t scheme_end = url.find("://");
  if (scheme_end == std::string_view::npos) return "";
  std::string scheme = keel::detail::lowercase(url.substr(0, scheme_end));
  if (scheme != "http" && scheme != "https") return "";
  size_t host_start = scheme_end + 3;
  size_t host_end = url.find_first_of("/?#", host_start);
  if (host_end == std::string_view::npos) host_end = url.size();
  if (host_end == host_start) return "";
  return scheme + "://" + keel::detail::lowercase(url.substr(host_start, host_end - host_start));
}

std::string url_path(std::string_view url) {
  if (url_origin(url).empty()) return "";
  size_t host_start = url.find("://") + 3;
  size_t path_start = url.find_first_of("/?#", host_start);
  if (path_start == std::string_view::npos || url[path_start] != '/') return "";
  size_t path_end = url.find_first_of("?#", path_start);
  return std::string(url.substr(path_start, path_end == std::string_view::npos ? std::string_view::npos : path_end - path_start));
}

std::vector<std::string> protected_resource_metadata_urls(std::string_view server_url) {
  std::string origin = url_origin(server_url);
  if (origin.empty()) return {};
  std::string path = url_path(server_url);
  while (!path.empty() && path.back() == '/') path.pop_back();
  std::vector<std::string> out;
  if (!path.empty()) out.push_back(origin + "/.well-known/oauth-protected-resource" + path);
  out.push_back(origin + "/.well-known/oauth-protected-resource");
  return out;
}

std::vector<std::string> auth_server_metadata_urls(std::string_view issuer) {
  std::string origin = url_origin(issuer);
  if (origin.empty()) return {};
  std::string path = url_path(issuer);
  while (!path.empty() && path.back() == '/') path.pop_back();
  if (path.empty()) {
    return {origin + "/.well-known/oauth-authorization-server", origin + "/.well-known/openid-configuration"};
  }
  return {origin + "/.well-known/oauth-authorization-server" + path, origin + "/.well-known/openid-configuration" + path,
          origin + path + "/.well-known/openid-configuration"};
}

Result<ProtectedResourceMetadata> parse_protected_resource_metadata(const json& doc) {
  if (!doc.is_object()) return Status::InvalidArgument("protected-resource metadata is not a JSON object");
  ProtectedResourceMetadata m;
  m.resource = string_field(doc, "resource");
  if (m.resource.empty()) return Status::InvalidArgument("protected-resource metadata has no \"resource\"");
  m.authorization_servers = string_list(doc, "authorization_servers");
  if (m.authorization_servers.empty()) {
    return Status::InvalidArgument("protected-resource metadata lists no \"authorization_servers\"");
  }
  m.scopes_supported = string_list(doc, "scopes_supported");
  return m;
}

Result<AuthServerMetadata> parse_auth_server_metadata(const json& doc) {
  if (!doc.is_object()) return Status::InvalidArgument("authorization server metadata is not a JSON object");
  AuthServerMetadata m;
  m.issuer = string_field(doc, "issuer");
  m.authorization_endpoint = string_field(doc, "authorization_endpoint");
  m.token_endpoint = string_field(doc, "token_endpoint");
  m.registration_endpoint = string_field(doc, "registration_endpoint");
  for (const char* key : {"authorization_endpoint", "token_endpoint"}) {
    std::string value = string_field(doc, key);
    if (url_origin(value).empty()) {
      return Status::InvalidArgument(std::string("authorization server metadata has no http(s) \"") + key + "\"");
    }
  }
  if (!m.registration_endpoint.empty() && url_origin(m.registration_endpoint).empty()) {
    return Status::InvalidArgument("authorization server metadata's \"registration_endpoint\" is not an http(s) URL");
  }
  m.scopes_supported = string_list(doc, "scopes_supported");
  m.token_endpoint_auth_methods = string_list(doc, "token_endpoint_auth_methods_supported");
  if (m.token_endpoint_auth_methods.empty()) m.token_endpoint_auth_methods = {"client_secret_basic"};
  m.grant_types = string_list(doc, "grant_types_supported");
  auto cimd = doc.find("client_id_metadata_document_supported");
  m.client_id_metadata_document_supported = cimd != doc.end() && cimd->is_boolean() && cimd->get<bool>();
  auto iss = doc.find("authorization_response_iss_parameter_supported");
  m.iss_parameter_supported = iss != doc.end() && iss->is_boolean() && iss->get<bool>();
  return m;
}

bool resource_covers(std::string_view resource, std::string_view server_url) {
  std::string origin = url_origin(resource);
  if (origin.empty() || origin != url_origin(server_url)) return false;
  std::string base = url_path(resource);
  std::string path = url_path(server_url);
  while (!base.empty() && base.back() == '/') base.pop_back();
  while (!path.empty() && path.back() == '/') path.pop_back();
  if (base.empty()) return true;
  return path == base || (path.size() > base.size() && path.compare(0, base.size(), base) == 0 && path[base.size()] == '/');
}

Status check_response_issuer(const std::string* iss, const AuthServerMetadata& server) {
  if (iss != nullptr) {
    if (*iss == server.issuer) return Status::Ok();
    return Status::Unauthenticated("the sign-in came back from issuer '" + *iss + "', not from '" + server.issuer +
                                   "' where keel sent it; the code was not redeemed");
  }
  if (server.iss_parameter_supported) {
    return Status::Unauthenticated("the sign-in came back without the `iss` its authorization server ('" +
                                   server.issuer + "') promises; the code was not redeemed");
  }
  return Status::Ok();
}

}  // namespace keel::mcp
