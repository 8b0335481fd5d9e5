// Test helper: an HTTP/1.1 file server on 127.0.0.1 for download tests. It answers Range requests
// ("bytes=N-") with 206 or 416, can break off or stall an answer partway, can redirect, and records
// every request.
//
//   keel::testing::RangeHttpServer server;
//   keel::testing::RangeFile f;
//   f.body = bytes;
//   f.headers = {{"X-Linked-Etag", "\"" + sha + "\""}};
//   f.cut_after = 1000;                    // the first answer drops the connection after 1000 bytes
//   server.serve_file("/model.gguf", f);
//   ... download server.url("/model.gguf") twice ...
//   EXPECT_EQ(server.requests()[1].headers.at("range"), "bytes=1000-");
//
// Unknown targets answer 404. stop() (also run by the destructor) wakes stalled answers and joins
// every thread.
//
// Thread-safety: all public members may be called from any thread while the server runs.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "support/test_http_socket.hpp"

namespace keel::testing {

using RangeHeaders = std::vector<std::pair<std::string, std::string>>;

// A file and how to misbehave while serving it.
struct RangeFile {
  std::string body;
  RangeHeaders headers;       // sent with every answer (200, 206 and 416)
  int64_t cut_after = -1;     // >= 0: the first answer sends this many body bytes, then drops the connection
  int64_t stall_after = -1;   // >= 0: every answer sends this many body bytes, then nothing until stop()
  bool ignore_range = false;  // answer Range requests with 200 and the whole file
};

class RangeHttpServer {
 public:
  // Binds 127.0.0.1 on a free port and starts accepting; port() is 0 when that failed.
  RangeHttpServer();
  ~RangeHttpServer();
  RangeHttpServer(const RangeHttpServer&) = delete;
  RangeHttpServer& operator=(const RangeHttpServer&) = delete;

  int port() const { return listener_.port(); }
  // "http://127.0.0.1:<port><path>".
  std::string url(std::string_view path = "") const;

  // Serves `file` at `target` (exact match, e.g. "/m.gguf").
  void serve_file(std::string target, RangeFile file);
  // Answers `target` with 302 to `location`, sending `headers` too.
  void redirect(std::string target, std::string location, RangeHeaders headers = {});

  std::vector<TestHttpRequest> requests() const;

  void stop();

 private:
  struct Route {
    bool redirect = false;
    std::string location;
    RangeFile file;
    int answers = 0;
  };
  void serve(TestHttpConnection& connection);
  // Answers one request; false when the connection must end.
  bool answer(TestHttpConnection& connection, const TestHttpRequest& request);

  mutable std::mutex mutex_;
  std::map<std::string, Route> routes_;
  std::vector<TestHttpRequest> requests_;
  TestHttpListener listener_;  // last: its threads stop before the members above go away
};

}  // namespace keel::testing
