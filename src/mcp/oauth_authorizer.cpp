// OAuthAuthorizer: every request to the authorization server is a plain libcurl exchange with a
// timeout; every failure is an Unauthenticated status that names the server and the step.
#include "mcp/oauth_authorizer.hpp"

#include <algorithm>
#include <chrono>
#include <sstream>

#include "base/random_token.hpp"
#include "core/text/base64.hpp"
#include "core/text/percent_decode.hpp"
#include "core/text/text_util.hpp"
#include "llm/sha256.hpp"
#include "mcp/jwt_assertion.hpp"
#include "net/http_transport.hpp"

namespace keel::mcp {

namespace {

using nlohmann::json;

constexpr size_t kMaxOAuthBody = 1 << 20;
constexpr const char* kDefaultRedirect = "http://127.0.0.1:33418/callback";

struct OAuthAnswer {
  long status = 0;
  std::string body;
};

Result<OAuthAnswer> oauth_exchange(const std::string& method, const std::string& url, std::vector<std::string> headers,
                                   std::string body, int64_t timeout_ms, std::stop_token stop) {
  keel::detail::HttpSession session;
  keel::detail::HttpRequest r;
  r.method = method;
  r.url = url;
  r.target = url;
  r.headers = std::move(headers);
  r.body = std::move(body);
  r.total_timeout_ms = timeout_ms;
  r.connect_timeout_ms = std::min<int64_t>(timeout_ms, 10000);
  r.stop = std::move(stop);
  OAuthAnswer answer;
  r.on_body = [&answer](const keel::detail::HttpHead&, std::string_view chunk) {
    if (answer.body.size() + chunk.size() > kMaxOAuthBody) return false;
    answer.body.append(chunk);
    return true;
  };
  keel::detail::HttpOutcome out = session.perform(r);
  if (out.end == keel::detail::HttpEnd::kAbortedByBody) {
    return Status::ResourceExhausted(url + " sent more than 1 MiB");
  }
  if (out.end != keel::detail::HttpEnd::kCompleted) return out.error;
  answer.status = out.head.status;
  return answer;
}


std::string pkce_challenge(const std::string& verifier) {
  keel::detail::Sha256 hash;
  hash.update(verifier);
  std::array<uint8_t, 32> digest = hash.digest();
  return keel::detail::base64url_encode(std::string_view(reinterpret_cast<const char*>(digest.data()), digest.size()));
}

std::string form_encode(const std::vector<std::pair<std::string, std::string>>& fields) {
  std::string out;
  for (const auto& [name, value] : fields) {
    if (!out.empty()) out += '&';
    out += keel::detail::percent_encode(name) + "=" + keel::detail::percent_encode(value);
  }
  return out;
}

// True for http://localhost, http://127.0.0.1 and http://[::1] redirect URIs (any port and path).
bool is_loopback_redirect(const std::string& uri) {
  for (std::string_view prefix : {"http://localhost", "http://127.0.0.1", "http://[::1]"}) {
    if (uri.compare(0, prefix.size(), prefix) == 0 &&
        (uri.size() == prefix.size() || uri[prefix.size()] == ':' || uri[prefix.size()] == '/')) {
      return true;
    }
  }
  return false;
}

// The query parameters of `url` (decoded); later repeats win.
std::map<std::string, std::string> query_params(const std::string& url) {
  std::map<std::string, std::string> out;
  size_t q = url.find('?');
  if (q == std::string::npos) return out;
  std::string query = url.substr(q + 1);
  if (size_t hash = query.find('#'); hash != std::string::npos) query.resize(hash);
  std::stringstream parts(query);
  std::string part;
  while (std::getline(parts, part, '&')) {
    size_t eq = part.find('=');
    std::string name = part.substr(0, eq);
    std::string value = eq == std::string::npos ? "" : part.substr(eq + 1);
    auto n = keel::detail::percent_decode(name, true);
    auto v = keel::detail::percent_decode(value, true);
    if (n && v) out[*n] = *v;
  }
  return out;
}

std::vector<std::string> split_scopes(const std::string& scope) {
  std::vector<std::string> out;
  std::stringstream words(scope);
  std::string word;
  while (words >> word) {
    if (std::find(out.begin(), out.end(), word) == out.end()) out.push_back(word);
  }
  return out;
}

bool contains(const std::vector<std::string>& list, const std::string& value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

std::string trim_slash(std::string s) {
  while (!s.empty() && s.back() == '/') s.pop_back();
  return s;
}

// A JSON document from an answer; nullopt when it is not a 200 with a JSON object.
std::optional<json> json_document(const OAuthAnswer& answer) {
  if (answer.status != 200) return std::nullopt;
  json doc = json::parse(answer.body, nullptr, false);
  if (!doc.is_object()) return std::nullopt;
  return doc;
}

}  // namespace

OAuthAuthorizer::OAuthAuthorizer(OAuthAuthorizerOptions options) : options_(std::move(options)) {}

std::string OAuthAuthorizer::refused(const std::string& what) const {
  return "MCP server '" + options_.server_name + "' needs OAuth, and " + what;
}

std::string OAuthAuthorizer::access_token() {
  std::lock_guard lock(mu_);
  load_locked();
  return tokens_.access;
}

void OAuthAuthorizer::load_locked() {
  if (loaded_) return;
  loaded_ = true;
  if (!options_.load) return;
  std::optional<json> stored = options_.load();
  if (!stored || !stored->is_object()) return;
  // Tokens stored for another URL (the server's address changed) are not sent to this one.
  if (stored->value("server_url", std::string()) != options_.server_url) return;
  const json client = stored->value("client", json::object());
  const json tokens = stored->value("tokens", json::object());
  if (!client.is_object() || !tokens.is_object()) return;
  client_.id = client.value("client_id", "");
  client_.secret = client.value("client_secret", "");
  client_.auth_method = client.value("token_endpoint_auth_method", "");
  client_.issuer = client.value("issuer", "");
  tokens_.access = tokens.value("access_token", "");
  tokens_.refresh = tokens.value("refresh_token", "");
  tokens_.scope = tokens.value("scope", "");
}

void OAuthAuthorizer::save_locked() {
  if (!options_.save) return;
  json stored = {{"client", {{"client_id", client_.id}, {"client_secret", client_.secret},
                             {"token_endpoint_auth_method", client_.auth_method}, {"issuer", client_.issuer}}},
                 {"tokens", {{"access_token", tokens_.access}, {"refresh_token", tokens_.refresh}, {"scope", tokens_.scope}}},
                 {"server_url", options_.server_url}};
  options_.save(stored);
}

Status OAuthAuthorizer::answer_challenge(long status, std::string_view www_authenticate, std::stop_token stop) {
  std::lock_guard lock(mu_);
  load_locked();
  BearerChallenge challenge = parse_bearer_challenge(www_authenticate);
  if (!www_authenticate.empty() && !challenge.bearer) {
    return Status::Unauthenticated(refused("its challenge names no Bearer scheme keel can answer (WWW-Authenticate: " +
                                           std::string(www_authenticate) + ")"));
  }
  if (status == 403 && challenge.error != "insufficient_scope") {
    std::string why = challenge.error_description.empty() ? challenge.error : challenge.error_description;
    return Status::PermissionDenied("MCP server '" + options_.server_name + "' refused the request (HTTP 403" +
                                    (why.empty() ? std::string() : ": " + why) + ")");
  }
  const bool step_up = challenge.error == "insufficient_scope";
  if (!step_up && !tokens_.refresh.empty() && refused_token_ != tokens_.access) {
    refused_token_ = tokens_.access;
    if (discover_locked(challenge, stop).ok() && refresh_locked(stop).ok()) return Status::Ok();
  }
  KEEL_TRY(discover_locked(challenge, stop));
  if (options_.config.grant == "client_credentials") return client_credentials_locked(challenge, stop);
  KEEL_TRY(register_client_locked(stop));
  return authorize_locked(choose_scope_locked(challenge), stop);
}

Status OAuthAuthorizer::client_credentials_locked(const BearerChallenge& challenge, std::stop_token stop) {
  const auto& methods = server_->token_endpoint_auth_methods;
  client_ = Client{options_.config.client_id, options_.config.client_secret, "", server_->issuer};
  client_.auth_method = !options_.config.private_key.empty()           ? "private_key_jwt"
                        : contains(methods, "client_secret_basic")     ? "client_secret_basic"
                        : contains(methods, "client_secret_post")      ? "client_secret_post"
                                                                       : "client_secret_basic";
  std::vector<std::pair<std::string, std::string>> form;
  std::string scope = choose_scope_locked(challenge);
  if (!scope.empty()) form.emplace_back("scope", scope);
  tokens_.scope = scope;
  return token_request_locked("client_credentials", std::move(form), stop);
}

Status OAuthAuthorizer::discover_locked(const BearerChallenge& challenge, std::stop_token stop) {
  if (server_ && challenge.resource_metadata.empty()) return Status::Ok();
  const std::vector<std::string> candidates = challenge.resource_metadata.empty()
                                                  ? protected_resource_metadata_urls(options_.server_url)
                                                  : std::vector<std::string>{challenge.resource_metadata};
  resource_.reset();
  for (const std::string& url : candidates) {
    KEEL_ASSIGN_OR_RETURN(OAuthAnswer answer,
                          oauth_exchange("GET", url, {"Accept: application/json"}, "", options_.timeout_ms, stop));
    std::optional<json> doc = json_document(answer);
    if (!doc) continue;
    Result<ProtectedResourceMetadata> parsed = parse_protected_resource_metadata(*doc);
    if (!parsed.ok()) return Status::Unauthenticated(refused(url + ": " + parsed.status().message()));
    if (!resource_covers(parsed->resource, options_.server_url)) {
      return Status::Unauthenticated(refused("its protected-resource metadata (" + url + ") is for " + parsed->resource +
                                             ", not for " + options_.server_url + "; keel will not get a token for it"));
    }
    resource_ = std::move(*parsed);
    break;
  }
  if (!resource_ && !challenge.resource_metadata.empty()) {
    return Status::Unauthenticated(refused("its protected-resource metadata at " + challenge.resource_metadata +
                                           " could not be read"));
  }
  const std::string origin = url_origin(options_.server_url);
  resource_uri_ = resource_ ? resource_->resource : options_.server_url;
  const std::string issuer = resource_ ? resource_->authorization_servers.front() : origin;
  server_.reset();
  std::vector<std::string> tried;
  for (const std::string& url : auth_server_metadata_urls(issuer)) {
    tried.push_back(url);
    KEEL_ASSIGN_OR_RETURN(OAuthAnswer answer,
                          oauth_exchange("GET", url, {"Accept: application/json"}, "", options_.timeout_ms, stop));
    std::optional<json> doc = json_document(answer);
    if (!doc) continue;
    Result<AuthServerMetadata> parsed = parse_auth_server_metadata(*doc);
    if (!parsed.ok()) return Status::Unauthenticated(refused(url + ": " + parsed.status().message()));
    // RFC 8414 §3.3: the issuer must be the one asked about. A 2025-03-26 server (no
    // protected-resource metadata) serves its own metadata at its origin, whatever it names.
    if (resource_ && !parsed->issuer.empty() && trim_slash(parsed->issuer) != trim_slash(issuer)) {
      return Status::Unauthenticated(refused("the metadata at " + url + " names the issuer " + parsed->issuer +
                                             ", not " + issuer));
    }
    server_ = std::move(*parsed);
    break;
  }
  if (!server_) {
    if (resource_) {
      std::string list;
      for (const std::string& t : tried) list += (list.empty() ? "" : ", ") + t;
      return Status::Unauthenticated(refused("no authorization server metadata was found (tried " + list + ")"));
    }
    // A 2025-03-26 server: the authorization server is the MCP server's origin, at default paths.
    AuthServerMetadata fallback;
    fallback.issuer = origin;
    fallback.authorization_endpoint = origin + "/authorize";
    fallback.token_endpoint = origin + "/token";
    fallback.registration_endpoint = origin + "/register";
    fallback.token_endpoint_auth_methods = {"client_secret_basic", "client_secret_post", "none"};
    server_ = std::move(fallback);
  }
  if (client_.issuer != server_->issuer) client_ = Client{};  // registered with another server
  return Status::Ok();
}

Status OAuthAuthorizer::register_client_locked(std::stop_token stop) {
  const AuthServerMetadata& as = *server_;
  const auto& methods = as.token_endpoint_auth_methods;
  if (!options_.config.client_id.empty()) {
    client_ = Client{options_.config.client_id, options_.config.client_secret, "", as.issuer};
    bool has_secret = !client_.secret.empty();
    client_.auth_method = !has_secret                             ? "none"
                          : contains(methods, "client_secret_basic") ? "client_secret_basic"
                          : contains(methods, "client_secret_post")  ? "client_secret_post"
                                                                     : "client_secret_basic";
    return Status::Ok();
  }
  if (!client_.id.empty()) return Status::Ok();
  if (as.client_id_metadata_document_supported && !options_.config.client_metadata_url.empty()) {
    client_ = Client{options_.config.client_metadata_url, "", "none", as.issuer};
    return Status::Ok();
  }
  if (as.registration_endpoint.empty()) {
    return Status::Unauthenticated(refused("its authorization server (" + as.issuer +
                                           ") offers no dynamic client registration; set oauth.client_id (and "
                                           "client_secret) for it in the MCP server's configuration"));
  }
  const std::string method = contains(methods, "none")                  ? "none"
                             : contains(methods, "client_secret_basic") ? "client_secret_basic"
                                                                        : "client_secret_post";
  const std::string redirect = options_.config.redirect_uri.empty() ? kDefaultRedirect : options_.config.redirect_uri;
  // SEP-837: a loopback redirect is a native application's (OpenID Connect then allows its
  // http://127.0.0.1 redirect); anything else registers as a web one.
  json request = {{"client_name", "keel"},
                  {"application_type", is_loopback_redirect(redirect) ? "native" : "web"},
                  {"redirect_uris", {redirect}},
                  {"grant_types", {"authorization_code", "refresh_token"}},
                  {"response_types", {"code"}},
                  {"token_endpoint_auth_method", method}};
  KEEL_ASSIGN_OR_RETURN(OAuthAnswer answer,
                        oauth_exchange("POST", as.registration_endpoint,
                                       {"Content-Type: application/json", "Accept: application/json"}, request.dump(),
                                       options_.timeout_ms, stop));
  json doc = json::parse(answer.body, nullptr, false);
  if ((answer.status != 200 && answer.status != 201) || !doc.is_object() || !doc.contains("client_id") ||
      !doc["client_id"].is_string()) {
    std::string said = doc.is_object() ? doc.value("error_description", doc.value("error", std::string())) : "";
    return Status::Unauthenticated(refused("registering keel at " + as.registration_endpoint + " failed (HTTP " +
                                           std::to_string(answer.status) + (said.empty() ? "" : ": " + said) + ")"));
  }
  client_ = Client{doc["client_id"].get<std::string>(), doc.value("client_secret", ""),
                   doc.value("token_endpoint_auth_method", method), as.issuer};
  if (client_.secret.empty()) client_.auth_method = "none";
  save_locked();
  return Status::Ok();
}

std::string OAuthAuthorizer::choose_scope_locked(const BearerChallenge& challenge) const {
  std::vector<std::string> scopes;
  if (!challenge.scope.empty()) {
    scopes = split_scopes(challenge.scope);
  } else if (resource_ && !resource_->scopes_supported.empty()) {
    scopes = resource_->scopes_supported;
  } else {
    scopes = options_.config.scopes;
  }
  if (challenge.error == "insufficient_scope") {  // step-up: keep what was granted
    for (const std::string& held : split_scopes(tokens_.scope)) {
      if (!contains(scopes, held)) scopes.push_back(held);
    }
  }
  if (server_ && contains(server_->scopes_supported, "offline_access") && !contains(scopes, "offline_access")) {
    scopes.push_back("offline_access");  // ask for a refresh token where the server offers them
  }
  std::string out;
  for (const std::string& s : scopes) out += (out.empty() ? "" : " ") + s;
  return out;
}

Status OAuthAuthorizer::authorize_locked(const std::string& scope, std::stop_token stop) {
  if (!options_.authorize) {
    return Status::Unauthenticated(refused("no sign-in is stored for it: run `keel mcp login " + options_.server_name +
                                           "`"));
  }
  const std::string redirect = options_.config.redirect_uri.empty() ? kDefaultRedirect : options_.config.redirect_uri;
  const std::string verifier = keel::detail::random_hex(32);  // 64 unreserved characters
  const std::string state = keel::detail::random_hex(16);
  std::vector<std::pair<std::string, std::string>> query = {{"response_type", "code"},
                                                            {"client_id", client_.id},
                                                            {"redirect_uri", redirect},
                                                            {"code_challenge", pkce_challenge(verifier)},
                                                            {"code_challenge_method", "S256"},
                                                            {"state", state}};
  if (!scope.empty()) query.emplace_back("scope", scope);
  query.emplace_back("resource", resource_uri_);
  const std::string& endpoint = server_->authorization_endpoint;
  const std::string url = endpoint + (endpoint.find('?') == std::string::npos ? "?" : "&") + form_encode(query);
  KEEL_ASSIGN_OR_RETURN(std::string back, options_.authorize(url, redirect));
  std::map<std::string, std::string> params = query_params(back);
  if (auto error = params.find("error"); error != params.end()) {
    std::string why = error->second;
    if (auto d = params.find("error_description"); d != params.end()) why += ": " + d->second;
    return Status::Unauthenticated(refused("the authorization server refused the sign-in (" + why + ")"));
  }
  if (params["state"] != state) {
    return Status::Unauthenticated(refused("the sign-in came back with a state that is not the one keel sent; it "
                                           "was not answered for this request"));
  }
  // RFC 9207: the response must come from the authorization server keel sent the person to.
  auto iss = params.find("iss");
  if (Status same = check_response_issuer(iss == params.end() ? nullptr : &iss->second, *server_); !same.ok()) {
    return Status::Unauthenticated(refused(same.message()));
  }
  if (params["code"].empty()) return Status::Unauthenticated(refused("the sign-in came back without a code"));
  tokens_.scope = scope;
  return token_request_locked("authorization_code",
                              {{"code", params["code"]}, {"redirect_uri", redirect}, {"code_verifier", verifier}}, stop);
}

Status OAuthAuthorizer::refresh_locked(std::stop_token stop) {
  return token_request_locked("refresh_token", {{"refresh_token", tokens_.refresh}}, stop);
}

Status OAuthAuthorizer::token_request_locked(const std::string& grant,
                                             std::vector<std::pair<std::string, std::string>> form,
                                             std::stop_token stop) {
  form.insert(form.begin(), {"grant_type", grant});
  form.emplace_back("resource", resource_uri_);
  std::vector<std::string> headers = {"Content-Type: application/x-www-form-urlencoded", "Accept: application/json"};
  if (client_.auth_method == "private_key_jwt") {
    const auto now = std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
    json claims = {{"iss", client_.id}, {"sub", client_.id}, {"aud", server_->issuer},
                   {"iat", now}, {"exp", now + 300}, {"jti", keel::detail::random_hex(16)}};
    Result<std::string> assertion = sign_jwt(claims, options_.config.private_key, options_.config.signing_algorithm);
    if (!assertion.ok()) return Status::Unauthenticated(refused("its client assertion cannot be made: " + assertion.status().message()));
    form.emplace_back("client_id", client_.id);
    form.emplace_back("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer");
    form.emplace_back("client_assertion", *assertion);
  } else if (client_.auth_method == "client_secret_basic") {
    std::string credentials =
        keel::detail::percent_encode(client_.id) + ":" + keel::detail::percent_encode(client_.secret);
    headers.push_back("Authorization: Basic " + keel::detail::base64_encode(credentials));
  } else {
    form.emplace_back("client_id", client_.id);
    if (client_.auth_method == "client_secret_post") form.emplace_back("client_secret", client_.secret);
  }
  KEEL_ASSIGN_OR_RETURN(OAuthAnswer answer, oauth_exchange("POST", server_->token_endpoint, headers, form_encode(form),
                                                           options_.timeout_ms, stop));
  json doc = json::parse(answer.body, nullptr, false);
  if (answer.status != 200 || !doc.is_object() || !doc.contains("access_token") || !doc["access_token"].is_string()) {
    std::string said = doc.is_object() ? doc.value("error", std::string()) : "";
    if (doc.is_object() && doc.contains("error_description") && doc["error_description"].is_string()) {
      said += (said.empty() ? "" : ": ") + doc["error_description"].get<std::string>();
    }
    return Status::Unauthenticated(refused("its token endpoint refused the " + grant + " grant (HTTP " +
                                           std::to_string(answer.status) + (said.empty() ? "" : ", " + said) + ")"));
  }
  const std::string type = keel::detail::lowercase(doc.value("token_type", std::string("Bearer")));
  if (type != "bearer") return Status::Unauthenticated(refused("its token endpoint issued a '" + type + "' token, not a Bearer token"));
  tokens_.access = doc["access_token"].get<std::string>();
  if (doc.contains("refresh_token") && doc["refresh_token"].is_string()) tokens_.refresh = doc["refresh_token"].get<std::string>();
  if (doc.contains("scope") && doc["scope"].is_string()) tokens_.scope = doc["scope"].get<std::string>();
  refused_token_.clear();
  save_locked();
  return Status::Ok();
}

}  // namespace keel::mcp
