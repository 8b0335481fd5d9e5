// The checks every request to a keel server passes first (server/access_guard.hpp) and their
// parts: the Host/Origin policy, the bearer token, the lockout after wrong tokens.
#include "server/access_guard.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>

#include "base/random_token.hpp"
#include "server/bearer_token.hpp"
#include "server/host_origin_policy.hpp"

namespace keel::server {
namespace {

TEST(HostOriginPolicy, HostWithoutPort) {
  EXPECT_EQ(host_without_port("LocalHost:8080"), "localhost");
  EXPECT_EQ(host_without_port("[::1]:80"), "[::1]");
  EXPECT_EQ(host_without_port("[::1]"), "[::1]");
  EXPECT_EQ(host_without_port("127.0.0.1"), "127.0.0.1");
  EXPECT_EQ(host_without_port(""), "");
}

TEST(HostOriginPolicy, LoopbackAcceptsOnlyLocalNamesAndItsOwnOrigin) {
  const HostOriginPolicy p = make_host_origin_policy("127.0.0.1", {}, {});
  EXPECT_EQ(check_host(p, "localhost:1"), "");
  EXPECT_EQ(check_host(p, "[::1]:9"), "");
  EXPECT_NE(check_host(p, "rebind.example"), "");
  EXPECT_NE(check_host(p, "rebind.example:8080"), "");
  EXPECT_NE(check_host(p, ""), "");
  EXPECT_EQ(check_origin(p, "127.0.0.1:8080", "http://127.0.0.1:8080"), "");
  EXPECT_EQ(check_origin(p, "localhost:8080", "http://LOCALHOST:8080/"), "");
  // Another local port is another origin: a dev server's page may not drive keel.
  EXPECT_NE(check_origin(p, "127.0.0.1:8080", "http://localhost:3000"), "");
  EXPECT_NE(check_origin(p, "127.0.0.1:8080", "http://127.0.0.1:3000"), "");
  EXPECT_NE(check_origin(p, "localhost:8080", "http://evil.example"), "");
  EXPECT_NE(check_origin(p, "localhost:8080", "http://localhost.evil.example:8080"), "");
  EXPECT_NE(check_origin(p, "localhost:8080", "file://localhost:8080"), "");
  EXPECT_NE(check_origin(p, "localhost:8080", "null"), "");
  EXPECT_NE(check_origin(p, "localhost:8080", ""), "");
  // The rebinding page's own origin matches its Host, but the Host is not allowed.
  EXPECT_NE(check_origin(p, "rebind.example:8080", "http://rebind.example:8080"), "");
  EXPECT_EQ(make_host_origin_policy("::1", {}, {}).hosts.size(), 3u);
}

TEST(HostOriginPolicy, ListedOriginsAndOpenBind) {
  const HostOriginPolicy p = make_host_origin_policy("0.0.0.0", {}, {"https://App.example.com/"});
  EXPECT_TRUE(p.hosts.empty());
  EXPECT_EQ(check_host(p, "box.lan:8080"), "");
  EXPECT_EQ(check_origin(p, "box.lan:8080", "http://box.lan:8080"), "");
  EXPECT_EQ(check_origin(p, "box.lan:8080", "https://app.example.com"), "");
  EXPECT_TRUE(origin_listed(p, "https://APP.example.com"));
  EXPECT_FALSE(origin_listed(p, "http://box.lan:8080"));
  EXPECT_NE(check_origin(p, "box.lan:8080", "http://evil.example"), "");
  const HostOriginPolicy any = make_host_origin_policy("127.0.0.1", {"::1", "Keel.example"}, {"*"});
  EXPECT_EQ(any.hosts, (std::vector<std::string>{"[::1]", "keel.example"}));
  EXPECT_NE(check_host(any, "localhost"), "");
  EXPECT_EQ(check_origin(any, "keel.example", "http://anything.example"), "");
}

TEST(BearerToken, ComparesWholeTokensAndParsesTheScheme) {
  EXPECT_TRUE(same_secret("abc123", "abc123"));
  EXPECT_FALSE(same_secret("abc12", "abc123"));
  EXPECT_FALSE(same_secret("abc1234", "abc123"));
  EXPECT_FALSE(same_secret("abc124", "abc123"));
  EXPECT_FALSE(same_secret("", ""));
  EXPECT_EQ(bearer_credential("Bearer abc"), "abc");
  EXPECT_EQ(bearer_credential("bEaReR  abc "), "abc");
  EXPECT_EQ(bearer_credential("Basic abc"), "");
  EXPECT_EQ(bearer_credential("Bearer "), "");
  EXPECT_EQ(bearer_credential(""), "");
}

TEST(BearerToken, NewTokensAreLongAndDistinct) {
  std::set<std::string> seen;
  for (int i = 0; i < 64; ++i) {
    const std::string t = detail::random_hex(32);
    EXPECT_EQ(t.size(), 64u);
    EXPECT_EQ(t.find_first_not_of("0123456789abcdef"), std::string::npos);
    seen.insert(t);
  }
  EXPECT_EQ(seen.size(), 64u);
}

TEST(AuthThrottle, LocksAnAddressOutAfterRepeatedFailuresAndDoublesTheLockout) {
  AuthThrottleOptions o;
  o.max_failures = 3;
  o.window_ms = 1000;
  o.lockout_ms = 100;
  AuthThrottle t(o);
  t.failed("10.0.0.1", 0);
  t.failed("10.0.0.1", 10);
  EXPECT_EQ(t.wait_ms("10.0.0.1", 20), 0);
  t.failed("10.0.0.1", 20);
  EXPECT_EQ(t.wait_ms("10.0.0.1", 20), 100);
  EXPECT_EQ(t.wait_ms("10.0.0.2", 20), 0);  // other addresses are not affected
  EXPECT_EQ(t.wait_ms("10.0.0.1", 120), 0);
  for (int i = 0; i < 3; ++i) t.failed("10.0.0.1", 130);
  EXPECT_EQ(t.wait_ms("10.0.0.1", 130), 200);
  // Failures spread wider than the window do not add up.
  t.failed("10.0.0.3", 0);
  t.failed("10.0.0.3", 1500);
  t.failed("10.0.0.3", 3000);
  EXPECT_EQ(t.wait_ms("10.0.0.3", 3000), 0);
  EXPECT_EQ(address_without_port("127.0.0.1:5000"), "127.0.0.1");
  EXPECT_EQ(address_without_port("[::1]:5000"), "[::1]");
}

TEST(PathMatches, Globs) {
  EXPECT_TRUE(path_matches("/", "/"));
  EXPECT_FALSE(path_matches("/", "/x"));
  EXPECT_TRUE(path_matches("/ui/*", "/ui/app.js"));
  EXPECT_TRUE(path_matches("/ui/*", "/ui/"));
  EXPECT_FALSE(path_matches("/ui/*", "/uix"));
  EXPECT_TRUE(path_matches("/api/*/events", "/api/runs/r1/events"));
  EXPECT_FALSE(path_matches("/api/*/events", "/api/runs/r1/events/x"));
  EXPECT_TRUE(path_matches("/v1/*", "/v1/chat/completions"));
}

// A responder that records what the guard sent.
class RecordingResponder final : public HttpResponder {
 public:
  void respond(int s, HttpHeaders h, std::string b) override {
    status = s;
    headers = std::move(h);
    body = std::move(b);
  }
  void start_stream(int, HttpHeaders) override {}
  bool write(std::string) override { return false; }
  void end() override {}
  void on_close(std::function<void()>) override {}
  bool closed() const override { return false; }
  std::string code() const { return nlohmann::json::parse(body)["error"]["code"].get<std::string>(); }
  std::string header(const std::string& name) const {
    for (const auto& [k, v] : headers) {
      if (k == name) return v;
    }
    return "";
  }
  int status = 0;
  HttpHeaders headers;
  std::string body;
};

HttpRequest request(std::string method, std::string path, std::vector<std::pair<std::string, std::string>> headers,
                    std::string body = "") {
  HttpRequest r;
  r.method = std::move(method);
  r.path = std::move(path);
  r.target = r.path;
  r.remote_address = "127.0.0.1:40000";
  r.headers["Host"] = "127.0.0.1:8080";
  for (auto& [k, v] : headers) r.headers[k] = v;
  r.body = std::move(body);
  return r;
}

class AccessGuardTest : public ::testing::Test {
 protected:
  AccessGuardTest() {
    AccessGuardOptions o;
    o.hosts = make_host_origin_policy("127.0.0.1", {}, {"https://app.example"});
    o.token = "t0ken-t0ken";
    o.public_paths = {"/", "/ui/*"};
    o.json_paths = {"/api/*", "/v1/*"};
    o.query_token_paths = {"/api/*/events"};
    o.throttle.max_failures = 3;
    o.throttle.lockout_ms = 60000;
    guard_ = std::make_unique<AccessGuard>(o);
  }
  // The error code of a refusal, "" when admitted.
  std::string verdict(const HttpRequest& r) {
    last_.status = 0;
    last_.headers.clear();
    last_.body.clear();
    return guard_->admit(r, last_) ? "" : last_.code();
  }
  std::unique_ptr<AccessGuard> guard_;
  RecordingResponder last_;
  const std::pair<std::string, std::string> auth_{"Authorization", "Bearer t0ken-t0ken"};
  const std::pair<std::string, std::string> json_{"Content-Type", "application/json"};
};

TEST_F(AccessGuardTest, AdmitsTheTokenHolderAndThePublicFiles) {
  EXPECT_EQ(verdict(request("GET", "/api/sessions", {auth_})), "");
  EXPECT_EQ(verdict(request("POST", "/api/sessions", {auth_, json_}, "{}")), "");
  EXPECT_EQ(verdict(request("POST", "/api/sessions", {auth_, {"Origin", "http://127.0.0.1:8080"}, json_}, "{}")), "");
  EXPECT_EQ(verdict(request("GET", "/", {})), "");
  EXPECT_EQ(verdict(request("GET", "/ui/app.js", {{"Sec-Fetch-Site", "same-origin"}})), "");
  EXPECT_EQ(verdict(request("GET", "/api/runs/r/events?token=x", {})), "unauthorized");
  HttpRequest events = request("GET", "/api/runs/r/events", {});
  events.query["token"] = "t0ken-t0ken";
  EXPECT_EQ(verdict(events), "");
  HttpRequest elsewhere = request("GET", "/api/sessions", {});
  elsewhere.query["token"] = "t0ken-t0ken";
  EXPECT_EQ(verdict(elsewhere), "unauthorized");  // the query token counts on event streams only
  EXPECT_EQ(verdict(request("OPTIONS", "/api/sessions", {{"Origin", "https://app.example"}})), "");
}

TEST_F(AccessGuardTest, RefusesForeignHostsAndPages) {
  HttpRequest rebound = request("GET", "/api/sessions", {auth_});
  rebound.headers["Host"] = "rebind.example:8080";
  EXPECT_EQ(verdict(rebound), "host_not_allowed");
  EXPECT_EQ(last_.status, 403);
  HttpRequest rebound_ui = request("GET", "/", {});
  rebound_ui.headers["Host"] = "rebind.example";
  EXPECT_EQ(verdict(rebound_ui), "host_not_allowed");
  // A simple-request CSRF: text/plain from another origin, even with a token the page guessed right.
  EXPECT_EQ(verdict(request("POST", "/v1/chat/completions", {auth_, {"Origin", "http://evil.example"},
                                                             {"Content-Type", "text/plain"}}, "{}")),
            "origin_not_allowed");
  EXPECT_EQ(verdict(request("GET", "/api/runs/r/events", {{"Origin", "http://evil.example"}})), "origin_not_allowed");
  EXPECT_EQ(verdict(request("OPTIONS", "/api/sessions", {{"Origin", "http://evil.example"}})), "origin_not_allowed");
  // No Origin, but the browser says another site's page sent it (an <img>, a no-cors fetch).
  EXPECT_EQ(verdict(request("GET", "/api/sessions", {auth_, {"Sec-Fetch-Site", "cross-site"}})), "origin_not_allowed");
  EXPECT_EQ(verdict(request("GET", "/ui/app.js", {{"Sec-Fetch-Site", "same-site"}})), "origin_not_allowed");
  // A link from elsewhere to the web UI is a navigation: allowed.
  EXPECT_EQ(verdict(request("GET", "/", {{"Sec-Fetch-Site", "cross-site"}, {"Sec-Fetch-Mode", "navigate"}})), "");
  // A listed origin is admitted and its refusals carry CORS headers so its page can read them.
  EXPECT_EQ(verdict(request("GET", "/api/sessions", {{"Origin", "https://app.example"}})), "unauthorized");
  EXPECT_EQ(last_.header("Access-Control-Allow-Origin"), "https://app.example");
}

TEST_F(AccessGuardTest, JsonRoutesRefuseOtherMediaTypes) {
  EXPECT_EQ(verdict(request("POST", "/api/sessions", {auth_, {"Content-Type", "text/plain"}}, "{}")),
            "unsupported_media_type");
  EXPECT_EQ(last_.status, 415);
  EXPECT_EQ(verdict(request("POST", "/api/sessions", {auth_, {"Content-Type", "application/x-www-form-urlencoded"}},
                            "a=b")),
            "unsupported_media_type");
  EXPECT_EQ(verdict(request("POST", "/api/sessions", {auth_}, "{}")), "unsupported_media_type");
  EXPECT_EQ(verdict(request("POST", "/api/sessions", {auth_, {"Content-Type", "Application/JSON; charset=utf-8"}}, "{}")),
            "");
  EXPECT_EQ(verdict(request("POST", "/api/runs/r/abort", {auth_})), "");  // no body, nothing to misread
}

TEST_F(AccessGuardTest, MissingAndWrongTokensAndTheLockout) {
  EXPECT_EQ(verdict(request("GET", "/api/sessions", {})), "unauthorized");
  EXPECT_EQ(last_.header("WWW-Authenticate"), "Bearer");
  // Missing tokens never lock anyone out.
  for (int i = 0; i < 5; ++i) EXPECT_EQ(verdict(request("GET", "/api/sessions", {})), "unauthorized");
  EXPECT_EQ(verdict(request("GET", "/api/sessions", {auth_})), "");
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(verdict(request("GET", "/api/sessions", {{"Authorization", "Bearer guess" + std::to_string(i)}})),
              "unauthorized");
  }
  // Locked: even the right token waits, so guessing cannot go faster than the lockout allows.
  EXPECT_EQ(verdict(request("GET", "/api/sessions", {auth_})), "too_many_attempts");
  EXPECT_EQ(last_.status, 429);
  EXPECT_EQ(last_.header("Retry-After"), "60");
  HttpRequest other = request("GET", "/api/sessions", {auth_});
  other.remote_address = "[::1]:5000";
  EXPECT_EQ(verdict(other), "");
}

}  // namespace
}  // namespace keel::server
