#include "mcp_server/stdio_server.hpp"

#include <errno.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <string>

#include "base/thread_pool.hpp"

namespace keel::mcp {

using nlohmann::json;

namespace {

class LineWriter {
 public:
  explicit LineWriter(int fd) : fd_(fd) {}

  // Writes `message` and a newline; false once the output is gone.
  bool write(const json& message) {
    std::string line = message.dump(-1, ' ', false, json::error_handler_t::replace);
    line.push_back('\n');
    std::lock_guard<std::mutex> lock(mu_);
    if (broken_) return false;
    size_t off = 0;
    while (off < line.size()) {
      ssize_t n = ::write(fd_, line.data() + off, line.size() - off);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        broken_ = true;
        return false;
      }
      off += static_cast<size_t>(n);
    }
    return true;
  }

  bool broken() {
    std::lock_guard<std::mutex> lock(mu_);
    return broken_;
  }

 private:
  int fd_;
  std::mutex mu_;
  bool broken_ = false;
};

json parse_error(const std::string& why) {
  return {{"jsonrpc", "2.0"}, {"id", nullptr}, {"error", {{"code", -32700}, {"message", why}}}};
}

}  // namespace

Status serve_stdio(MessageHandler& handler, const StdioServeOptions& options) {
  LineWriter out(options.out_fd);
  MessageHandler::Notify notify = [&out](const json& m) { (void)out.write(m); };
  handler.set_outbox(notify);
  struct CloseOutbox {  // the writer dies with this call: close the outbox first
    MessageHandler& handler;
    ~CloseOutbox() { handler.set_outbox(nullptr); }
  } close_outbox{handler};
  std::mutex mu;
  std::condition_variable idle;
  size_t in_flight = 0;
  // Declared last: its destructor waits for running requests, which use everything above.
  detail::ThreadPool::Options po;
  po.threads = options.workers < 1 ? 1 : options.workers;
  po.max_threads = po.threads * 2;
  detail::ThreadPool pool(po);

  auto dispatch = [&](json message) {
    bool is_request = message.is_object() && message.contains("method") && message.contains("id");
    bool inline_ok = !is_request || message["method"] == "initialize";
    if (inline_ok) {
      std::optional<json> response = handler.handle(message, notify);
      if (response) (void)out.write(*response);
      return;
    }
    {
      std::lock_guard<std::mutex> lock(mu);
      ++in_flight;
    }
    pool.submit([&, message = std::move(message)] {
      std::optional<json> response = handler.handle(message, notify);
      if (response) (void)out.write(*response);
      std::lock_guard<std::mutex> lock(mu);
      --in_flight;
      idle.notify_all();
    });
  };

  std::string line;
  bool overlong = false;
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(options.in_fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    for (ssize_t i = 0; i < n; ++i) {
      char c = buf[i];
      if (c != '\n') {
        if (line.size() < options.max_message_bytes) {
          line.push_back(c);
        } else {
          overlong = true;
        }
        continue;
      }
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (overlong) {
        (void)out.write(parse_error("message longer than " + std::to_string(options.max_message_bytes) + " bytes"));
      } else if (!line.empty()) {
        json message = json::parse(line, nullptr, false);
        if (message.is_discarded()) {
          (void)out.write(parse_error("not valid JSON: " + line.substr(0, 120)));
        } else if (message.is_array()) {
          (void)out.write(parse_error("batches are not supported; send one message per line"));
        } else {
          dispatch(std::move(message));
        }
      }
      line.clear();
      overlong = false;
    }
    if (out.broken()) break;
  }
  std::unique_lock<std::mutex> lock(mu);
  idle.wait(lock, [&] { return in_flight == 0; });
  lock.unlock();
  if (out.broken()) return Status::Unavailable("the MCP client closed keel's output");
  return Status::Ok();
}

}  // namespace keel::mcp
