// The SSRF suite: every local, private, link-local, metadata or otherwise special destination is
// refused by default, in every spelling, behind DNS names and behind redirects; the explicit
// allow list is the only way through.
#include <gtest/gtest.h>

#include <cstdlib>

#include "tools/web/web_test_support.hpp"

namespace keel::testing {
namespace {

class SsrfTest : public WebToolsTest {
 protected:
  void SetUp() override {
    WebToolsTest::SetUp();
    options_.allowed.clear();  // the default: nothing bypasses the guard
  }

  std::string port() const { return std::to_string(server_.port()); }

  // Asserts that fetching `url` with `tool` is refused, naming `reason` and `names` (host/address).
  void expect_refused(std::string_view tool, const std::string& url, std::string_view reason,
                      std::string_view names = "") {
    SCOPED_TRACE(std::string(tool) + " " + url);
    Result<std::string> r = run(tool, {{"url", url}});
    ASSERT_FALSE(r.ok()) << r.value();
    EXPECT_EQ(r.status().code(), ErrorCode::kPermissionDenied) << r.status().to_string();
    EXPECT_NE(r.status().message().find(reason), std::string::npos) << r.status().message();
    if (!names.empty()) {
      EXPECT_NE(r.status().message().find(names), std::string::npos) << r.status().message();
    }
    EXPECT_NE(r.status().message().find("allowed"), std::string::npos) << "no hint how to allow it";
  }
};

TEST_F(SsrfTest, LoopbackIsRefusedEvenWhenAServerListensThere) {
  server_.route("/", html_page("<p>secret admin page</p>"));
  for (const char* tool : {"http_fetch", "web_fetch", "extract_links", "page_metadata"}) {
    expect_refused(tool, server_.url("/"), "loopback", "127.0.0.1");
  }
  EXPECT_EQ(server_.request_count(), 0u);
}

TEST_F(SsrfTest, PrivateLinkLocalAndSpecialAddressesAreRefused) {
  struct Case {
    std::string url;
    const char* reason;
    const char* names;
  };
  const Case cases[] = {
      {"http://127.1.2.3/", "loopback", "127.1.2.3"},
      {"http://[::1]:" + port() + "/", "loopback", "::1"},
      {"http://10.0.0.1/", "private network address (10.0.0.0/8)", "10.0.0.1"},
      {"http://172.16.0.1/", "private network address (172.16.0.0/12)", "172.16.0.1"},
      {"http://172.31.255.255/", "private network address (172.16.0.0/12)", "172.31.255.255"},
      {"http://192.168.1.1/", "private network address (192.168.0.0/16)", "192.168.1.1"},
      {"http://169.254.169.254/latest/meta-data/", "cloud metadata", "169.254.169.254"},
      {"http://169.254.10.10/", "link-local", "169.254.10.10"},
      {"http://100.64.1.1/", "CGNAT", "100.64.1.1"},
      {"http://0.0.0.0:" + port() + "/", "unspecified", "0.0.0.0"},
      {"http://[::ffff:127.0.0.1]:" + port() + "/", "IPv4-mapped IPv6 form of a loopback", "::ffff:127.0.0.1"},
      {"http://[fd00:ec2::254]/", "cloud metadata", "fd00:ec2::254"},
      {"http://[fe80::1]/", "link-local", "fe80::1"},
      {"http://[fd12:3456::1]/", "unique local", "fd12:3456::1"},
      {"http://224.0.0.251/", "multicast", "224.0.0.251"},
      {"http://255.255.255.255/", "broadcast", "255.255.255.255"},
      {"https://192.168.0.10/", "private", "192.168.0.10"},
  };
  for (const Case& c : cases) expect_refused("http_fetch", c.url, c.reason, c.names);
  expect_refused("web_fetch", "http://10.0.0.1/", "private");
  expect_refused("page_metadata", "http://169.254.169.254/", "cloud metadata");
}

TEST_F(SsrfTest, NumericSpellingsOfLoopbackAreRefused) {
  server_.route("/", html_page("<p>hi</p>"));
  for (const std::string host : {"2130706433", "0x7f000001", "0177.0.0.1", "0x7f.1", "127.1"}) {
    expect_refused("http_fetch", "http://" + host + ":" + port() + "/", "loopback", "127.0.0.1");
  }
  EXPECT_EQ(server_.request_count(), 0u);
}

TEST_F(SsrfTest, NamesAreCheckedAfterResolution) {
  server_.route("/", html_page("<p>hi</p>"));
  // localhost resolves to loopback addresses; the connection is refused at the socket.
  expect_refused("http_fetch", "http://localhost:" + port() + "/", "loopback", "localhost");
  // Test seam: resolve_overrides stands in for DNS answers pointing at private addresses.
  options_.resolve_overrides = {"internal.example.test:80:10.1.2.3", "rebind.example.test:" + port() + ":127.0.0.1",
                                "v6.example.test:80:[fd00::5]"};
  registry_ = ToolRegistry();
  expect_refused("http_fetch", "http://internal.example.test/", "private", "internal.example.test (10.1.2.3)");
  expect_refused("web_fetch", "http://rebind.example.test:" + port() + "/", "loopback", "rebind.example.test");
  expect_refused("http_fetch", "http://v6.example.test/", "unique local", "fd00::5");
  EXPECT_EQ(server_.request_count(), 0u);
}

TEST_F(SsrfTest, MetadataHostNamesAreRefusedByName) {
  expect_refused("http_fetch", "http://metadata.google.internal/computeMetadata/v1/", "metadata",
                 "metadata.google.internal");
  expect_refused("web_fetch", "http://metadata/computeMetadata/v1/", "metadata");
  expect_refused("http_fetch", "http://METADATA.Google.Internal./", "metadata");
}

class SsrfRedirectTest : public SsrfTest {
 protected:
  void SetUp() override {
    SsrfTest::SetUp();
    options_.allowed = {"127.0.0.1"};  // the test server itself is allowed; where it redirects is not
    options_.resolve_overrides = {"intranet.example.test:80:192.168.7.7"};
  }
};

TEST_F(SsrfRedirectTest, RedirectsToPrivateDestinationsAreRefusedBeforeConnecting) {
  server_.route("/to-metadata", redirect_to("http://169.254.169.254/latest/meta-data/iam/"));
  server_.route("/to-v6-loopback", redirect_to("http://[::1]:" + port() + "/secret", 301));
  server_.route("/to-private", redirect_to("http://10.0.0.5/admin", 307));
  server_.route("/to-name", redirect_to("http://intranet.example.test/", 308));
  server_.route("/to-metadata-name", redirect_to("http://metadata.google.internal/computeMetadata/v1/", 303));
  server_.route("/hop1", redirect_to("/hop2"));
  server_.route("/hop2", redirect_to("http://172.20.0.1/"));
  server_.route("/secret", html_page("<p>must not be reached</p>"));

  const struct {
    const char* path;
    const char* reason;
  } cases[] = {
      {"/to-metadata", "cloud metadata"},      {"/to-v6-loopback", "loopback"},
      {"/to-private", "private"},              {"/to-name", "intranet.example.test (192.168.7.7)"},
      {"/to-metadata-name", "metadata"},       {"/hop2", "172.20.0.1"},
  };
  for (const auto& c : cases) {
    for (const char* tool : {"http_fetch", "web_fetch"}) {
      SCOPED_TRACE(std::string(tool) + " " + c.path);
      Result<std::string> r = run(tool, {{"url", server_.url(c.path)}});
      ASSERT_FALSE(r.ok()) << r.value();
      EXPECT_EQ(r.status().code(), ErrorCode::kPermissionDenied) << r.status().to_string();
      EXPECT_NE(r.status().message().find("redirect"), std::string::npos) << r.status().message();
      EXPECT_NE(r.status().message().find(c.reason), std::string::npos) << r.status().message();
    }
  }
  Result<std::string> chained = run("http_fetch", {{"url", server_.url("/hop1")}});
  ASSERT_FALSE(chained.ok());
  EXPECT_NE(chained.status().message().find("redirect 2"), std::string::npos) << chained.status().message();
  for (const RecordedHttpRequest& req : server_.requests()) EXPECT_NE(req.target, "/secret");
}

TEST_F(SsrfRedirectTest, RedirectsToOtherSchemesAreRefused) {
  server_.route("/to-file", redirect_to("file:///etc/passwd"));
  server_.route("/to-gopher", redirect_to("gopher://127.0.0.1:" + port() + "/_x"));
  server_.route("/to-ftp", redirect_to("ftp://127.0.0.1/pub/"));
  for (const char* path : {"/to-file", "/to-gopher", "/to-ftp"}) {
    Result<std::string> r = run("http_fetch", {{"url", server_.url(path)}});
    ASSERT_FALSE(r.ok()) << path;
    EXPECT_EQ(r.status().code(), ErrorCode::kPermissionDenied) << r.status().to_string();
    EXPECT_NE(r.status().message().find("http and https"), std::string::npos) << r.status().message();
  }
  EXPECT_EQ(server_.request_count(), 3u);
}

TEST_F(SsrfRedirectTest, AllowedTestServerIsReachable) {
  server_.route("/page", html_page("<h1>Reachable</h1>"));
  server_.route("/moved", redirect_to("/page"));
  Result<std::string> r = run("web_fetch", {{"url", server_.url("/moved")}});
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_NE(r.value().find("# Reachable"), std::string::npos) << r.value();
  EXPECT_EQ(server_.request_count(), 2u);
  // A name is checked address by address: localhost's ::1 is refused, its allowed 127.0.0.1 is used.
  r = run("web_fetch", {{"url", "http://localhost:" + port() + "/page"}});
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_NE(r.value().find("# Reachable"), std::string::npos) << r.value();
}

TEST_F(SsrfTest, CidrAndHostNameEntriesAllowDestinations) {
  server_.route("/", text_page("text/plain", "inside"));
  options_.allowed = {"127.0.0.0/8"};
  nlohmann::json out = run_json("http_fetch", {{"url", server_.url("/")}});
  EXPECT_EQ(out["body"], "inside");

  options_.allowed = {"trusted.example.test"};
  options_.resolve_overrides = {"trusted.example.test:" + port() + ":127.0.0.1"};
  registry_ = ToolRegistry();
  out = run_json("http_fetch", {{"url", "http://trusted.example.test:" + port() + "/"}});
  EXPECT_EQ(out["status"], 200);
  expect_refused("http_fetch", server_.url("/"), "loopback");  // the address itself is still not allowed
}

TEST_F(SsrfTest, ProxiesFromTheEnvironmentAreIgnored) {
  server_.route("/", text_page("text/plain", "direct"));
  options_.allowed = {"127.0.0.1"};
  // A proxy would hide the real destination from the guard; these must have no effect.
  ::setenv("http_proxy", "http://10.99.99.99:3128", 1);
  ::setenv("ALL_PROXY", "http://10.99.99.99:3128", 1);
  nlohmann::json out = run_json("http_fetch", {{"url", server_.url("/")}});
  ::unsetenv("http_proxy");
  ::unsetenv("ALL_PROXY");
  EXPECT_EQ(out["body"], "direct");
}

}  // namespace
}  // namespace keel::testing
