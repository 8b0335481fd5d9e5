// net/curl_easy and net/curl_multi against a local file server: the shared options, the hooks
// (and that each can end a transfer), redirects, failure classification, and a multi-driven
// transfer that a stop request or keep_going ends promptly.
#include "net/curl_easy.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <stdexcept>
#include <stop_token>
#include <string>
#include <thread>

#include "net/curl_multi.hpp"
#include "support/range_http_server.hpp"

namespace keel::detail {
namespace {

using keel::testing::RangeFile;
using keel::testing::RangeHttpServer;
using std::chrono::milliseconds;

struct Collected {
  std::string head;
  std::string body;
  CurlHooks hooks;
  Collected() {
    hooks.on_header = [this](std::string_view line) {
      head.append(line);
      return true;
    };
    hooks.on_body = [this](std::string_view data) {
      body.append(data);
      return true;
    };
  }
};

CurlTransfer transfer_of(const std::string& url, CurlHooks* hooks) {
  CurlTransfer t;
  t.url = url;
  t.connect_timeout_ms = 5000;
  t.total_timeout_ms = 10000;
  t.hooks = hooks;
  return t;
}

class CurlEasyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_NE(server_.port(), 0);
    RangeFile f;
    f.body = "hello, world";
    f.headers = {{"X-Test", "yes"}};
    server_.serve_file("/file", f);
  }
  RangeHttpServer server_;
};

TEST_F(CurlEasyTest, SharedOptionsHeadersAndHooks) {
  CurlEasy easy;
  ASSERT_TRUE(easy.ok());
  Collected c;
  CurlList headers;
  ASSERT_TRUE(headers.append("X-Asked: 1"));
  CurlTransfer t = transfer_of(server_.url("/file"), &c.hooks);
  t.headers = headers.get();
  easy.prepare(t);
  ASSERT_EQ(curl_easy_perform(easy.get()), CURLE_OK) << easy.error_text();
  EXPECT_EQ(c.body, "hello, world");
  EXPECT_NE(c.head.find("X-Test: yes\r\n"), std::string::npos) << c.head;
  ASSERT_EQ(server_.requests().size(), 1u);
  EXPECT_EQ(server_.requests()[0].headers.at("user-agent"), kKeelUserAgent);
  EXPECT_EQ(server_.requests()[0].headers.at("x-asked"), "1");

  t.user_agent = "other-agent";
  t.headers = nullptr;
  easy.prepare(t);  // a reset: the header list and agent of the last transfer are gone
  ASSERT_EQ(curl_easy_perform(easy.get()), CURLE_OK) << easy.error_text();
  ASSERT_EQ(server_.requests().size(), 2u);
  EXPECT_EQ(server_.requests()[1].headers.at("user-agent"), "other-agent");
  EXPECT_EQ(server_.requests()[1].headers.count("x-asked"), 0u);
}

TEST_F(CurlEasyTest, EachHookCanEndTheTransfer) {
  CurlEasy easy;
  CurlHooks stop_body;
  stop_body.on_body = [](std::string_view) { return false; };
  easy.prepare(transfer_of(server_.url("/file"), &stop_body));
  EXPECT_EQ(curl_easy_perform(easy.get()), CURLE_WRITE_ERROR);

  CurlHooks stop_head;
  stop_head.on_header = [](std::string_view) { return false; };
  easy.prepare(transfer_of(server_.url("/file"), &stop_head));
  EXPECT_EQ(curl_easy_perform(easy.get()), CURLE_WRITE_ERROR);

  CurlHooks throws;
  throws.on_body = [](std::string_view) -> bool { throw std::runtime_error("no"); };
  easy.prepare(transfer_of(server_.url("/file"), &throws));
  EXPECT_EQ(curl_easy_perform(easy.get()), CURLE_WRITE_ERROR);

  CurlHooks unwanted;
  unwanted.keep_going = [] { return false; };
  easy.prepare(transfer_of(server_.url("/file"), &unwanted));
  EXPECT_EQ(curl_easy_perform(easy.get()), CURLE_ABORTED_BY_CALLBACK);

  easy.prepare(transfer_of(server_.url("/file"), nullptr));  // no hooks: the body is dropped
  EXPECT_EQ(curl_easy_perform(easy.get()), CURLE_OK);
}

TEST_F(CurlEasyTest, RedirectsAreFollowedOnlyWhenAsked) {
  server_.redirect("/moved", "/file");
  CurlEasy easy;
  Collected c;
  easy.prepare(transfer_of(server_.url("/moved"), &c.hooks));
  ASSERT_EQ(curl_easy_perform(easy.get()), CURLE_OK);
  long status = 0;
  curl_easy_getinfo(easy.get(), CURLINFO_RESPONSE_CODE, &status);
  EXPECT_EQ(status, 302);

  Collected followed;
  CurlTransfer t = transfer_of(server_.url("/moved"), &followed.hooks);
  t.max_redirects = 3;
  easy.prepare(t);
  ASSERT_EQ(curl_easy_perform(easy.get()), CURLE_OK);
  EXPECT_EQ(followed.body, "hello, world");
}

TEST(CurlFailureTest, SortsTheCommonFailures) {
  CurlEasy easy;
  ASSERT_TRUE(easy.ok());
  easy.prepare(transfer_of("ftp://127.0.0.1/x", nullptr));
  CURLcode rc = curl_easy_perform(easy.get());
  CurlFailure f = classify_curl_failure(easy.get(), rc, easy.error_text());
  EXPECT_EQ(f.kind, CurlFailure::Kind::kBadUrl) << f.detail;
  EXPECT_FALSE(f.detail.empty());

  // A port nobody listens on: a refused connection with the OS's words for it.
  int port = 0;
  {
    RangeHttpServer gone;
    port = gone.port();
  }
  easy.prepare(transfer_of("http://127.0.0.1:" + std::to_string(port) + "/", nullptr));
  rc = curl_easy_perform(easy.get());
  f = classify_curl_failure(easy.get(), rc, easy.error_text());
  EXPECT_EQ(f.kind, CurlFailure::Kind::kConnect) << f.detail;
  EXPECT_EQ(f.reason(), std::system_category().message(ECONNREFUSED));

  f = classify_curl_failure(easy.get(), CURLE_SSL_CONNECT_ERROR, "");
  EXPECT_EQ(f.kind, CurlFailure::Kind::kTls);
  EXPECT_EQ(f.detail, curl_easy_strerror(CURLE_SSL_CONNECT_ERROR));
  EXPECT_EQ(classify_curl_failure(easy.get(), CURLE_RECV_ERROR, "x").kind, CurlFailure::Kind::kConnectionBroken);
  EXPECT_EQ(classify_curl_failure(easy.get(), CURLE_GOT_NOTHING, "x").kind, CurlFailure::Kind::kNoReply);
  EXPECT_EQ(classify_curl_failure(easy.get(), CURLE_COULDNT_RESOLVE_HOST, "x").kind, CurlFailure::Kind::kResolve);
  EXPECT_EQ(classify_curl_failure(easy.get(), CURLE_BAD_CONTENT_ENCODING, "x").kind, CurlFailure::Kind::kBadEncoding);
  EXPECT_EQ(classify_curl_failure(easy.get(), CURLE_TOO_MANY_REDIRECTS, "x").kind, CurlFailure::Kind::kOther);
}

TEST_F(CurlEasyTest, TotalTimeoutAfterConnectingIsSortedAsSuch) {
  RangeFile slow;
  slow.body = std::string(1000, 'x');
  slow.stall_after = 10;
  server_.serve_file("/slow", slow);
  CurlEasy easy;
  CurlTransfer t = transfer_of(server_.url("/slow"), nullptr);
  t.total_timeout_ms = 200;
  easy.prepare(t);
  const CURLcode rc = curl_easy_perform(easy.get());
  const CurlFailure f = classify_curl_failure(easy.get(), rc, easy.error_text());
  EXPECT_EQ(f.kind, CurlFailure::Kind::kTimeout);
  EXPECT_TRUE(f.connected);
}

TEST_F(CurlEasyTest, MultiRunsATransferToItsEnd) {
  CurlEasy easy;
  CurlMulti multi;
  ASSERT_TRUE(multi.ok());
  Collected c;
  easy.prepare(transfer_of(server_.url("/file"), &c.hooks));
  auto ran = multi.run(easy.get(), std::stop_token(), milliseconds(25), [] { return true; });
  ASSERT_TRUE(ran.ok()) << ran.status().message();
  EXPECT_TRUE(ran->finished);
  EXPECT_EQ(ran->result, CURLE_OK);
  EXPECT_EQ(c.body, "hello, world");
}

TEST_F(CurlEasyTest, MultiEndsAtOnceOnAStopRequestOrWhenNotWanted) {
  RangeFile slow;
  slow.body = std::string(1000, 'x');
  slow.stall_after = 10;
  server_.serve_file("/slow", slow);
  CurlEasy easy;
  CurlMulti multi;
  std::stop_source stop;
  easy.prepare(transfer_of(server_.url("/slow"), nullptr));
  const auto start = std::chrono::steady_clock::now();
  std::thread stopper([&] {
    std::this_thread::sleep_for(milliseconds(100));
    stop.request_stop();
  });
  // A long poll interval: only the stop request's wake-up can end the wait early.
  auto ran = multi.run(easy.get(), stop.get_token(), milliseconds(5000), [&] { return !stop.stop_requested(); });
  stopper.join();
  ASSERT_TRUE(ran.ok());
  EXPECT_FALSE(ran->finished);
  EXPECT_LT(std::chrono::steady_clock::now() - start, milliseconds(2000));

  int asked = 0;
  easy.prepare(transfer_of(server_.url("/slow"), nullptr));
  ran = multi.run(easy.get(), std::stop_token(), milliseconds(10), [&] { return ++asked < 3; });
  ASSERT_TRUE(ran.ok());
  EXPECT_FALSE(ran->finished);
  EXPECT_EQ(asked, 3);
}

}  // namespace
}  // namespace keel::detail
