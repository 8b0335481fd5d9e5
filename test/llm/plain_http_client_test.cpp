// net/plain_http_client through HttpSession (plain http:// to an address goes this way): the
// request as the server reads it, one kept-alive connection for many requests, a fresh connection
// when the server closed the kept one, streamed chunked bodies, and every end (cut-off replies,
// silent servers, refused connections, timeouts, a stop request, a reader that has enough, a reply
// that is not HTTP) with the message and retry hints the callers act on. Also which URLs it takes.
#include "net/plain_http_client.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include "net/http_transport.hpp"
#include "net/plain_http_url.hpp"
#include "support/test_http_socket.hpp"

namespace keel::detail {
namespace {

using keel::testing::TestHttpConnection;
using keel::testing::TestHttpListener;
using keel::testing::TestHttpRequest;

std::string ok_reply(std::string_view body, std::string_view extra_headers = "") {
  return "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n" + std::string(extra_headers) +
         "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + std::string(body);
}

// A listener that records every request and answers each with `answer(connection, request)`;
// returning false ends the connection.
class Server {
 public:
  using Answer = std::function<bool(TestHttpConnection&, const TestHttpRequest&)>;
  explicit Server(Answer answer) : answer_(std::move(answer)) {
    EXPECT_TRUE(listener_.start([this](TestHttpConnection& c) {
      TestHttpRequest request;
      while (c.read_request(request)) {
        {
          std::lock_guard lock(mutex_);
          requests_.push_back(request);
        }
        if (!answer_(c, request)) return;
      }
    }));
  }
  ~Server() { listener_.stop(); }
  std::string url(std::string_view path = "/v1/x") const {
    return "http://127.0.0.1:" + std::to_string(listener_.port()) + std::string(path);
  }
  int port() const { return listener_.port(); }
  size_t connections() const { return listener_.connections_accepted(); }
  std::vector<TestHttpRequest> requests() {
    std::lock_guard lock(mutex_);
    return requests_;
  }

 private:
  Answer answer_;
  std::mutex mutex_;
  std::vector<TestHttpRequest> requests_;
  TestHttpListener listener_;
};

struct Got {
  HttpOutcome outcome;
  std::string body;
  int heads_before_body = 0;
};

Got send(HttpSession& session, HttpRequest request) {
  Got got;
  request.target = request.target.empty() ? "the server" : request.target;
  request.on_head = [&got](const HttpHead&) {
    if (got.body.empty()) ++got.heads_before_body;
  };
  if (!request.on_body) {
    request.on_body = [&got](const HttpHead&, std::string_view bytes) {
      got.body.append(bytes);
      return true;
    };
  }
  got.outcome = session.perform(request);
  return got;
}

HttpRequest post(const std::string& url, std::string body) {
  HttpRequest r;
  r.url = url;
  r.body = std::move(body);
  return r;
}

TEST(PlainHttpUrlTest, TakesPlainHttpToAnAddressOrLocalhostOnly) {
  const auto v4 = plain_http_url("http://127.0.0.1:8080/v1/chat/completions?x=1");
  ASSERT_TRUE(v4.has_value());
  EXPECT_EQ(v4->host, "127.0.0.1");
  EXPECT_EQ(v4->port, 8080);
  EXPECT_EQ(v4->host_header, "127.0.0.1:8080");
  EXPECT_EQ(v4->target, "/v1/chat/completions?x=1");
  const auto v6 = plain_http_url("HTTP://[::1]:11434");
  ASSERT_TRUE(v6.has_value());
  EXPECT_EQ(v6->host, "::1");
  EXPECT_EQ(v6->host_header, "[::1]:11434");
  EXPECT_EQ(v6->target, "/");
  const auto local = plain_http_url("http://LocalHost/api?q");
  ASSERT_TRUE(local.has_value());
  EXPECT_EQ(local->host, "localhost");
  EXPECT_EQ(local->port, 80);
  EXPECT_EQ(local->host_header, "LocalHost");
  EXPECT_EQ(local->target, "/api?q");
  EXPECT_EQ(plain_http_url("http://10.0.0.2?a=b")->target, "/?a=b");
  for (const char* other :
       {"https://127.0.0.1/v1", "http://api.openai.com/v1", "http://user:pw@127.0.0.1/", "http://127.0.0.1:/",
        "http://127.0.0.1:0/", "http://127.0.0.1:65536/", "http://127.1/", "http://[::1/", "http://[fe80::1%25eth0]/",
        "http://127.0.0.1/a b", "http://127.0.0.1/a#frag", "http://127.0.0.1/v1/../admin", "http://127.0.0.1/./x",
        "http://", "ftp://127.0.0.1/", "http://127.0.0.1/caf\xc3\xa9"}) {
    EXPECT_FALSE(plain_http_url(other).has_value()) << other;
  }
}

TEST(PlainHttpClientTest, SendsTheRequestAsLibcurlWouldAndKeepsOneConnection) {
  Server server([](TestHttpConnection& c, const TestHttpRequest& r) {
    return c.send(ok_reply("{\"n\":" + std::to_string(r.body.size()) + "}"));
  });
  HttpSession session;
  for (int i = 0; i < 3; ++i) {
    HttpRequest r = post(server.url("/v1/chat/completions?a=1"), std::string(100000 + i, 'b'));
    r.headers = {
        "Content-Type: application/json", "Authorization: Bearer k", "Expect:", "X-Empty;", "Accept:", "X-List: a;b"};
    const Got got = send(session, r);
    ASSERT_EQ(got.outcome.end, HttpEnd::kCompleted) << got.outcome.error.message();
    EXPECT_EQ(got.outcome.head.status, 200);
    EXPECT_EQ(got.outcome.head.content_type, "application/json");
    EXPECT_EQ(got.body, "{\"n\":" + std::to_string(100000 + i) + "}");
    EXPECT_EQ(got.heads_before_body, 1);
  }
  EXPECT_EQ(server.connections(), 1u);
  const std::vector<TestHttpRequest> seen = server.requests();
  ASSERT_EQ(seen.size(), 3u);
  const TestHttpRequest& first = seen[0];
  EXPECT_EQ(first.method, "POST");
  EXPECT_EQ(first.target, "/v1/chat/completions?a=1");
  EXPECT_EQ(first.headers.at("host"), "127.0.0.1:" + std::to_string(server.port()));
  EXPECT_TRUE(first.headers.at("user-agent").starts_with("keel/"));
  EXPECT_EQ(first.headers.at("content-type"), "application/json");
  EXPECT_EQ(first.headers.at("authorization"), "Bearer k");
  EXPECT_EQ(first.headers.at("content-length"), "100000");
  EXPECT_EQ(first.headers.at("x-empty"), "");
  EXPECT_EQ(first.headers.at("x-list"), "a;b");
  // (the test server's reader lists "expect" as empty when the request had none)
  EXPECT_EQ(first.headers.count("expect") == 0 ? "" : first.headers.at("expect"), "");
  EXPECT_EQ(first.headers.count("accept"), 0u);  // "Accept:" drops the default
  EXPECT_EQ(first.body, std::string(100000, 'b'));
}

TEST(PlainHttpClientTest, AFoldedLineIsNotReadAsAHeader) {
  Server server([](TestHttpConnection& c, const TestHttpRequest&) {
    return c.send(
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-Note: a\r\n Content-Type: text/evil\r\n"
        "Content-Length: 2\r\n\r\n{}");
  });
  HttpSession session;
  const Got got = send(session, post(server.url(), "{}"));
  EXPECT_EQ(got.outcome.end, HttpEnd::kCompleted);
  EXPECT_EQ(got.outcome.head.content_type, "application/json");
}

TEST(PlainHttpClientTest, GetAndDeleteSendNoBody) {
  Server server(
      [](TestHttpConnection& c, const TestHttpRequest&) { return c.send("HTTP/1.1 204 No Content\r\n\r\n"); });
  HttpSession session;
  for (const char* method : {"GET", "DELETE"}) {
    HttpRequest r = post(server.url(), "ignored");
    r.method = method;
    const Got got = send(session, r);
    EXPECT_EQ(got.outcome.end, HttpEnd::kCompleted);
    EXPECT_EQ(got.outcome.head.status, 204);
  }
  const std::vector<TestHttpRequest> seen = server.requests();
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0].method, "GET");
  EXPECT_EQ(seen[1].method, "DELETE");
  for (const TestHttpRequest& r : seen) {
    EXPECT_EQ(r.body, "");
    EXPECT_EQ(r.headers.count("content-length"), 0u);
    EXPECT_EQ(r.headers.at("accept"), "*/*");
  }
}

TEST(PlainHttpClientTest, AConnectionTheServerClosedIsReplacedWithoutAnError) {
  // The server answers one request per connection and closes it without saying so.
  Server server([](TestHttpConnection& c, const TestHttpRequest&) {
    c.send(ok_reply("{}"));
    return false;
  });
  HttpSession session;
  for (int i = 0; i < 3; ++i) {
    const Got got = send(session, post(server.url(), "{}"));
    EXPECT_EQ(got.outcome.end, HttpEnd::kCompleted) << i << ": " << got.outcome.error.message();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // let the close arrive
  }
  EXPECT_EQ(server.connections(), 3u);
  EXPECT_EQ(server.requests().size(), 3u);  // each request reached the server exactly once
}

TEST(PlainHttpClientTest, AConnectionClosedRightAfterTheRequestIsRetriedOnceOnAFreshOne) {
  // The second request on the kept connection meets a close before any reply (the server timed
  // the connection out as the request went): libcurl's rule, one retry on a new connection.
  std::atomic<int> answered{0};
  Server server([&](TestHttpConnection& c, const TestHttpRequest&) {
    if (answered++ == 1) return false;  // read the request, close without a word
    return c.send(ok_reply("{}"));
  });
  HttpSession session;
  EXPECT_EQ(send(session, post(server.url(), "1")).outcome.end, HttpEnd::kCompleted);
  const Got second = send(session, post(server.url(), "2"));
  EXPECT_EQ(second.outcome.end, HttpEnd::kCompleted) << second.outcome.error.message();
  EXPECT_EQ(server.connections(), 2u);
  ASSERT_EQ(server.requests().size(), 3u);
  EXPECT_EQ(server.requests()[2].body, "2");
}

TEST(PlainHttpClientTest, AServerThatSaysCloseGetsANewConnectionNextTime) {
  Server server(
      [](TestHttpConnection& c, const TestHttpRequest&) { return c.send(ok_reply("{}", "Connection: close\r\n")); });
  HttpSession session;
  EXPECT_EQ(send(session, post(server.url(), "1")).outcome.end, HttpEnd::kCompleted);
  EXPECT_EQ(send(session, post(server.url(), "2")).outcome.end, HttpEnd::kCompleted);
  EXPECT_EQ(server.connections(), 2u);
}

TEST(PlainHttpClientTest, AChunkedStreamArrivesPieceByPiece) {
  Server server([](TestHttpConnection& c, const TestHttpRequest&) {
    c.send("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n");
    for (const char* event : {"data: {\"a\":1}\n\n", "data: [DONE]\n\n"}) {
      const std::string e = event;
      char size[16];
      std::snprintf(size, sizeof size, "%zx\r\n", e.size());
      c.send(size + e + "\r\n");
      c.wait_ms(30);
    }
    return c.send("0\r\n\r\n");
  });
  HttpSession session;
  std::vector<std::string> pieces;
  HttpRequest r = post(server.url(), "{}");
  r.on_body = [&pieces](const HttpHead& head, std::string_view bytes) {
    EXPECT_EQ(head.content_type, "text/event-stream");
    pieces.emplace_back(bytes);
    return true;
  };
  const Got got = send(session, r);
  EXPECT_EQ(got.outcome.end, HttpEnd::kCompleted);
  ASSERT_GE(pieces.size(), 2u);
  std::string all;
  for (const std::string& p : pieces) all += p;
  EXPECT_EQ(all, "data: {\"a\":1}\n\ndata: [DONE]\n\n");
  EXPECT_EQ(send(session, post(server.url(), "{}")).outcome.end, HttpEnd::kCompleted);
  EXPECT_EQ(server.connections(), 1u);
}

TEST(PlainHttpClientTest, ServersThatFailAreReportedWithWhatToDo) {
  {
    Server silent([](TestHttpConnection&, const TestHttpRequest&) { return false; });
    HttpSession session;
    const Got got = send(session, post(silent.url(), "{}"));
    EXPECT_EQ(got.outcome.end, HttpEnd::kFailed);
    EXPECT_EQ(got.outcome.error.code(), ErrorCode::kUnavailable);
    EXPECT_EQ(got.outcome.error.message(), "the server closed the connection without replying");
    EXPECT_TRUE(got.outcome.retryable);
  }
  {
    Server cut([](TestHttpConnection& c, const TestHttpRequest&) {
      c.send("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{\"partial\":");
      return false;
    });
    HttpSession session;
    const Got got = send(session, post(cut.url(), "{}"));
    EXPECT_EQ(got.outcome.end, HttpEnd::kFailed);
    EXPECT_EQ(got.outcome.error.message(),
              "connection to the server broke: the connection closed after 11 of the 100 body bytes its "
              "Content-Length announced");
    EXPECT_TRUE(got.outcome.retryable);
    EXPECT_TRUE(got.outcome.connection_lost);
    EXPECT_EQ(got.outcome.head.status, 200);
    EXPECT_EQ(got.body, "{\"partial\":");
  }
  {
    Server wrong([](TestHttpConnection& c, const TestHttpRequest&) { return c.send("SSH-2.0-OpenSSH_9.2\r\n"); });
    HttpSession session;
    const Got got = send(session, post(wrong.url(), "{}"));
    EXPECT_EQ(got.outcome.end, HttpEnd::kFailed);
    EXPECT_EQ(got.outcome.error.message(),
              "request to the server failed: the reply does not begin with an HTTP/1.x status line: "
              "\"SSH-2.0-OpenSSH_9.2\"");
    EXPECT_FALSE(got.outcome.retryable);
  }
}

TEST(PlainHttpClientTest, ARefusedConnectionNamesTheServer) {
  int port = 0;
  {
    Server closed([](TestHttpConnection&, const TestHttpRequest&) { return false; });
    port = closed.port();
  }
  HttpSession session;
  HttpRequest r = post("http://127.0.0.1:" + std::to_string(port) + "/v1", "{}");
  r.target = "http://127.0.0.1:" + std::to_string(port);
  const Got got = send(session, r);
  EXPECT_EQ(got.outcome.end, HttpEnd::kFailed);
  EXPECT_EQ(got.outcome.error.message(), "cannot connect to " + r.target + ": Connection refused");
  EXPECT_TRUE(got.outcome.retryable);
}

TEST(PlainHttpClientTest, TimeoutsAndAStopRequestEndAWaitPromptly) {
  Server slow([](TestHttpConnection& c, const TestHttpRequest&) {
    c.send("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n");
    c.wait_ms(10000);
    return false;
  });
  HttpSession session;
  using Clock = std::chrono::steady_clock;
  {
    HttpRequest r = post(slow.url(), "{}");
    r.total_timeout_ms = 150;
    r.total_timeout_name = "request_timeout_ms";
    const auto start = Clock::now();
    const Got got = send(session, r);
    EXPECT_LT(Clock::now() - start, std::chrono::seconds(5));
    EXPECT_EQ(got.outcome.end, HttpEnd::kFailed);
    EXPECT_EQ(got.outcome.error.code(), ErrorCode::kDeadlineExceeded);
    EXPECT_EQ(got.outcome.error.message(),
              "request to the server timed out after 150 ms (request_timeout_ms): no complete reply by then");
  }
  {
    HttpRequest r = post(slow.url(), "{}");
    r.idle_timeout_ms = 150;
    const Got got = send(session, r);
    EXPECT_EQ(got.outcome.end, HttpEnd::kIdleTimeout);
    EXPECT_EQ(got.outcome.error.message(),
              "no data from the server for 150 ms while streaming (stream_idle_timeout_ms)");
  }
  {
    std::stop_source stop;
    HttpRequest r = post(slow.url(), "{}");
    r.stop = stop.get_token();
    std::thread stopper([&stop] {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      stop.request_stop();
    });
    const Got got = send(session, r);
    stopper.join();
    EXPECT_EQ(got.outcome.end, HttpEnd::kCancelled);
    EXPECT_EQ(got.outcome.error.code(), ErrorCode::kCancelled);
  }
  {
    int asked = 0;
    HttpRequest r = post(slow.url(), "{}");
    r.still_wanted = [&asked] { return ++asked < 3; };
    const Got got = send(session, r);
    EXPECT_EQ(got.outcome.end, HttpEnd::kAbortedByBody);
    EXPECT_GE(asked, 3);
  }
}

TEST(PlainHttpClientTest, ALargeReplyArrivesWholeAndTheConnectionIsKept) {
  std::string big;
  for (int i = 0; big.size() < 300000; ++i) big += std::to_string(i) + ',';
  Server server([&big](TestHttpConnection& c, const TestHttpRequest&) { return c.send(ok_reply(big)); });
  HttpSession session;
  for (int i = 0; i < 2; ++i) {
    const Got got = send(session, post(server.url(), "{}"));
    EXPECT_EQ(got.outcome.end, HttpEnd::kCompleted);
    EXPECT_EQ(got.body, big);
  }
  EXPECT_EQ(server.connections(), 1u);
}

TEST(PlainHttpClientTest, AReaderThatHasEnoughEndsTheTransferAndTheConnection) {
  Server server(
      [](TestHttpConnection& c, const TestHttpRequest&) { return c.send(ok_reply(std::string(50000, 'x'))); });
  HttpSession session;
  HttpRequest r = post(server.url(), "{}");
  r.on_body = [](const HttpHead&, std::string_view) { return false; };
  EXPECT_EQ(send(session, r).outcome.end, HttpEnd::kAbortedByBody);
  EXPECT_EQ(send(session, post(server.url(), "{}")).outcome.end, HttpEnd::kCompleted);
  EXPECT_EQ(server.connections(), 2u);  // the half-read connection was not reused
}

TEST(PlainHttpClientTest, AHeaderWithALineBreakIsRefusedBeforeAnythingIsSent) {
  Server server([](TestHttpConnection& c, const TestHttpRequest&) { return c.send(ok_reply("{}")); });
  HttpSession session;
  HttpRequest r = post(server.url(), "{}");
  r.headers = {"X-Key: a\r\nX-Injected: 1"};
  const Got got = send(session, r);
  EXPECT_EQ(got.outcome.end, HttpEnd::kFailed);
  EXPECT_EQ(got.outcome.error.code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(got.outcome.error.message(), "a request header for the server holds a line break: X-Key: a");
  EXPECT_EQ(server.connections(), 0u);
}

TEST(PlainHttpClientTest, LocalhostReachesTheLoopbackAddress) {
  Server server([](TestHttpConnection& c, const TestHttpRequest&) { return c.send(ok_reply("{}")); });
  HttpSession session;
  const Got got = send(session, post("http://localhost:" + std::to_string(server.port()) + "/v1", "{}"));
  EXPECT_EQ(got.outcome.end, HttpEnd::kCompleted) << got.outcome.error.message();
  EXPECT_EQ(server.requests().at(0).headers.at("host"), "localhost:" + std::to_string(server.port()));
}

}  // namespace
}  // namespace keel::detail
