// keel's own HTTP/1.1 client for plain http:// to an address; see plain_http_client.hpp.
#include "net/plain_http_client.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <system_error>
#include <vector>

#include "net/curl_easy.hpp"  // kKeelUserAgent
#include "net/http1_reply_reader.hpp"
#include "net/http_text.hpp"
#include "net/http_transfer.hpp"

namespace keel::detail {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int kWaitSliceMs = 25;                      // how often a wait wakes to ask whether to go on
constexpr int64_t kDefaultConnectTimeoutMs = 300000;  // libcurl's default

std::string os_error(int err) {
  return std::system_category().message(err);
}

// The request line and headers, written the way libcurl writes them: Host, User-Agent and Accept
// unless the caller sets its own, the caller's headers ("Name:" with no value drops a header,
// "Name;" sends it empty), and for a POST its Content-Length and libcurl's default Content-Type.
Result<std::string> request_head(const HttpRequest& request, const PlainHttpUrl& url) {
  const bool post = request.method == "POST";
  bool host = false, agent = false, accept = false, type = false, length = false;
  std::string custom;
  for (const std::string& header : request.headers) {
    if (header.find_first_of("\r\n") != std::string::npos) {
      return Status::InvalidArgument("a request header for " + request.target +
                                     " holds a line break: " + header.substr(0, header.find_first_of("\r\n")));
    }
    const size_t colon = header.find(':');
    const size_t semicolon = header.find(';');
    std::string_view name;
    std::string_view value;
    bool send = true;
    if (colon != std::string::npos) {
      name = trim_http_blanks(std::string_view(header).substr(0, colon));
      value = trim_http_blanks(std::string_view(header).substr(colon + 1));
      send = !value.empty();
    } else if (semicolon != std::string::npos &&
               trim_http_blanks(std::string_view(header).substr(semicolon + 1)).empty()) {
      name = trim_http_blanks(std::string_view(header).substr(0, semicolon));
    } else {
      continue;  // not a header line; libcurl would not send it either
    }
    if (name.empty()) continue;
    host = host || equals_lowercase(name, "host");
    agent = agent || equals_lowercase(name, "user-agent");
    accept = accept || equals_lowercase(name, "accept");
    type = type || equals_lowercase(name, "content-type");
    length = length || equals_lowercase(name, "content-length");
    if (!send) continue;
    custom.append(name).append(": ").append(value).append("\r\n");
  }
  std::string head;
  head.reserve(160 + custom.size());
  head.append(request.method).append(" ").append(url.target).append(" HTTP/1.1\r\n");
  if (!host) head.append("Host: ").append(url.host_header).append("\r\n");
  if (!agent) head.append("User-Agent: ").append(kKeelUserAgent).append("\r\n");
  if (!accept) head.append("Accept: */*\r\n");
  head.append(custom);
  if (post && !length) head.append("Content-Length: ").append(std::to_string(request.body.size())).append("\r\n");
  if (post && !type) head.append("Content-Type: application/x-www-form-urlencoded\r\n");
  head.append("\r\n");
  return head;
}

// Waits up to `ms` for `events` on `fd` or a write to `wake`; the events that came on `fd` (0
// when none: the time passed, a stop request, or an interrupted wait).
short wait_for(int fd, short events, int wake, int ms) {
  pollfd fds[2] = {{fd, events, 0}, {wake, POLLIN, 0}};
  if (::poll(fds, 2, ms) <= 0) return 0;
  return fds[0].revents;
}

int ms_until(Clock::time_point deadline) {
  if (deadline == Clock::time_point::max()) return kWaitSliceMs;
  const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return static_cast<int>(std::clamp<int64_t>(left, 0, kWaitSliceMs));
}

// Passes the reply's parts to the transfer, as libcurl's callbacks would.
class ToTransfer : public Http1ReplyReader::Handler {
 public:
  explicit ToTransfer(Transfer& t) : t_(t) {}
  bool on_head_line(std::string_view line) override { return t_.on_header_line(line); }
  bool on_body(std::string_view bytes) override { return t_.on_body_bytes(bytes); }

 private:
  Transfer& t_;
};

// One request on one connection: connecting (when there is none), sending and reading.
class Exchange {
 public:
  Exchange(const HttpRequest& request, Transfer& transfer, int wake, Clock::time_point deadline)
      : request_(request), transfer_(transfer), wake_(wake), deadline_(deadline) {}

  // A new connection to `url`, or -1 with the outcome filled in.
  int connect(const PlainHttpUrl& url, HttpOutcome& out);

  enum class Result {
    kDone,   // the reply was read (or ended by keel, or refused: see the outcome)
    kStale,  // a kept-alive connection was found closed before any byte of the reply
  };
  // Sends the request and reads the reply on `fd` (the outcome's head is the caller's to fill in).
  // `keep` turns true when the connection may carry another request.
  Result exchange(int fd, const std::string& head, bool reused, HttpOutcome& out, bool& keep);

 private:
  // Whether the transfer must end now (a stop request, the idle or total timeout, a reader that
  // has what it needs), with `out` saying why.
  bool must_end(HttpOutcome& out);

  const HttpRequest& request_;
  Transfer& transfer_;
  int wake_;
  Clock::time_point deadline_;  // the whole transfer's; max when none
};

bool Exchange::must_end(HttpOutcome& out) {
  if (transfer_.should_abort()) return transfer_.ended_by_keel(out);
  if (Clock::now() < deadline_) return false;
  out.end = HttpEnd::kFailed;
  out.error = Status::DeadlineExceeded("request to " + request_.target + " timed out after " +
                                       std::to_string(request_.total_timeout_ms) + " ms (" +
                                       request_.total_timeout_name + "): no complete reply by then");
  return true;
}

int Exchange::connect(const PlainHttpUrl& url, HttpOutcome& out) {
  struct Address {
    int family;
    std::string text;
  };
  std::vector<Address> addresses;
  if (url.host == "localhost") {
    addresses = {{AF_INET, "127.0.0.1"}, {AF_INET6, "::1"}};
  } else {
    addresses = {{url.host.find(':') != std::string::npos ? AF_INET6 : AF_INET, url.host}};
  }
  const int64_t connect_ms = request_.connect_timeout_ms > 0 ? request_.connect_timeout_ms : kDefaultConnectTimeoutMs;
  const Clock::time_point connect_deadline = std::min(deadline_, Clock::now() + std::chrono::milliseconds(connect_ms));
  int err = 0;
  for (const Address& address : addresses) {
    sockaddr_storage storage{};
    socklen_t size = 0;
    if (address.family == AF_INET) {
      auto* in = reinterpret_cast<sockaddr_in*>(&storage);
      in->sin_family = AF_INET;
      in->sin_port = htons(url.port);
      ::inet_pton(AF_INET, address.text.c_str(), &in->sin_addr);
      size = sizeof(sockaddr_in);
    } else {
      auto* in6 = reinterpret_cast<sockaddr_in6*>(&storage);
      in6->sin6_family = AF_INET6;
      in6->sin6_port = htons(url.port);
      ::inet_pton(AF_INET6, address.text.c_str(), &in6->sin6_addr);
      size = sizeof(sockaddr_in6);
    }
    const int fd = ::socket(address.family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
      err = errno;
      continue;
    }
    bool connected = ::connect(fd, reinterpret_cast<sockaddr*>(&storage), size) == 0;
    err = connected ? 0 : errno;
    while (!connected && err == EINPROGRESS) {
      if (transfer_.should_abort()) {
        ::close(fd);
        transfer_.ended_by_keel(out);
        return -1;
      }
      if (Clock::now() >= connect_deadline) {
        ::close(fd);
        out.end = HttpEnd::kFailed;
        out.error = Status::Unavailable("timed out connecting to " + request_.target + " (connect_timeout_ms " +
                                        std::to_string(request_.connect_timeout_ms) + "): no connection after " +
                                        std::to_string(connect_ms) + " ms");
        out.retryable = true;
        return -1;
      }
      if (wait_for(fd, POLLOUT, wake_, ms_until(connect_deadline)) != 0) {
        socklen_t len = sizeof err;
        if (::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0) err = errno;
        connected = err == 0;
        if (!connected) break;
      }
    }
    if (!connected) {
      ::close(fd);
      continue;
    }
    const int one = 1;
    const int idle = 30;
    const int interval = 15;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    ::setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof one);
    ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof idle);
    ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &interval, sizeof interval);
    return fd;
  }
  out.end = HttpEnd::kFailed;
  out.error = Status::Unavailable("cannot connect to " + request_.target + ": " + os_error(err));
  out.retryable = true;
  return -1;
}

Exchange::Result Exchange::exchange(int fd, const std::string& head, bool reused, HttpOutcome& out, bool& keep) {
  keep = false;
  auto broke = [&](const std::string& why) {
    out.end = HttpEnd::kFailed;
    out.error = Status::Unavailable("connection to " + request_.target + " broke: " + why);
    out.retryable = true;
    out.connection_lost = true;
    return Result::kDone;
  };
  // Send the head and the body in one call where the socket takes it.
  const bool post = request_.method == "POST";
  iovec parts[2] = {{const_cast<char*>(head.data()), head.size()},
                    {const_cast<char*>(request_.body.data()), post ? request_.body.size() : 0}};
  size_t first = 0;
  while (first < 2) {
    msghdr message{};
    message.msg_iov = parts + first;
    message.msg_iovlen = 2 - first;
    const ssize_t n = ::sendmsg(fd, &message, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
      if (reused) return Result::kStale;
      return broke("sending the request failed: " + os_error(errno));
    }
    size_t sent = n > 0 ? static_cast<size_t>(n) : 0;
    while (first < 2 && sent >= parts[first].iov_len) sent -= parts[first++].iov_len;
    if (first < 2 && sent > 0) {
      parts[first].iov_base = static_cast<char*>(parts[first].iov_base) + sent;
      parts[first].iov_len -= sent;
    }
    if (first == 2) break;
    if (n < 0) {
      if (must_end(out)) return Result::kDone;
      wait_for(fd, POLLOUT, wake_, ms_until(deadline_));
    }
  }

  Http1ReplyReader reader;
  ToTransfer handler(transfer_);
  char buffer[16384];
  bool more_waiting = false;  // the last read filled the buffer: read again before waiting
  while (true) {
    if (must_end(out)) return Result::kDone;
    if (!more_waiting && wait_for(fd, POLLIN, wake_, ms_until(deadline_)) == 0) continue;
    const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
    more_waiting = n == static_cast<ssize_t>(sizeof buffer);
    if (n < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) continue;
      if (reused && !reader.started()) return Result::kStale;
      return broke("receiving the reply failed: " + os_error(errno));
    }
    if (n == 0 && reused && !reader.started()) return Result::kStale;
    const Http1ReplyReader::State state =
        n == 0 ? reader.at_close() : reader.feed(std::string_view(buffer, static_cast<size_t>(n)), handler);
    if (state == Http1ReplyReader::State::kReading) continue;
    if (state == Http1ReplyReader::State::kStopped) {
      if (!transfer_.ended_by_keel(out)) out.end = HttpEnd::kAbortedByBody;
      return Result::kDone;
    }
    if (state == Http1ReplyReader::State::kDone) {
      out.end = HttpEnd::kCompleted;
      keep = reader.keep_alive();
      return Result::kDone;
    }
    if (n == 0 && !reader.started()) {
      out.end = HttpEnd::kFailed;
      out.error = Status::Unavailable(request_.target + " closed the connection without replying");
      out.retryable = true;
      return Result::kDone;
    }
    if (n == 0) return broke(reader.error());
    out.end = HttpEnd::kFailed;
    out.error = Status::Unavailable("request to " + request_.target + " failed: " + reader.error());
    return Result::kDone;
  }
}

// Whether a kept-alive connection is still open with nothing unread on it.
bool still_open(int fd) {
  char byte;
  const ssize_t n = ::recv(fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
  return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
}

}  // namespace

PlainHttpClient::~PlainHttpClient() {
  close_connection();
  if (wake_ >= 0) ::close(wake_);
}

void PlainHttpClient::close_connection() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  peer_.clear();
}

HttpOutcome PlainHttpClient::perform(const HttpRequest& request, const PlainHttpUrl& url) {
  HttpOutcome out;
  Result<std::string> head = request_head(request, url);
  if (!head.ok()) {
    out.error = head.status();
    return out;
  }
  if (wake_ < 0) wake_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (wake_ < 0) {
    out.error = Status::Internal("cannot make an eventfd for a request to " + request.target + ": " + os_error(errno));
    return out;
  }
  Transfer transfer(request);
  const Clock::time_point deadline = request.total_timeout_ms > 0
                                         ? Clock::now() + std::chrono::milliseconds(request.total_timeout_ms)
                                         : Clock::time_point::max();
  Exchange exchange(request, transfer, wake_, deadline);
  const std::string peer = url.host + " " + std::to_string(url.port);
  {
    const int wake = wake_;
    std::stop_callback wake_on_stop(request.stop, [wake] {
      const uint64_t one = 1;
      [[maybe_unused]] const ssize_t n = ::write(wake, &one, sizeof one);
    });
    for (int attempt = 0; attempt < 2; ++attempt) {
      if (fd_ >= 0 && (peer_ != peer || !still_open(fd_))) close_connection();
      const bool reused = fd_ >= 0;
      if (!reused) {
        fd_ = exchange.connect(url, out);
        if (fd_ < 0) break;
        peer_ = peer;
      }
      bool keep = false;
      out = HttpOutcome{};
      const Exchange::Result result = exchange.exchange(fd_, *head, reused, out, keep);
      if (result == Exchange::Result::kStale) {
        close_connection();  // the server had closed it while idle: once more on a fresh one
        continue;
      }
      out.head = transfer.head;  // whatever the end, the head as far as it came
      if (!keep) close_connection();
      break;
    }
  }
  uint64_t drained = 0;
  [[maybe_unused]] const ssize_t n = ::read(wake_, &drained, sizeof drained);
  return out;
}

}  // namespace keel::detail
