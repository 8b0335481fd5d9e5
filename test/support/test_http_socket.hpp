// Test helper: the socket plumbing of the scripted HTTP/1.1 test servers (static pages, mock LLM,
// MCP): a listener on 127.0.0.1 with a free port, one thread per connection, request reading and
// waits that end at once when the server stops.
//
//   TestHttpListener listener;
//   listener.start([](TestHttpConnection& c) {
//     TestHttpRequest request;
//     while (c.read_request(request)) c.send("HTTP/1.1 204 No Content\r\n\r\n");
//   });
//   ... listener.port() ...
//   listener.stop();  // before whatever the handler uses goes away
//
// Thread-safety: TestHttpListener's members may be called from any thread; a TestHttpConnection
// belongs to its connection's thread.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace keel::testing {

// One request as read from the wire.
struct TestHttpRequest {
  std::string method;
  std::string target;                          // path and query, as sent
  std::map<std::string, std::string> headers;  // names lowercased, values trimmed
  std::string body;                            // Content-Length bytes
};

// A standard reason phrase ("Not Found"), "Status" for unusual codes.
const char* http_reason_phrase(int status);
// ASCII lowercase.
std::string http_lowercase(std::string s);

// One accepted connection, handed to the listener's handler on the connection's own thread.
class TestHttpConnection {
 public:
  TestHttpConnection(int fd, int wake_fd) : fd_(fd), wake_fd_(wake_fd) {}

  // Reads the next request: head, then a Content-Length body ("Expect: 100-continue" is answered).
  // False when the client closed the connection, on an error, or when the server stops.
  bool read_request(TestHttpRequest& request);
  // Writes all of `bytes`; false when the connection is gone.
  bool send(std::string_view bytes);
  // Waits `ms`; false when the server is stopping (or, with `watch_peer`, the client hung up).
  bool wait_ms(int64_t ms, bool watch_peer = false);
  // Closes the connection now, without a proper end (an abrupt drop for the client).
  void drop();

 private:
  bool read_more();

  int fd_;
  int wake_fd_;
  std::string buffer_;  // bytes read past the previous request
};

class TestHttpListener {
 public:
  using Handler = std::function<void(TestHttpConnection&)>;

  TestHttpListener() = default;
  ~TestHttpListener() { stop(); }
  TestHttpListener(const TestHttpListener&) = delete;
  TestHttpListener& operator=(const TestHttpListener&) = delete;

  // Binds 127.0.0.1 on a free port and accepts, running `handler` on a thread per connection (it
  // returns when it is done with the connection, which is then closed). False on a socket error.
  bool start(Handler handler);
  // Stops accepting, wakes every connection (waits included), shuts their sockets down and joins
  // every thread. Idempotent; returns promptly whatever the clients do.
  void stop();

  int port() const { return port_; }
  size_t connections_accepted() const { return accepted_.load(); }

 private:
  struct Connection {
    std::thread thread;
    std::shared_ptr<std::atomic<bool>> done;
  };
  void accept_loop();
  void reap_finished();

  Handler handler_;
  int listen_fd_ = -1;
  int wake_fd_ = -1;  // eventfd: readable once the server stops
  int port_ = 0;
  std::atomic<bool> stopped_{false};
  std::atomic<size_t> accepted_{0};
  std::thread accept_thread_;
  std::mutex mutex_;  // guards the connections
  std::vector<Connection> connections_;
  std::set<int> open_fds_;
};

}  // namespace keel::testing
