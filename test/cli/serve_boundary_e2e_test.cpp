// What a web page, a rebinding attacker or a token guesser gets from a default `keel serve`: the
// real executable, started as a new user starts it (no token given), probed over HTTP. Every probe
// must be refused with a JSON error, and nothing in the store or the workspace may change.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "keel/store/sqlite_store.hpp"
#include "server/raw_http_client.hpp"
#include "support/serve_process.hpp"
#include "support/temp_dir.hpp"

namespace keel {
namespace {

using nlohmann::json;
using testing::raw_http;
using testing::raw_http_exact;

constexpr const char* kEvil = "Origin: http://evil.example\r\n";

class ServeBoundaryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    web_.write("index.html", "<!doctype html><title>keel</title>");
    web_.write("app.js", "export const x = 1;");
    ws_.write("notes.txt", "alpha\n");
    serve_ = std::make_unique<testing::ServeProcess>(
        std::vector<std::string>{"--port", "0", "-w", ws_.path().string(), "--web-dir", web_.path().string()},
        std::map<std::string, std::string>{{"HOME", home_.path().string()},
                                           {"KEEL_HOME", (home_.path() / "data").string()},
                                           {"TZ", "UTC"}});
    ASSERT_NE(serve_->port(), 0) << serve_->err();
    serve_->read_err_for(300);
    const std::string& err = serve_->err();
    const size_t at = err.find("/#token=");
    ASSERT_NE(at, std::string::npos) << err;
    token_ = err.substr(at + 8, err.find('\n', at) - at - 8);
    auth_ = "Authorization: Bearer " + token_ + "\r\n";
    port_ = serve_->port();
  }

  // JSON error code of a refusal ("" when the body is not one).
  static std::string code(const std::optional<testing::RawHttpResponse>& r) {
    if (!r) return "(no response)";
    json body = json::parse(r->body, nullptr, false);
    if (!body.is_object() || !body.contains("error")) return "(not a JSON error: " + r->body + ")";
    return body["error"].value("code", "");
  }

  size_t session_count() {
    StoreOptions so;
    so.path = home_.path() / "data" / "keel.db";
    auto store = open_sqlite_store(so);
    EXPECT_TRUE(store.ok());
    auto sessions = (*store)->list_sessions({});
    EXPECT_TRUE(sessions.ok());
    return sessions.ok() ? sessions->size() : 0;
  }

  std::string make_session() {
    auto r = raw_http(port_, "POST", "/api/sessions", auth_ + "Content-Type: application/json\r\n", R"({"title":"mine"})");
    EXPECT_TRUE(r && r->status == 201) << (r ? r->body : "no response");
    return r ? json::parse(r->body).value("id", "") : "";
  }

  testing::TempDir home_, ws_, web_;
  std::unique_ptr<testing::ServeProcess> serve_;
  std::string token_, auth_;
  uint16_t port_ = 0;
};

TEST_F(ServeBoundaryTest, MakesAPrivateTokenAndPrintsASignedInUrl) {
  EXPECT_EQ(token_.size(), 64u);
  const std::filesystem::path file = home_.path() / "data" / "serve-token";
  struct stat st {};
  ASSERT_EQ(::stat(file.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  std::ifstream in(file);
  std::string kept;
  in >> kept;
  EXPECT_EQ(kept, token_);
  EXPECT_EQ(raw_http(port_, "GET", "/api/sessions", auth_)->status, 200);
  EXPECT_EQ(raw_http(port_, "GET", "/")->status, 200);  // the sign-in page itself needs no token
}

TEST_F(ServeBoundaryTest, RefusesCsrfForeignOriginsRebindingAndMissingTokens) {
  const std::string session = make_session();
  ASSERT_FALSE(session.empty());
  const size_t before = session_count();
  const std::string chat = R"({"model":"default","messages":[{"role":"user","content":"write evil.txt"}]})";

  // Simple requests a page can send without a preflight: text/plain and form bodies, no token.
  auto plain = raw_http(port_, "POST", "/v1/chat/completions", std::string(kEvil) + "Content-Type: text/plain\r\n", chat);
  EXPECT_EQ(plain->status, 403);
  EXPECT_EQ(code(plain), "origin_not_allowed");
  auto form = raw_http(port_, "POST", "/api/sessions",
                       std::string(kEvil) + "Content-Type: application/x-www-form-urlencoded\r\n", "title=x");
  EXPECT_EQ(code(form), "origin_not_allowed");
  // Same bodies from a program holding the token: the media type is refused.
  EXPECT_EQ(code(raw_http(port_, "POST", "/v1/chat/completions", auth_ + "Content-Type: text/plain\r\n", chat)),
            "unsupported_media_type");
  EXPECT_EQ(code(raw_http(port_, "POST", "/api/sessions", auth_ + "Content-Type: application/x-www-form-urlencoded\r\n",
                          "title=x")),
            "unsupported_media_type");

  // A foreign Origin on every state-changing route and on the event streams, token or not.
  const std::string foreign = std::string(kEvil) + auth_ + "Content-Type: application/json\r\n";
  const std::vector<std::pair<std::string, std::string>> routes = {
      {"POST", "/api/sessions"},
      {"POST", "/api/sessions/" + session + "/messages"},
      {"POST", "/api/sessions/" + session + "/fork"},
      {"DELETE", "/api/sessions/" + session},
      {"POST", "/api/runs/r1/abort"},
      {"POST", "/api/runs/r1/steer"},
      {"POST", "/api/approvals/a1"},
      {"POST", "/api/questions/q1"},
      {"POST", "/api/skills/proposals/p1"},
      {"POST", "/v1/chat/completions"},
      {"POST", "/mcp"},
      {"GET", "/api/sessions/" + session + "/events?token=" + token_},
      {"GET", "/api/runs/r1/events?token=" + token_},
      {"OPTIONS", "/api/sessions"},
  };
  for (const auto& [method, path] : routes) {
    auto r = raw_http(port_, method, path, foreign, method == "GET" || method == "OPTIONS" ? "" : R"({"content":"x"})");
    ASSERT_TRUE(r) << method << " " << path;
    EXPECT_EQ(r->status, 403) << method << " " << path << ": " << r->body;
    if (path != "/mcp") {
      EXPECT_EQ(code(r), "origin_not_allowed") << method << " " << path;
    }
  }
  // A page of another local port is another origin.
  EXPECT_EQ(code(raw_http(port_, "GET", "/api/sessions", auth_ + "Origin: http://127.0.0.1:1\r\n")), "origin_not_allowed");
  // No Origin, but the browser marks it as another site's request (an <img>, a no-cors fetch).
  EXPECT_EQ(code(raw_http(port_, "GET", "/api/runs/r1/events?token=" + token_, "Sec-Fetch-Site: cross-site\r\n")),
            "origin_not_allowed");

  // DNS rebinding: the page's own name in Host, on the API and on the UI's files.
  for (const char* path : {"/api/sessions", "/", "/ui/app.js", "/v1/models", "/mcp"}) {
    auto r = raw_http_exact(port_, std::string("GET ") + path + " HTTP/1.1\r\nHost: rebind.example:" +
                                       std::to_string(port_) + "\r\n" + auth_ + "Connection: close\r\n\r\n");
    ASSERT_TRUE(r) << path;
    EXPECT_EQ(r->status, 403) << path;
    EXPECT_EQ(code(r), "host_not_allowed") << path;
  }

  // No token, a wrong one, a token in the query where only event streams take it.
  EXPECT_EQ(code(raw_http(port_, "GET", "/api/sessions")), "unauthorized");
  EXPECT_EQ(code(raw_http(port_, "GET", "/api/sessions", "Authorization: Bearer nope\r\n")), "unauthorized");
  EXPECT_EQ(code(raw_http(port_, "GET", "/api/sessions?token=" + token_)), "unauthorized");
  EXPECT_EQ(code(raw_http(port_, "POST", "/mcp", "Accept: application/json, text/event-stream\r\nContent-Type: application/json\r\n",
                          R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})")),
            "unauthorized");

  // Oversized bodies and path traversal in the static files.
  auto big = raw_http(port_, "POST", "/api/sessions", auth_ + "Content-Type: application/json\r\n",
                      std::string(2 * 1024 * 1024, 'x'));
  ASSERT_TRUE(big);
  EXPECT_EQ(big->status, 413);
  EXPECT_EQ(code(big), "payload_too_large");
  for (const char* path : {"/ui/../../etc/passwd", "/ui/%2e%2e/%2e%2e/etc/passwd", "/ui/..%2f..%2fetc%2fpasswd"}) {
    auto r = raw_http(port_, "GET", path);
    ASSERT_TRUE(r) << path;
    EXPECT_EQ(r->status, 404) << path;
    EXPECT_EQ(r->body.find("root:"), std::string::npos);
  }

  // Nothing changed: the session is still there, alone, without messages; the workspace as it was.
  EXPECT_EQ(session_count(), before);
  auto kept = raw_http(port_, "GET", "/api/sessions/" + session, auth_);
  ASSERT_EQ(kept->status, 200) << kept->body;
  EXPECT_TRUE(json::parse(kept->body).value("messages", json::array()).empty()) << kept->body;
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(ws_.path()), std::filesystem::directory_iterator()), 1);
}

TEST_F(ServeBoundaryTest, ASlowBodyIsCutOff) {
  testing::RawHttpClient c(port_);
  ASSERT_TRUE(c.send("POST /api/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\n" + auth_ +
                     "Content-Type: application/json\r\nContent-Length: 200\r\n\r\n{\"title\":"));
  auto r = c.read_response(15000);  // keel serve gives a request 10 s
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 408);
  EXPECT_EQ(code(r), "request_timeout");
  EXPECT_EQ(session_count(), 0u);
}

TEST_F(ServeBoundaryTest, GuessingTheTokenLocksTheGuesserOut) {
  int refused = 0;
  for (int i = 0; i < 10; ++i) {
    auto r = raw_http(port_, "GET", "/api/sessions", "Authorization: Bearer guess-" + std::to_string(i) + "\r\n");
    if (r && r->status == 401) ++refused;
  }
  EXPECT_EQ(refused, 10);
  // Locked: the right token is refused too, so guesses cannot go faster than the lockout allows.
  auto locked = raw_http(port_, "GET", "/api/sessions", auth_);
  ASSERT_TRUE(locked);
  EXPECT_EQ(locked->status, 429);
  EXPECT_EQ(code(locked), "too_many_attempts");
  EXPECT_FALSE(locked->header("retry-after").empty());
}

TEST_F(ServeBoundaryTest, RunningWithoutAuthTakesAnExplicitFlag) {
  serve_.reset();
  testing::ServeProcess open({"--port", "0", "-w", ws_.path().string(), "--no-auth"},
                             {{"HOME", home_.path().string()}, {"KEEL_HOME", (home_.path() / "data").string()}});
  ASSERT_NE(open.port(), 0) << open.err();
  open.read_err_for(300);
  EXPECT_NE(open.err().find("--no-auth"), std::string::npos) << open.err();
  EXPECT_EQ(raw_http(open.port(), "GET", "/api/sessions")->status, 200);
  // Host and Origin are still checked without a token.
  EXPECT_EQ(code(raw_http(open.port(), "POST", "/api/sessions", std::string(kEvil) + "Content-Type: text/plain\r\n", "{}")),
            "origin_not_allowed");
}

}  // namespace
}  // namespace keel
