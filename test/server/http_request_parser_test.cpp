// Request-head parsing, routing and response serialization: the pure parts of the HTTP server.
#include "server/http_request_parser.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>

#include "server/http_router.hpp"
#include "server/http_status.hpp"
#include "server/http_wire.hpp"

namespace keel::server {
namespace {

constexpr size_t kMaxBody = 1000;

ParsedHead parse(std::string head) {
  return parse_request_head(head, kMaxBody);
}

TEST(HttpRequestParser, ParsesRequestLineHeadersAndQuery) {
  const std::string text =
      "POST /a%20b/c?x=1&y=two+words&z=%2F&flag HTTP/1.1\r\nHost: localhost:80\r\nX-Thing:  v1 \r\n"
      "x-thing: v2\r\nContent-Length: 12\r\n\r\n";
  ASSERT_EQ(find_head_end(text), text.size());
  ParsedHead head = parse(text);
  ASSERT_EQ(head.error_status, 0) << head.error_message;
  EXPECT_EQ(head.request.method, "POST");
  EXPECT_EQ(head.request.target, "/a%20b/c?x=1&y=two+words&z=%2F&flag");
  EXPECT_EQ(head.request.path, "/a b/c");
  EXPECT_EQ(head.request.query.at("x"), "1");
  EXPECT_EQ(head.request.query.at("y"), "two words");
  EXPECT_EQ(head.request.query.at("z"), "/");
  EXPECT_EQ(head.request.query.at("flag"), "");
  EXPECT_EQ(head.request.header("HOST"), "localhost:80");
  EXPECT_EQ(head.request.header("x-THING"), "v1, v2");
  EXPECT_FALSE(head.request.has_header("missing"));
  EXPECT_EQ(head.request.header("missing"), "");
  EXPECT_EQ(head.content_length, 12u);
  EXPECT_TRUE(head.keep_alive);
  EXPECT_FALSE(head.expect_continue);
  EXPECT_EQ(head.request.version_minor, 1);
}

TEST(HttpRequestParser, FindsTheEndOfTheHeadOnlyWhenComplete) {
  EXPECT_EQ(find_head_end("GET / HTTP/1.1\r\nHost: x\r\n"), 0u);
  EXPECT_EQ(find_head_end("GET / HTTP/1.1\r\n\r\nbody"), 18u);
}

TEST(HttpRequestParser, ConnectionAndExpect) {
  ParsedHead close = parse("GET / HTTP/1.1\r\nHost: h\r\nConnection: keep-alive, Close\r\n\r\n");
  ASSERT_EQ(close.error_status, 0);
  EXPECT_FALSE(close.keep_alive);
  ParsedHead old = parse("GET / HTTP/1.0\r\n\r\n");
  ASSERT_EQ(old.error_status, 0) << old.error_message;
  EXPECT_FALSE(old.keep_alive);
  EXPECT_EQ(old.request.version_minor, 0);
  ParsedHead old_kept = parse("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
  EXPECT_TRUE(old_kept.keep_alive);
  ParsedHead expect = parse("PUT /x HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n");
  EXPECT_TRUE(expect.expect_continue);
}

TEST(HttpRequestParser, AbsoluteFormTargetKeepsThePath) {
  ParsedHead head = parse("GET http://example.com:8080/p/q?k=v HTTP/1.1\r\nHost: example.com\r\n\r\n");
  ASSERT_EQ(head.error_status, 0) << head.error_message;
  EXPECT_EQ(head.request.path, "/p/q");
  EXPECT_EQ(head.request.query.at("k"), "v");
}

struct BadHead {
  const char* text;
  int status;
};

class HttpRequestParserRejects : public ::testing::TestWithParam<BadHead> {};

TEST_P(HttpRequestParserRejects, WithTheRightStatus) {
  ParsedHead head = parse(GetParam().text);
  EXPECT_EQ(head.error_status, GetParam().status) << GetParam().text;
  EXPECT_FALSE(head.error_message.empty());
}

INSTANTIATE_TEST_SUITE_P(
    Cases, HttpRequestParserRejects,
    ::testing::Values(BadHead{"GET  / HTTP/1.1\r\nHost: h\r\n\r\n", 400},            // two spaces
                      BadHead{"GET /\r\nHost: h\r\n\r\n", 400},                      // no version
                      BadHead{"GE(T / HTTP/1.1\r\nHost: h\r\n\r\n", 400},            // bad method
                      BadHead{"GET / HTTP/1.1\r\n\r\n", 400},                        // no Host
                      BadHead{"GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400},  // two Hosts
                      BadHead{"GET / HTTP/1.1\r\nHost : h\r\n\r\n", 400},            // space before colon
                      BadHead{"GET / HTTP/1.1\r\nHost: h\r\n folded\r\n\r\n", 400},  // obs-fold
                      BadHead{"GET / HTTP/1.1\r\nHost: h\r\nNoColon\r\n\r\n", 400},
                      BadHead{"GET / HTTP/1.1\r\nHost: h\x01\r\n\r\n", 400},   // control character
                      BadHead{"GET x HTTP/1.1\r\nHost: h\r\n\r\n", 400},       // not origin-form
                      BadHead{"GET /%zz HTTP/1.1\r\nHost: h\r\n\r\n", 400},    // bad escape
                      BadHead{"GET /%00 HTTP/1.1\r\nHost: h\r\n\r\n", 400},    // escaped NUL
                      BadHead{"GET /?a=%4 HTTP/1.1\r\nHost: h\r\n\r\n", 400},  // cut escape
                      BadHead{"GET / HTTX/1.1\r\nHost: h\r\n\r\n", 400},
                      BadHead{"GET / HTTP/2.0\r\nHost: h\r\n\r\n", 505},
                      BadHead{"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1x\r\n\r\n", 400},
                      BadHead{"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: -1\r\n\r\n", 400},
                      BadHead{"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\n", 400},
                      BadHead{"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1001\r\n\r\n", 413},
                      BadHead{"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 99999999999999999999999\r\n\r\n", 413},
                      BadHead{"POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n", 411}));

TEST(HttpRequestParser, RepeatedEqualContentLengthsAreAccepted) {
  ParsedHead head = parse("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\n");
  ASSERT_EQ(head.error_status, 0) << head.error_message;
  EXPECT_EQ(head.content_length, 3u);
}

TEST(HttpRequestParser, PercentDecode) {
  EXPECT_EQ(percent_decode("a%2Bb+c", false).value(), "a+b+c");
  EXPECT_EQ(percent_decode("a%2bb+c", true).value(), "a+b c");
  EXPECT_FALSE(percent_decode("%", false).has_value());
  EXPECT_FALSE(percent_decode("%a", false).has_value());
  EXPECT_FALSE(percent_decode("%g0", false).has_value());
}

TEST(HttpRouter, ExactBeatsPrefixAndLongestPrefixWins) {
  HttpRouter router;
  int hit = 0;
  router.add("GET", "/api/*", [&](const HttpRequest&, std::shared_ptr<HttpResponder>) { hit = 1; });
  router.add("GET", "/api/v2/*", [&](const HttpRequest&, std::shared_ptr<HttpResponder>) { hit = 2; });
  router.add("GET", "/api/v2/exact", [&](const HttpRequest&, std::shared_ptr<HttpResponder>) { hit = 3; });
  router.add("POST", "/api/v2/exact", [&](const HttpRequest&, std::shared_ptr<HttpResponder>) { hit = 4; });
  const HttpRequest request;
  auto call = [&](std::string_view method, std::string_view path) {
    hit = 0;
    auto m = router.match(method, path);
    if (m.handler != nullptr) (*m.handler)(request, nullptr);
    return m.status;
  };
  EXPECT_EQ(call("GET", "/api/x"), 200);
  EXPECT_EQ(hit, 1);
  EXPECT_EQ(call("GET", "/api/v2/y"), 200);
  EXPECT_EQ(hit, 2);
  EXPECT_EQ(call("GET", "/api/v2/exact"), 200);
  EXPECT_EQ(hit, 3);
  EXPECT_EQ(call("POST", "/api/v2/exact"), 200);
  EXPECT_EQ(hit, 4);
  EXPECT_EQ(call("GET", "/other"), 404);
  EXPECT_EQ(call("GET", "/api"), 404);  // the prefix is "/api/"
  auto m = router.match("DELETE", "/api/v2/exact");
  EXPECT_EQ(m.status, 405);
  EXPECT_EQ(m.allow, "GET, POST");
  EXPECT_EQ(m.handler, nullptr);
}

TEST(HttpWire, HeadDropsFramingAndInjectedHeaders) {
  const HttpHeaders headers = {{"Content-Type", "text/plain"},
                               {"content-length", "999"},
                               {"Transfer-Encoding", "gzip"},
                               {"Connection", "close"},
                               {"X-Evil", "a\r\nSet-Cookie: x=1"},
                               {"Bad Name", "v"},
                               {"X-Ok", "fine"}};
  EXPECT_EQ(
      detail::response_head(200, headers, detail::BodyFraming::kContentLength, 5, "close"),
      "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nX-Ok: fine\r\nContent-Length: 5\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(detail::response_head(200, {}, detail::BodyFraming::kChunked, 0, ""),
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n");
  EXPECT_EQ(detail::response_head(204, {}, detail::BodyFraming::kContentLength, 0, ""),
            "HTTP/1.1 204 No Content\r\n\r\n");
  EXPECT_TRUE(detail::asks_to_close(headers));
  EXPECT_FALSE(detail::asks_to_close({{"Connection", "keep-alive"}}));
}

TEST(HttpWire, ChunkFrame) {
  EXPECT_EQ(detail::chunk_frame("hello"), "5\r\nhello\r\n");
  EXPECT_EQ(detail::chunk_frame(std::string(26, 'x')), "1a\r\n" + std::string(26, 'x') + "\r\n");
}

TEST(HttpStatus, JsonErrorBody) {
  EXPECT_EQ(json_error_body("bad_request", "no \"x\""),
            R"({"error":{"code":"bad_request","message":"no \"x\"","param":null,"type":"invalid_request_error"},"type":"error"})");
  EXPECT_EQ(nlohmann::json::parse(json_error_body("unauthorized", "who?"))["error"]["type"], "authentication_error");
  EXPECT_EQ(nlohmann::json::parse(json_error_body("payload_too_large", "big"))["error"]["type"], "request_too_large");
  EXPECT_EQ(error_code_for_status(431), "header_too_large");
  EXPECT_EQ(reason_phrase(405), "Method Not Allowed");
}

}  // namespace
}  // namespace keel::server
