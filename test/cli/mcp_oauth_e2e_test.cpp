// End to end: `keel mcp login` against an MCP server behind OAuth (a scripted server playing both
// the MCP server and its authorization server), with the test as the person's browser; then
// `keel mcp call` with the stored tokens, a refresh when the access token is revoked, and the
// failures a user meets (no sign-in stored, metadata for another resource).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <mutex>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <thread>

#include "core/text/base64.hpp"
#include "llm/sha256.hpp"
#include "server/raw_http_client.hpp"
#include "support/cli_runner.hpp"
#include "support/mcp_http_test_server.hpp"
#include "support/temp_dir.hpp"

namespace keel {
namespace {

using nlohmann::json;
using testing::CliRun;
using testing::McpHttpReply;
using testing::McpRecordedRequest;

// A free loopback port for the redirect URI (bound and released; the race is harmless here).
int free_port() {
  testing::McpHttpTestServer probe;
  int port = probe.port();
  probe.stop();
  return port;
}

std::map<std::string, std::string> form_of(const std::string& text) {
  std::map<std::string, std::string> out;
  std::stringstream parts(text);
  std::string part;
  while (std::getline(parts, part, '&')) {
    size_t eq = part.find('=');
    std::string value = part.substr(eq + 1);
    std::string decoded;
    for (size_t i = 0; i < value.size(); ++i) {
      if (value[i] == '%' && i + 2 < value.size()) {
        decoded += static_cast<char>(std::stoi(value.substr(i + 1, 2), nullptr, 16));
        i += 2;
      } else {
        decoded += value[i] == '+' ? ' ' : value[i];
      }
    }
    out[part.substr(0, eq)] = decoded;
  }
  return out;
}

// An MCP server whose token endpoint is its own: PKCE S256 checked, refresh tokens rotated.
class OAuthMcpServer {
 public:
  // `legacy`: the 2024-11-05 HTTP+SSE transport (GET /sse announces /messages; answers come on the
  // stream) instead of Streamable HTTP at /mcp.
  explicit OAuthMcpServer(std::string resource_override = "", bool legacy = false)
      : resource_override_(std::move(resource_override)), legacy_(legacy) {
    server_.set_responder([this](const McpRecordedRequest& r) { return answer(r); });
  }
  std::string url(std::string_view path) const { return server_.url(path); }
  std::string url() const { return server_.url(legacy_ ? "/sse" : "/mcp"); }
  bool legacy() const { return legacy_; }
  void refuse_tokens() {
    std::lock_guard lock(mu_);
    refuse_tokens_ = true;
  }
  void revoke_access_tokens() {
    std::lock_guard lock(mu_);
    valid_access_.clear();
  }
  int authorizations() const {
    std::lock_guard lock(mu_);
    return authorizations_;
  }
  std::vector<std::string> token_grants() const {
    std::lock_guard lock(mu_);
    return grants_;
  }

 private:
  McpHttpReply answer(const McpRecordedRequest& r) {
    const std::string path = r.target.substr(0, r.target.find('?'));
    if (path == (legacy_ ? "/.well-known/oauth-protected-resource/sse" : "/.well-known/oauth-protected-resource/mcp")) {
      return testing::mcp_json_reply({{"resource", resource_override_.empty() ? url() : resource_override_},
                                      {"authorization_servers", {url("")}},
                                      {"scopes_supported", {"tools"}}});
    }
    if (path == "/.well-known/oauth-authorization-server") {
      return testing::mcp_json_reply({{"issuer", url("")},
                                      {"authorization_endpoint", url("/authorize")},
                                      {"token_endpoint", url("/token")},
                                      {"registration_endpoint", url("/register")},
                                      {"code_challenge_methods_supported", {"S256"}},
                                      {"token_endpoint_auth_methods_supported", {"none"}}});
    }
    if (path == "/register") {
      json reply = {{"client_id", "client-1"}, {"redirect_uris", r.message["redirect_uris"]}};
      return testing::mcp_status_reply(201, reply.dump(), "application/json");
    }
    if (path == "/authorize") {
      std::map<std::string, std::string> q = form_of(r.target.substr(r.target.find('?') + 1));
      std::lock_guard lock(mu_);
      ++authorizations_;
      challenge_ = q["code_challenge"];
      std::string location = q["redirect_uri"] + "?code=code-1&state=" + q["state"];
      return testing::mcp_status_reply(302, "", "text/plain", {{"Location", location}});
    }
    if (path == "/token") return token(form_of(r.body));
    if (path == "/mcp" || path == "/sse" || path == "/messages") return mcp(r);
    return testing::mcp_status_reply(404);
  }

  McpHttpReply token(std::map<std::string, std::string> form) {
    std::lock_guard lock(mu_);
    grants_.push_back(form["grant_type"]);
    bool ok = false;
    if (form["grant_type"] == "authorization_code") {
      detail::Sha256 hash;
      hash.update(form["code_verifier"]);
      auto digest = hash.digest();
      std::string computed = detail::base64url_encode(std::string_view(reinterpret_cast<const char*>(digest.data()), 32));
      ok = form["code"] == "code-1" && computed == challenge_ && form["resource"] == url() && form["client_id"] == "client-1";
    } else if (form["grant_type"] == "refresh_token") {
      ok = valid_refresh_.count(form["refresh_token"]) > 0;
      valid_refresh_.erase(form["refresh_token"]);
    }
    if (refuse_tokens_) {
      return testing::mcp_status_reply(400, R"({"error":"access_denied","error_description":"the user is suspended"})",
                                       "application/json");
    }
    if (!ok) return testing::mcp_status_reply(400, R"({"error":"invalid_grant"})", "application/json");
    ++issued_;
    std::string access = "access-" + std::to_string(issued_);
    std::string refresh = "refresh-" + std::to_string(issued_);
    valid_access_.insert(access);
    valid_refresh_.insert(refresh);
    return testing::mcp_json_reply(
        {{"access_token", access}, {"token_type", "Bearer"}, {"refresh_token", refresh}, {"scope", "tools"}});
  }

  McpHttpReply mcp(const McpRecordedRequest& r) {
    {
      std::lock_guard lock(mu_);
      std::string auth = r.header("authorization");
      if (auth.rfind("Bearer ", 0) != 0 || !valid_access_.count(auth.substr(7))) {
        return testing::mcp_status_reply(
            401, R"({"error":"invalid_token"})", "application/json",
            {{"WWW-Authenticate", "Bearer resource_metadata=\"" + url(legacy_ ? "/.well-known/oauth-protected-resource/sse"
                                                                                : "/.well-known/oauth-protected-resource/mcp") +
                                       "\""}});
      }
    }
    if (legacy_ && r.method == "GET" && r.target == "/sse") {
      testing::McpHttpReply stream = testing::mcp_sse_reply({{0, "event: endpoint\ndata: /messages?session=s1\n\n"}});
      std::lock_guard lock(mu_);
      channel_ = std::make_shared<testing::McpStreamChannel>();  // each keel process opens its own stream
      stream.channel = channel_;
      return stream;
    }
    if (r.method != "POST") return testing::mcp_status_reply(405);
    const json& m = r.message;
    if (!m.contains("id")) return testing::mcp_status_reply(202);
    json response = answer_rpc(m);
    if (!legacy_) return testing::mcp_json_reply(response);
    std::lock_guard lock(mu_);
    channel_->push(testing::mcp_sse_event(response));
    return testing::mcp_status_reply(202, "Accepted");
  }

  static json answer_rpc(const json& m) {
    std::string method = m.value("method", "");
    if (method == "initialize") {
      return testing::mcp_result(m, {{"protocolVersion", "2025-11-25"},
                                     {"capabilities", {{"tools", json::object()}}},
                                     {"serverInfo", {{"name", "guarded"}, {"version", "1"}}}});
    }
    if (method == "tools/list") {
      return testing::mcp_result(
          m, {{"tools", {{{"name", "whoami"}, {"inputSchema", {{"type", "object"}}}, {"annotations", {{"readOnlyHint", true}}}}}}});
    }
    if (method == "tools/call") {
      return testing::mcp_result(m, {{"content", {{{"type", "text"}, {"text", "signed-in caller"}}}}});
    }
    return testing::mcp_result(m, json::object());
  }

  const std::string resource_override_;
  const bool legacy_;
  mutable std::mutex mu_;
  std::shared_ptr<testing::McpStreamChannel> channel_ = std::make_shared<testing::McpStreamChannel>();
  std::string challenge_;
  std::set<std::string> valid_access_, valid_refresh_;
  std::vector<std::string> grants_;
  int authorizations_ = 0;
  int issued_ = 0;
  bool refuse_tokens_ = false;
  testing::McpHttpTestServer server_;
};

class McpOAuthCliTest : public ::testing::Test {
 protected:
  void configure(const OAuthMcpServer& server) {
    redirect_port_ = free_port();
    json entry = {{"type", server.legacy() ? "sse" : "http"},
                  {"url", server.url()},
                  {"oauth", {{"redirectUri", "http://127.0.0.1:" + std::to_string(redirect_port_) + "/callback"}}}};
    home_.write("xdg/keel/config.yaml", "mcpServers: " + json({{"guarded", entry}}).dump() + "\n");
  }
  testing::CliOptions options() const {
    testing::CliOptions opts;
    opts.env = {{"KEEL_HOME", home_.path().string()}, {"XDG_CONFIG_HOME", (home_.path() / "xdg").string()}};
    opts.cwd = ws_.path().string();
    opts.timeout_ms = 60000;
    return opts;
  }
  CliRun keel(const std::vector<std::string>& args) { return testing::run_cli(KEEL_BINARY, args, options()); }

  // `keel mcp login guarded`, with this test as the browser: it reads the printed URL, follows it
  // to the authorization endpoint, and takes its redirect back to keel's loopback address.
  // `expect_url` false: keel must fail before it shows one.
  CliRun login_as_browser(bool expect_url = true) {
    const std::string err_file = (ws_.path() / "login.err").string();
    auto login = std::async(std::launch::async, [&] {
      return testing::run_cli("/bin/sh", {"-c", std::string(KEEL_BINARY) + " mcp login guarded --timeout 30 2>" + err_file},
                              options());
    });
    std::string url;
    for (int i = 0; i < 300 && url.empty() && login.wait_for(std::chrono::milliseconds(0)) != std::future_status::ready;
         ++i) {
      std::ifstream in(err_file);
      std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      std::smatch m;
      if (std::regex_search(text, m, std::regex(R"((http://127\.0\.0\.1:\d+/authorize\?\S+))"))) url = m[1];
      if (url.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    EXPECT_EQ(!url.empty(), expect_url) << "the authorization URL keel printed: " << url;
    if (!url.empty()) {
      std::smatch m;
      std::regex_search(url, m, std::regex(R"(http://127\.0\.0\.1:(\d+)(/.*))"));
      auto authorize = testing::raw_http(static_cast<uint16_t>(std::stoi(m[1])), "GET", std::string(m[2]));
      EXPECT_TRUE(authorize.has_value());
      if (authorize) {
        std::string location = authorize->header("location");
        std::regex_search(location, m, std::regex(R"(http://127\.0\.0\.1:(\d+)(/.*))"));
        auto back = testing::raw_http(static_cast<uint16_t>(std::stoi(m[1])), "GET", std::string(m[2]));
        EXPECT_TRUE(back.has_value());
        if (back) {
          EXPECT_NE(back->body.find("You can close this tab"), std::string::npos) << back->body;
        }
      }
    }
    CliRun run = login.get();
    std::ifstream in(err_file);
    run.err.assign((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return run;
  }

  std::filesystem::path oauth_file() const {
    std::filesystem::path dir = home_.path() / "mcp-oauth";
    if (!std::filesystem::exists(dir)) return {};
    for (const auto& e : std::filesystem::directory_iterator(dir)) {
      if (e.path().extension() == ".json") return e.path();
    }
    return {};
  }

  testing::TempDir ws_;
  testing::TempDir home_;
  int redirect_port_ = 0;
};

TEST_F(McpOAuthCliTest, LoginKeepsTokensThatLaterRunsUseAndRefresh) {
  OAuthMcpServer server;
  configure(server);

  CliRun before = keel({"mcp", "call", "guarded", "whoami"});
  EXPECT_EQ(before.exit_code, 4) << before.out << before.err;
  EXPECT_NE(before.err.find("keel mcp login guarded"), std::string::npos) << before.err;
  EXPECT_EQ(server.authorizations(), 0);

  CliRun login = login_as_browser();
  ASSERT_EQ(login.exit_code, 0) << login.out << login.err;
  EXPECT_NE(login.out.find("signed in to MCP server 'guarded' (1 tools)"), std::string::npos) << login.out;
  EXPECT_EQ(server.authorizations(), 1);
  std::filesystem::path file = oauth_file();
  ASSERT_FALSE(file.empty());
  struct stat st {};
  ASSERT_EQ(::stat(file.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_EQ(::stat(file.parent_path().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  json stored = json::parse(std::ifstream(file));
  EXPECT_EQ(stored["tokens"]["access_token"], "access-1");

  CliRun call = keel({"mcp", "call", "guarded", "whoami"});
  EXPECT_EQ(call.exit_code, 0) << call.err;
  EXPECT_NE(call.out.find("signed-in caller"), std::string::npos) << call.out;
  EXPECT_EQ(server.authorizations(), 1) << "the stored token is used, no new sign-in";

  server.revoke_access_tokens();
  CliRun refreshed = keel({"mcp", "call", "guarded", "whoami"});
  EXPECT_EQ(refreshed.exit_code, 0) << refreshed.err;
  EXPECT_EQ(server.authorizations(), 1) << "a refresh, not a sign-in";
  EXPECT_EQ(server.token_grants(), (std::vector<std::string>{"authorization_code", "refresh_token"}));
  stored = json::parse(std::ifstream(file));
  EXPECT_EQ(stored["tokens"]["access_token"], "access-2");
  EXPECT_EQ(stored["tokens"]["refresh_token"], "refresh-2");
}

// The same sign-in for a server on the legacy HTTP+SSE transport (2024-11-05): its event stream
// and its messages carry the token, which is refreshed there too.
TEST_F(McpOAuthCliTest, ALegacySseServerSignsInTheSameWay) {
  OAuthMcpServer server("", /*legacy=*/true);
  configure(server);
  CliRun before = keel({"mcp", "call", "guarded", "whoami"});
  EXPECT_EQ(before.exit_code, 4) << before.out << before.err;
  EXPECT_NE(before.err.find("keel mcp login guarded"), std::string::npos) << before.err;

  CliRun login = login_as_browser();
  ASSERT_EQ(login.exit_code, 0) << login.out << login.err;
  CliRun call = keel({"mcp", "call", "guarded", "whoami"});
  EXPECT_EQ(call.exit_code, 0) << call.err;
  EXPECT_NE(call.out.find("signed-in caller"), std::string::npos) << call.out;
  server.revoke_access_tokens();
  CliRun refreshed = keel({"mcp", "call", "guarded", "whoami"});
  EXPECT_EQ(refreshed.exit_code, 0) << refreshed.err;
  EXPECT_EQ(server.authorizations(), 1) << "a refresh, not a sign-in";
  EXPECT_EQ(server.token_grants(), (std::vector<std::string>{"authorization_code", "refresh_token"}));
}

TEST_F(McpOAuthCliTest, AStoredSignInOthersCanReadIsRefused) {
  OAuthMcpServer server;
  configure(server);
  ASSERT_EQ(login_as_browser().exit_code, 0);
  std::filesystem::path file = oauth_file();
  ASSERT_FALSE(file.empty());
  ::chmod(file.c_str(), 0644);
  CliRun call = keel({"mcp", "call", "guarded", "whoami"});
  EXPECT_EQ(call.exit_code, 4);
  EXPECT_NE(call.err.find("others may read"), std::string::npos) << call.err;
}

TEST_F(McpOAuthCliTest, MetadataForAnotherResourceGetsNoToken) {
  OAuthMcpServer server("https://elsewhere.example/mcp");
  configure(server);
  CliRun login = login_as_browser(false);
  EXPECT_EQ(login.exit_code, 4) << login.out;
  EXPECT_NE(login.err.find("is for https://elsewhere.example/mcp"), std::string::npos) << login.err;
  EXPECT_NE(login.err.find("guarded"), std::string::npos) << login.err;
  EXPECT_EQ(server.authorizations(), 0);
  EXPECT_TRUE(oauth_file().empty()) << "nothing is stored";
}

TEST_F(McpOAuthCliTest, ATokenEndpointErrorIsReportedByNameAndNoTokenIsKept) {
  OAuthMcpServer server;
  server.refuse_tokens();
  configure(server);
  CliRun login = login_as_browser();
  EXPECT_EQ(login.exit_code, 4) << login.out;
  EXPECT_NE(login.err.find("MCP server 'guarded'"), std::string::npos) << login.err;
  EXPECT_NE(login.err.find("access_denied: the user is suspended"), std::string::npos) << login.err;
  std::filesystem::path file = oauth_file();
  if (!file.empty()) {  // the client registration may be kept; no token is
    json stored = json::parse(std::ifstream(file));
    EXPECT_EQ(stored["tokens"]["access_token"], "");
  }
}

TEST_F(McpOAuthCliTest, AServerWaitingForASignInDoesNotStopTheOthers) {
  OAuthMcpServer server;
  json servers = {{"guarded", {{"type", "http"}, {"url", server.url()}}},
                  {"plain", {{"command", KEEL_BINARY}, {"args", {"mcp", "serve", "--no-agent", "-w", ws_.path().string()}}}}};
  home_.write("xdg/keel/config.yaml", "mcpServers: " + servers.dump() + "\n");
  CliRun list = keel({"mcp", "list", "--json"});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  json status = json::parse(list.out);
  ASSERT_EQ(status.size(), 2u);
  for (const json& s : status) {
    if (s["name"] == "guarded") {
      EXPECT_EQ(s["state"], "failed");
      EXPECT_NE(s["error"].get<std::string>().find("keel mcp login guarded"), std::string::npos) << s;
    } else {
      EXPECT_EQ(s["state"], "connected") << s;
    }
  }
}

TEST_F(McpOAuthCliTest, OAuthSettingsAreChecked) {
  home_.write("xdg/keel/config.yaml",
              R"(mcpServers: {"guarded": {"type": "http", "url": "http://127.0.0.1:1/mcp", "oauth": {"clientSecret": "s"}}})"
              "\n");
  CliRun list = keel({"mcp", "list"});
  EXPECT_EQ(list.exit_code, 2);
  EXPECT_NE(list.err.find("clientSecret needs clientId"), std::string::npos) << list.err;

  home_.write("xdg/keel/config.yaml", R"(mcpServers: {"local": {"command": "/bin/true"}})"
                                      "\n");
  CliRun login = keel({"mcp", "login", "local"});
  EXPECT_EQ(login.exit_code, 2);
  EXPECT_NE(login.err.find("only HTTP servers sign in with OAuth"), std::string::npos) << login.err;
}

}  // namespace
}  // namespace keel
