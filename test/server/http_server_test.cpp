// HttpServer over real sockets on 127.0.0.1: keep-alive, errors the server answers by itself,
// responses and streams sent later from other threads, disconnects, timeouts and stop().
#include "server/http_server.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <fstream>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "server/raw_http_client.hpp"

namespace keel::server {
namespace {

using keel::testing::raw_http;
using keel::testing::RawHttpClient;
using Clock = std::chrono::steady_clock;

int64_t ms_since(Clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
}

int process_threads() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("Threads:", 0) == 0) return std::stoi(line.substr(8));
  }
  return -1;
}

// Collects responders that tests answer later, from their own threads.
struct Parked {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<std::shared_ptr<HttpResponder>> responders;

  void add(std::shared_ptr<HttpResponder> r) {
    std::lock_guard lock(mu);
    responders.push_back(std::move(r));
    cv.notify_all();
  }
  bool wait_for(size_t n, int timeout_ms = 5000) {
    std::unique_lock lock(mu);
    return cv.wait_for(lock, std::chrono::milliseconds(timeout_ms), [&] { return responders.size() >= n; });
  }
  std::shared_ptr<HttpResponder> at(size_t i) {
    std::lock_guard lock(mu);
    return responders.at(i);
  }
};

class HttpServerTest : public ::testing::Test {
 protected:
  void start(HttpServerOptions options = {}) {
    server_ = std::make_unique<HttpServer>(options);
    server_->route("GET", "/hello", [](const HttpRequest& req, std::shared_ptr<HttpResponder> out) {
      std::string body = "hello ";
      body.append(req.query.count("name") != 0 ? req.query.at("name") : "nobody");
      body.append(" from ").append(req.remote_address.substr(0, 10));
      out->respond(200, {{"Content-Type", "text/plain"}, {"X-Seen", std::string(req.header("x-custom"))}}, body);
    });
    server_->route("POST", "/echo", [](const HttpRequest& req, std::shared_ptr<HttpResponder> out) {
      out->respond(201, {{"Content-Type", "application/octet-stream"}}, req.body);
    });
    server_->route("GET", "/stream", [this](const HttpRequest&, std::shared_ptr<HttpResponder> out) {
      out->start_stream(200, {{"Content-Type", "text/event-stream"}});
      parked_.add(std::move(out));
    });
    server_->route("GET", "/later",
                   [this](const HttpRequest&, std::shared_ptr<HttpResponder> out) { parked_.add(std::move(out)); });
    ASSERT_TRUE(server_->start().ok());
    ASSERT_NE(server_->port(), 0);
  }

  void TearDown() override {
    for (auto& t : threads_) t.join();
    if (server_) server_->stop();
  }

  std::unique_ptr<HttpServer> server_;
  Parked parked_;
  std::vector<std::thread> threads_;
};

TEST_F(HttpServerTest, GetAndPostOnOneKeptAliveConnection) {
  start();
  RawHttpClient c(server_->port());
  ASSERT_TRUE(c.ok());
  ASSERT_TRUE(c.send("GET /hello?name=J%C3%BCrg+en HTTP/1.1\r\nHost: localhost\r\nX-Custom: abc\r\n\r\n"));
  auto r1 = c.read_response();
  ASSERT_TRUE(r1.has_value());
  EXPECT_EQ(r1->status, 200);
  EXPECT_EQ(r1->body, "hello J\xC3\xBCrg en from 127.0.0.1:");
  EXPECT_EQ(r1->header("content-type"), "text/plain");
  EXPECT_EQ(r1->header("x-seen"), "abc");
  EXPECT_EQ(r1->header("content-length"), std::to_string(r1->body.size()));
  EXPECT_EQ(r1->header("connection"), "");

  std::string post = "POST /echo HTTP/1.1\r\nHost: localhost\r\nContent-Length: 11\r\n\r\n";
  post.append("hello\0world", 11);
  ASSERT_TRUE(c.send(post));
  auto r2 = c.read_response();
  ASSERT_TRUE(r2.has_value());
  EXPECT_EQ(r2->status, 201);
  EXPECT_EQ(r2->body, std::string("hello\0world", 11));
  EXPECT_EQ(server_->connection_count(), 1u);  // both went over the first connection
}

TEST_F(HttpServerTest, PipelinedRequestsAreAnsweredInOrder) {
  start();
  RawHttpClient c(server_->port());
  ASSERT_TRUE(
      c.send("POST /echo HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\none"
             "POST /echo HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\ntwo"));
  auto r1 = c.read_response();
  auto r2 = c.read_response();
  ASSERT_TRUE(r1 && r2);
  EXPECT_EQ(r1->body, "one");
  EXPECT_EQ(r2->body, "two");
}

TEST_F(HttpServerTest, ConnectionCloseIsHonoured) {
  start();
  RawHttpClient c(server_->port());
  ASSERT_TRUE(c.send("GET /hello HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n"));
  auto r = c.read_response();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->header("connection"), "close");
  EXPECT_TRUE(c.wait_closed(5000));
}

TEST_F(HttpServerTest, Http10ClosesAfterTheResponse) {
  start();
  RawHttpClient c(server_->port());
  ASSERT_TRUE(c.send("GET /hello HTTP/1.0\r\n\r\n"));
  auto r = c.read_response();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, 200);
  EXPECT_TRUE(c.wait_closed(5000));
}

TEST_F(HttpServerTest, MalformedRequestGets400AsJsonAndTheConnectionCloses) {
  start();
  RawHttpClient c(server_->port());
  ASSERT_TRUE(c.send("GARBAGE\r\n\r\n"));
  auto r = c.read_response();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, 400);
  EXPECT_EQ(r->header("content-type"), "application/json");
  EXPECT_EQ(
      r->body,
      R"({"error":{"code":"bad_request","message":"malformed request line (expected 'METHOD TARGET HTTP/1.1'): 'GARBAGE'","param":null,"type":"invalid_request_error"},"type":"error"})");
  EXPECT_TRUE(c.wait_closed(5000));
}

TEST_F(HttpServerTest, HeadOverTheLimitGets431) {
  HttpServerOptions options;
  options.max_header_bytes = 1024;
  start(options);
  RawHttpClient c(server_->port());
  ASSERT_TRUE(c.send("GET /hello HTTP/1.1\r\nHost: h\r\nX-Big: " + std::string(2000, 'a') + "\r\n\r\n"));
  auto r = c.read_response();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, 431);
  EXPECT_NE(r->body.find(R"("code":"header_too_large")"), std::string::npos) << r->body;
  EXPECT_NE(r->body.find("1024"), std::string::npos) << r->body;
}

TEST_F(HttpServerTest, HeadOverTheLimitWithoutEndGets431) {
  HttpServerOptions options;
  options.max_header_bytes = 1024;
  start(options);
  RawHttpClient c(server_->port());
  ASSERT_TRUE(c.send("GET /hello HTTP/1.1\r\nHost: h\r\nX-Big: " + std::string(3000, 'a')));
  auto r = c.read_response();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, 431);
}

TEST_F(HttpServerTest, BodyOverTheLimitGets413) {
  HttpServerOptions options;
  options.max_body_bytes = 100;
  start(options);
  RawHttpClient c(server_->port());
  ASSERT_TRUE(c.send("POST /echo HTTP/1.1\r\nHost: h\r\nContent-Length: 101\r\n\r\n"));
  auto r = c.read_response();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, 413);
  EXPECT_EQ(
      r->body,
      R"({"error":{"code":"payload_too_large","message":"request body too large: 101 bytes, the limit is 100","param":null,"type":"request_too_large"},"type":"error"})");
  EXPECT_TRUE(c.wait_closed(5000));
}

TEST_F(HttpServerTest, ChunkedRequestBodyGets411) {
  start();
  auto r = raw_http(server_->port(), "PUT", "/echo", "Transfer-Encoding: chunked\r\n");
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, 411);
}

TEST_F(HttpServerTest, UnknownPathGets404AndWrongMethodGets405WithAllow) {
  start();
  auto missing = raw_http(server_->port(), "GET", "/nope");
  ASSERT_TRUE(missing.has_value());
  EXPECT_EQ(missing->status, 404);
  EXPECT_EQ(missing->body, R"({"error":{"code":"not_found","message":"no such path: '/nope'","param":null,"type":"not_found_error"},"type":"error"})");
  auto wrong = raw_http(server_->port(), "DELETE", "/hello");
  ASSERT_TRUE(wrong.has_value());
  EXPECT_EQ(wrong->status, 405);
  EXPECT_EQ(wrong->header("allow"), "GET");
  EXPECT_NE(wrong->body.find(R"("code":"method_not_allowed")"), std::string::npos);
}

TEST_F(HttpServerTest, ExpectContinueGetsAnInterimResponse) {
  start();
  RawHttpClient c(server_->port());
  ASSERT_TRUE(c.send("POST /echo HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\n"));
  auto interim = c.read_head();
  ASSERT_TRUE(interim.has_value());
  EXPECT_EQ(interim->status, 100);
  ASSERT_TRUE(c.send("data"));
  auto r = c.read_response();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, 201);
  EXPECT_EQ(r->body, "data");
}

TEST_F(HttpServerTest, HandlerAnswersLaterFromAnotherThread) {
  start();
  const auto begin = Clock::now();
  threads_.emplace_back([this] {
    ASSERT_TRUE(parked_.wait_for(1));
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    parked_.at(0)->respond(200, {}, "late");
  });
  auto r = raw_http(server_->port(), "GET", "/later");
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, "late");
  EXPECT_GE(ms_since(begin), 200);
  EXPECT_LT(ms_since(begin), 5000);
}

TEST_F(HttpServerTest, DroppedResponderAnswers500) {
  start();
  server_.reset();
  server_ = std::make_unique<HttpServer>();
  server_->route("GET", "/drop", [](const HttpRequest&, std::shared_ptr<HttpResponder>) {});
  server_->route("GET", "/throw",
                 [](const HttpRequest&, std::shared_ptr<HttpResponder>) { throw std::runtime_error("boom"); });
  ASSERT_TRUE(server_->start().ok());
  auto dropped = raw_http(server_->port(), "GET", "/drop");
  ASSERT_TRUE(dropped.has_value());
  EXPECT_EQ(dropped->status, 500);
  EXPECT_NE(dropped->body.find("finished without sending a response"), std::string::npos);
  auto thrown = raw_http(server_->port(), "GET", "/throw");
  ASSERT_TRUE(thrown.has_value());
  EXPECT_EQ(thrown->status, 500);
  EXPECT_NE(thrown->body.find("boom"), std::string::npos);
}

TEST_F(HttpServerTest, StreamWrittenFromAnotherThreadIsReadIncrementally) {
  start();
  RawHttpClient c(server_->port());
  ASSERT_TRUE(c.send("GET /stream HTTP/1.1\r\nHost: h\r\n\r\n"));
  auto head = c.read_head();
  ASSERT_TRUE(head.has_value());
  EXPECT_EQ(head->status, 200);
  EXPECT_EQ(head->header("transfer-encoding"), "chunked");
  EXPECT_EQ(head->header("content-type"), "text/event-stream");
  ASSERT_TRUE(parked_.wait_for(1));
  auto out = parked_.at(0);
  std::promise<void> second;
  threads_.emplace_back([out, &second] {
    EXPECT_TRUE(out->write("data: one\n\n"));
    second.get_future().wait();  // the client must have read the first event before the second exists
    EXPECT_TRUE(out->write("data: two\n\n"));
    out->end();
  });
  EXPECT_EQ(c.read_chunk(), "data: one\n\n");
  second.set_value();
  EXPECT_EQ(c.read_chunk(), "data: two\n\n");
  EXPECT_EQ(c.read_chunk(), "");  // the last chunk
  EXPECT_FALSE(out->closed());
  // The stream ended cleanly: the same connection serves the next request.
  ASSERT_TRUE(c.send("GET /hello HTTP/1.1\r\nHost: h\r\n\r\n"));
  auto next = c.read_response();
  ASSERT_TRUE(next.has_value());
  EXPECT_EQ(next->status, 200);
}

TEST_F(HttpServerTest, ClientDisconnectRunsOnClose) {
  start();
  auto c = std::make_unique<RawHttpClient>(server_->port());
  ASSERT_TRUE(c->send("GET /stream HTTP/1.1\r\nHost: h\r\n\r\n"));
  ASSERT_TRUE(c->read_head().has_value());
  ASSERT_TRUE(parked_.wait_for(1));
  auto out = parked_.at(0);
  std::promise<void> closed;
  out->on_close([&closed] { closed.set_value(); });
  EXPECT_FALSE(out->closed());
  c.reset();  // the client goes away
  ASSERT_EQ(closed.get_future().wait_for(std::chrono::seconds(5)), std::future_status::ready);
  EXPECT_TRUE(out->closed());
  EXPECT_FALSE(out->write("data: lost\n\n"));
  bool late = false;
  out->on_close([&late] { late = true; });  // registered after the close: runs at once
  EXPECT_TRUE(late);
}

TEST_F(HttpServerTest, SlowClientIsCutOff) {
  HttpServerOptions options;
  options.max_stream_queue_bytes = 64 * 1024;
  start(options);
  RawHttpClient c(server_->port());  // never reads the body
  ASSERT_TRUE(c.send("GET /stream HTTP/1.1\r\nHost: h\r\n\r\n"));
  ASSERT_TRUE(parked_.wait_for(1));
  auto out = parked_.at(0);
  std::promise<void> closed;
  out->on_close([&closed] { closed.set_value(); });
  const std::string piece(32 * 1024, 'x');
  bool refused = false;
  for (int i = 0; i < 20000 && !refused; ++i) {  // at most 640 MB, far beyond any socket buffer
    refused = !out->write(piece);
  }
  EXPECT_TRUE(refused);
  ASSERT_EQ(closed.get_future().wait_for(std::chrono::seconds(5)), std::future_status::ready);
  EXPECT_TRUE(out->closed());
}

TEST_F(HttpServerTest, TwoHundredIdleStreamsNeedNoThreadEach) {
  HttpServerOptions options;
  options.io_threads = 1;
  start(options);
  const int threads_before = process_threads();
  constexpr int kStreams = 200;
  std::vector<std::unique_ptr<RawHttpClient>> clients;
  for (int i = 0; i < kStreams; ++i) {
    clients.push_back(std::make_unique<RawHttpClient>(server_->port()));
    ASSERT_TRUE(clients.back()->send("GET /stream HTTP/1.1\r\nHost: h\r\n\r\n"));
  }
  for (auto& c : clients) ASSERT_TRUE(c->read_head().has_value());
  ASSERT_TRUE(parked_.wait_for(kStreams));
  EXPECT_EQ(server_->connection_count(), static_cast<size_t>(kStreams));
  EXPECT_LE(process_threads(), threads_before + 2);  // no thread per open stream
  for (int i = 0; i < kStreams; ++i) {
    EXPECT_TRUE(parked_.at(static_cast<size_t>(i))->write("data: " + std::to_string(i) + "\n\n"));
  }
  for (int i = 0; i < kStreams; ++i) {
    EXPECT_EQ(clients[static_cast<size_t>(i)]->read_chunk(), "data: " + std::to_string(i) + "\n\n");
  }
}

TEST_F(HttpServerTest, StopWithOpenStreamsReturnsPromptlyAndClosesThem) {
  start();
  constexpr int kStreams = 3;
  std::vector<std::unique_ptr<RawHttpClient>> clients;
  for (int i = 0; i < kStreams; ++i) {
    clients.push_back(std::make_unique<RawHttpClient>(server_->port()));
    ASSERT_TRUE(clients.back()->send("GET /stream HTTP/1.1\r\nHost: h\r\n\r\n"));
    ASSERT_TRUE(clients.back()->read_head().has_value());
  }
  ASSERT_TRUE(parked_.wait_for(kStreams));
  std::atomic<int> closes{0};
  for (int i = 0; i < kStreams; ++i) parked_.at(static_cast<size_t>(i))->on_close([&closes] { ++closes; });
  RawHttpClient idle(server_->port());  // a connection that never sends anything
  const auto begin = Clock::now();
  server_->stop();
  EXPECT_LT(ms_since(begin), 2000);
  EXPECT_EQ(closes.load(), kStreams);
  for (auto& c : clients) EXPECT_TRUE(c->wait_closed(5000));
  EXPECT_TRUE(idle.wait_closed(5000));
  // Responders outlive the server harmlessly, even once it is destroyed.
  EXPECT_FALSE(parked_.at(0)->write("data: after stop\n\n"));
  parked_.at(1)->end();
  server_.reset();
  EXPECT_FALSE(parked_.at(2)->write("data: after destruction\n\n"));
  parked_.at(2)->end();
  std::lock_guard lock(parked_.mu);
  parked_.responders.clear();  // the last references: the connections die after their io_context
}

TEST_F(HttpServerTest, StopAndDestructionWhileWorkersWriteAreSafe) {
  HttpServerOptions options;
  options.io_threads = 4;
  start(options);
  constexpr int kStreams = 20;
  std::vector<std::unique_ptr<RawHttpClient>> clients;
  for (int i = 0; i < kStreams; ++i) {
    clients.push_back(std::make_unique<RawHttpClient>(server_->port()));
    ASSERT_TRUE(clients.back()->send("GET /stream HTTP/1.1\r\nHost: h\r\n\r\n"));
  }
  ASSERT_TRUE(parked_.wait_for(kStreams));
  std::atomic<bool> done{false};
  std::atomic<int> refused{0};
  std::vector<std::thread> writers;
  for (int w = 0; w < 4; ++w) {
    writers.emplace_back([&] {
      while (!done.load()) {
        for (int i = 0; i < kStreams; ++i) {
          if (!parked_.at(static_cast<size_t>(i))->write("data: x\n\n")) ++refused;
        }
        std::this_thread::yield();
      }
    });
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  server_->stop();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  server_.reset();  // writers keep going against the destroyed server
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  done = true;
  for (auto& w : writers) w.join();
  EXPECT_GT(refused.load(), 0);
  for (auto& c : clients) EXPECT_TRUE(c->wait_closed(5000));
  std::lock_guard lock(parked_.mu);
  parked_.responders.clear();
}

TEST_F(HttpServerTest, HeadTimeoutClosesTheConnection) {
  HttpServerOptions options;
  options.header_timeout_ms = 200;
  start(options);
  RawHttpClient c(server_->port());
  const auto begin = Clock::now();
  ASSERT_TRUE(c.send("GET /hello HTTP/1.1\r\nHo"));
  EXPECT_TRUE(c.wait_closed(5000));
  EXPECT_GE(ms_since(begin), 190);
}

TEST_F(HttpServerTest, ABodyThatStallsGets408ThenTheConnectionCloses) {
  HttpServerOptions options;
  options.header_timeout_ms = 200;
  start(options);
  RawHttpClient c(server_->port());
  ASSERT_TRUE(c.send("POST /hello HTTP/1.1\r\nHost: h\r\nContent-Length: 100\r\n\r\n{\"only\": \"part"));
  auto r = c.read_response();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, 408);
  EXPECT_NE(r->body.find("\"request_timeout\""), std::string::npos) << r->body;
  EXPECT_TRUE(c.wait_closed(5000));
}

TEST_F(HttpServerTest, IdleKeptAliveConnectionIsClosed) {
  HttpServerOptions options;
  options.keep_alive_idle_ms = 200;
  start(options);
  RawHttpClient c(server_->port());
  ASSERT_TRUE(c.send("GET /hello HTTP/1.1\r\nHost: h\r\n\r\n"));
  ASSERT_TRUE(c.read_response().has_value());
  const auto begin = Clock::now();
  EXPECT_TRUE(c.wait_closed(5000));
  EXPECT_GE(ms_since(begin), 150);
}

TEST_F(HttpServerTest, ManyClientsOnSeveralIoThreads) {
  HttpServerOptions options;
  options.io_threads = 4;
  start(options);
  std::atomic<int> ok{0};
  std::vector<std::thread> clients;
  for (int t = 0; t < 8; ++t) {
    clients.emplace_back([&, t] {
      RawHttpClient c(server_->port());
      for (int i = 0; i < 50; ++i) {
        const std::string body = std::to_string(t) + ":" + std::to_string(i);
        std::string req = "POST /echo HTTP/1.1\r\nHost: h\r\nContent-Length: ";
        req.append(std::to_string(body.size())).append("\r\n\r\n").append(body);
        if (!c.send(req)) return;
        auto r = c.read_response();
        if (r && r->status == 201 && r->body == body) ++ok;
      }
    });
  }
  for (auto& c : clients) c.join();
  EXPECT_EQ(ok.load(), 8 * 50);
}

TEST(HttpServerStart, PortInUseIsAClearError) {
  HttpServer first;
  ASSERT_TRUE(first.start().ok());
  HttpServerOptions options;
  options.port = first.port();
  HttpServer second(options);
  Status s = second.start();
  EXPECT_EQ(s.code(), ErrorCode::kUnavailable);
  EXPECT_NE(s.message().find("127.0.0.1:" + std::to_string(first.port())), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("another program uses this port"), std::string::npos) << s.message();
  EXPECT_EQ(second.port(), 0);
  EXPECT_EQ(first.start().code(), ErrorCode::kFailedPrecondition);
}

TEST(HttpServerStart, BadHostIsAnInvalidArgument) {
  HttpServerOptions options;
  options.host = "no-such-host.invalid";
  HttpServer server(options);
  EXPECT_EQ(server.start().code(), ErrorCode::kInvalidArgument);
}

}  // namespace
}  // namespace keel::server
