// The test server itself: routes, recording and a clean stop while a client waits.
#include "support/static_http_server.hpp"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>

namespace keel::testing {
namespace {

// Sends a raw request and reads until the server closes or `max` bytes arrived.
std::string raw_exchange(int port, const std::string& request, size_t max = 4096) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::string reply;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
      ::send(fd, request.data(), request.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(request.size())) {
    char buf[1024];
    ssize_t n;
    while (reply.size() < max && (n = ::recv(fd, buf, sizeof buf, 0)) > 0) reply.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return reply;
}

TEST(StaticHttpServerTest, AnswersRoutesAndRecordsRequests) {
  StaticHttpServer server;
  ASSERT_TRUE(server.running());
  server.route("/hello?x=1", text_page("text/plain", "hi"));
  const std::string reply =
      raw_exchange(server.port(), "POST /hello?x=1 HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nConnection: close\r\n\r\nabc");
  EXPECT_TRUE(reply.starts_with("HTTP/1.1 200 OK\r\n")) << reply;
  EXPECT_NE(reply.find("Content-Type: text/plain\r\n"), std::string::npos);
  EXPECT_TRUE(reply.ends_with("\r\n\r\nhi")) << reply;
  const std::string missing = raw_exchange(server.port(), "GET /nope HTTP/1.1\r\nConnection: close\r\n\r\n");
  EXPECT_TRUE(missing.starts_with("HTTP/1.1 404 Not Found")) << missing;
  ASSERT_EQ(server.requests().size(), 2u);
  EXPECT_EQ(server.requests()[0].method, "POST");
  EXPECT_EQ(server.requests()[0].target, "/hello?x=1");
  EXPECT_EQ(server.requests()[0].body, "abc");
  EXPECT_EQ(server.requests()[0].headers.at("host"), "a");
}

TEST(StaticHttpServerTest, StopsPromptlyWhileAResponseIsDelayed) {
  auto server = std::make_unique<StaticHttpServer>();
  server->route("/slow", with_delay(text_page("text/plain", "late"), 60000));
  const int port = server->port();
  std::thread client([port] { raw_exchange(port, "GET /slow HTTP/1.1\r\n\r\n"); });
  while (server->request_count() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  const auto start = std::chrono::steady_clock::now();
  server->stop();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  client.join();  // the server closed the connection, so the client's read ended
  server.reset();
}

}  // namespace
}  // namespace keel::testing
