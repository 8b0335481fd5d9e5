#include "mcp/stdio_transport.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include "core/text/text_util.hpp"
#include "mcp/line_splitter.hpp"
#include "mcp/sigpipe_shield.hpp"
#include "mcp/stdio_process.hpp"

namespace keel::mcp {
namespace {

using Clock = std::chrono::steady_clock;
using detail::concat;
using std::chrono::milliseconds;

constexpr milliseconds kTermToKill{500};     // close(): SIGTERM, then SIGKILL this much later
constexpr milliseconds kKillToGiveUp{2000};  // SIGKILL not taking (uninterruptible sleep): stop waiting
constexpr milliseconds kEndDrain{300};       // after exit or stdout EOF: wait this long for the rest
constexpr milliseconds kExitPoll{50};        // no pidfd: how often the reader checks for an exit
constexpr milliseconds kWriteSlice{20};      // longest wait in send() between stop and close checks
constexpr milliseconds kDestructorGrace{1000};
constexpr milliseconds kLongestTimeout{std::chrono::hours(24 * 365)};  // keeps now + timeout finite
constexpr size_t kReadChunk = 64 * 1024;
constexpr int kChunksPerWakeup = 16;  // then poll again, so stderr and stdout take turns
constexpr size_t kLogLineBytes = 4 * 1024;
constexpr size_t kTailLines = 20;
constexpr size_t kTailBytes = 2 * 1024;
constexpr size_t kLabelBytes = 110;  // "stdio: " + label stays near 120
constexpr size_t kExcerptBytes = 200;

// `s` as valid UTF-8 (invalid bytes become U+FFFD), so it can go into JSON and Status messages.
// nlohmann's own validation does the work so that what passes here never fails its dump().
std::string valid_utf8(std::string_view s) {
  if (std::all_of(s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; })) {
    return std::string(s);
  }
  try {
    const std::string quoted =
        nlohmann::json(std::string(s)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    return nlohmann::json::parse(quoted).get<std::string>();
  } catch (const std::exception&) {
    std::string ascii;
    for (char c : s) ascii.push_back(static_cast<unsigned char>(c) < 0x80 ? c : '?');
    return ascii;
  }
}

std::string excerpt(std::string_view s) {
  return keel::detail::shorten(keel::detail::one_line(valid_utf8(s)), kExcerptBytes);
}

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

int open_pidfd(pid_t pid) {
#ifdef SYS_pidfd_open
  return static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));  // close-on-exec by definition
#else
  (void)pid;
  return -1;
#endif
}

// The Transport over a child process's stdin and stdout. Thread-safe as Transport says.
class StdioTransport final : public Transport {
 public:
  explicit StdioTransport(StdioServerSpec spec) : spec_(std::move(spec)) {
    std::string label = spec_.command;
    for (const std::string& a : spec_.args) label.append(" ").append(a);
    label_ = keel::detail::shorten(valid_utf8(label), kLabelBytes);
  }

  ~StdioTransport() override {
    close(kDestructorGrace);
    if (reader_.joinable()) {
      if (std::this_thread::get_id() == reader_.get_id()) {
        reader_.detach();  // a contract breach (destroyed from a callback); avoid terminate()
      } else {
        reader_.join();
      }
    }
    close_fds();
  }

  Status start(TransportCallbacks callbacks, milliseconds timeout) override;
  Status send(const nlohmann::json& message, const SendOptions& options) override;
  void close(milliseconds grace) override;
  std::string describe() const override { return concat({"stdio: ", label_}); }

 private:
  // Reader thread.
  void read_loop();
  void on_stdout_line(std::string_view line);
  void on_stderr_line(std::string_view line);
  void report_end(bool reaped);
  void deliver_message(nlohmann::json message);
  void deliver_garbage(std::string detail);

  // Reaps the child without blocking; true once it has been reaped (by this call or an earlier one).
  bool try_reap();
  bool wait_reaped(Clock::time_point until);
  Status write_line(std::string_view line, Clock::time_point deadline, const SendOptions& options, size_t* written);
  Status closed_by_us() const {
    return Status::Unavailable(concat({"MCP server '", label_, "': the connection was closed"}));
  }
  void wake_reader();
  void close_fds();

  StdioServerSpec spec_;
  std::string label_;  // "command args", shortened
  TransportCallbacks callbacks_;
  detail::ChildProcess child_;
  int pid_fd_ = -1;  // readable once the child has exited; -1 where the kernel has no pidfd
  int wake_read_ = -1;
  int wake_write_ = -1;
  std::thread reader_;
  std::atomic<bool> started_{false};
  std::atomic<bool> closing_{false};      // close() was asked for: no more callbacks, sends fail
  std::atomic<bool> stop_reader_{false};  // close() is done with the child: the reader ends

  std::mutex reap_mu_;
  bool reaped_ = false;  // guarded by reap_mu_
  int wait_status_ = 0;  // guarded by reap_mu_; -1 when someone else reaped the child

  std::mutex write_mu_;
  std::condition_variable_any write_cv_;
  bool writing_ = false;  // guarded by write_mu_: one send() at a time owns stdin
  bool torn_ = false;     // guarded by write_mu_: a write stopped mid-line; the next ends that line

  mutable std::mutex state_mu_;
  std::optional<Status> ended_;  // guarded by state_mu_: why the connection ended by itself

  std::mutex close_mu_;
  bool close_done_ = false;  // guarded by close_mu_

  // Reader-thread state.
  std::deque<std::string> tail_;
  size_t tail_bytes_ = 0;
};

Status StdioTransport::start(TransportCallbacks callbacks, milliseconds timeout) {
  (void)timeout;  // posix_spawn returns once the program runs; there is nothing to wait for
  {
    std::lock_guard lk(close_mu_);
    if (close_done_) return closed_by_us();
  }
  if (started_) return Status::FailedPrecondition(concat({"MCP server '", label_, "' was already started"}));
  callbacks_ = std::move(callbacks);
  int wake[2];
  if (::pipe2(wake, O_CLOEXEC | O_NONBLOCK) != 0) {
    return Status::Unavailable(
        concat({"cannot start MCP server '", label_, "': cannot create a pipe: ", std::strerror(errno)}));
  }
  wake_read_ = wake[0];
  wake_write_ = wake[1];
  KEEL_ASSIGN_OR_RETURN(child_, detail::spawn_child(spec_));
  pid_fd_ = open_pidfd(child_.pid);
  started_ = true;
  try {
    reader_ = std::thread([this] { read_loop(); });
  } catch (const std::system_error& e) {
    ::kill(-child_.pid, SIGKILL);
    wait_reaped(Clock::now() + kKillToGiveUp);
    closing_ = true;
    return Status::Unavailable(concat({"cannot start MCP server '", label_, "': no thread to read it: ", e.what()}));
  }
  return Status::Ok();
}

Status StdioTransport::send(const nlohmann::json& message, const SendOptions& options) {
  const auto deadline = Clock::now() + std::clamp(options.timeout, milliseconds(0), kLongestTimeout);
  if (!started_) return Status::FailedPrecondition(concat({"MCP server '", label_, "' is not started"}));
  if (closing_) return closed_by_us();
  {
    std::lock_guard lk(state_mu_);
    if (ended_) return *ended_;
  }
  if (options.stop.stop_requested()) {
    return Status::Cancelled(concat({"sending to MCP server '", label_, "' was cancelled"}));
  }
  std::string line;
  try {
    // Never throws on invalid UTF-8 (replaced); dump() escapes control characters, so no '\n' inside.
    line = message.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  } catch (const std::exception& e) {
    return Status::InvalidArgument(concat({"cannot serialise a message for MCP server '", label_, "': ", e.what()}));
  }
  line.push_back('\n');

  {
    std::unique_lock lk(write_mu_);
    if (!write_cv_.wait_until(lk, options.stop, deadline, [&] { return !writing_ || closing_; })) {
      if (options.stop.stop_requested()) {
        return Status::Cancelled(
            concat({"sending to MCP server '", label_, "' was cancelled while it was not reading its input"}));
      }
      return Status::DeadlineExceeded(
          concat({"MCP server '", label_, "' is not reading its input: an earlier message is still being written"}));
    }
    if (closing_) return closed_by_us();
    writing_ = true;
    if (torn_) line.insert(line.begin(), '\n');  // ends the torn line; the server drops it as invalid JSON
  }
  size_t written = 0;
  Status st = write_line(line, deadline, options, &written);
  {
    std::lock_guard lk(write_mu_);
    writing_ = false;
    if (written > 0) torn_ = written < line.size();
  }
  write_cv_.notify_all();
  return st;
}

Status StdioTransport::write_line(std::string_view line, Clock::time_point deadline, const SendOptions& options,
                                  size_t* written) {
  detail::SigpipeShield shield;
  while (*written < line.size()) {
    const ssize_t n = ::write(child_.stdin_fd, line.data() + *written, line.size() - *written);
    if (n > 0) {
      *written += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
      const int err = errno;
      if (err == EPIPE) shield.raised();
      std::lock_guard lk(state_mu_);
      if (ended_) return *ended_;
      if (err == EPIPE) {
        return Status::Unavailable(concat({"MCP server '", label_, "' is gone: it closed its input (has it exited?)"}));
      }
      return Status::Unavailable(concat({"cannot write to MCP server '", label_, "': ", std::strerror(err)}));
    }
    // The pipe is full: the server is not reading (yet).
    if (closing_) return closed_by_us();
    if (options.stop.stop_requested()) {
      return Status::Cancelled(
          concat({"sending to MCP server '", label_, "' was cancelled: the server is not reading its input"}));
    }
    const auto now = Clock::now();
    if (now >= deadline) {
      return Status::DeadlineExceeded(
          concat({"MCP server '", label_, "' is not reading its input: ", std::to_string(line.size() - *written),
                  " of ", std::to_string(line.size()), " bytes still unwritten after ",
                  std::to_string(options.timeout.count()), " ms"}));
    }
    const auto wait = std::min(std::chrono::duration_cast<milliseconds>(deadline - now) + milliseconds(1), kWriteSlice);
    pollfd pfd{child_.stdin_fd, POLLOUT, 0};
    ::poll(&pfd, 1, static_cast<int>(wait.count()));
  }
  return Status::Ok();
}

void StdioTransport::close(milliseconds grace) {
  const bool on_reader = reader_.joinable() && std::this_thread::get_id() == reader_.get_id();
  std::unique_lock lk(close_mu_, std::defer_lock);
  if (on_reader) {
    if (!lk.try_lock()) return;  // another thread is closing and will wait for this callback to end
  } else {
    lk.lock();
  }
  if (!close_done_) {
    close_done_ = true;
    closing_ = true;
    if (started_) {
      {
        std::unique_lock wl(write_mu_);
        write_cv_.notify_all();
        write_cv_.wait(wl, [&] { return !writing_; });  // a blocked send() sees closing_ within kWriteSlice
        close_fd(child_.stdin_fd);                      // end of input: a well-behaved server exits now
      }
      const auto waited_from = Clock::now();
      bool gone = wait_reaped(waited_from + std::max(grace, milliseconds(0)));
      if (!gone) {
        ::kill(-child_.pid, SIGTERM);
        gone = wait_reaped(Clock::now() + kTermToKill);
      }
      if (!gone) {
        ::kill(-child_.pid, SIGKILL);
        gone = wait_reaped(Clock::now() + kKillToGiveUp);
      }
      stop_reader_ = true;
      wake_reader();
    }
  }
  if (on_reader) return;  // the reader ends when this callback returns; the destructor joins it
  if (reader_.joinable()) reader_.join();
  close_fds();
}

bool StdioTransport::try_reap() {
  std::lock_guard lk(reap_mu_);
  if (reaped_) return true;
  for (;;) {
    // Look first without reaping: while the exited server is a zombie its pid, and so its group id,
    // cannot be reused, so the helpers it left in its group (a wrapper's children) can be told to
    // go without any risk of signalling an unrelated process.
    siginfo_t info{};
    if (::waitid(P_PID, static_cast<id_t>(child_.pid), &info, WEXITED | WNOHANG | WNOWAIT) < 0) {
      if (errno == EINTR) continue;
      reaped_ = true;  // ECHILD: the host reaps children itself (SIGCHLD ignored); the status is lost
      wait_status_ = -1;
      return true;
    }
    if (info.si_pid == 0) return false;  // still running
    ::kill(-child_.pid, SIGTERM);
    int status = 0;
    pid_t r = -1;
    while ((r = ::waitpid(child_.pid, &status, 0)) < 0 && errno == EINTR) {
    }
    reaped_ = true;
    if (r < 0) status = -1;
    wait_status_ = status;
    return true;
  }
}

bool StdioTransport::wait_reaped(Clock::time_point until) {
  for (;;) {
    if (try_reap()) return true;
    if (Clock::now() >= until) return false;
    std::this_thread::sleep_for(milliseconds(5));
  }
}

void StdioTransport::wake_reader() {
  if (wake_write_ < 0) return;
  const char byte = 1;
  while (::write(wake_write_, &byte, 1) < 0 && errno == EINTR) {
  }
}

void StdioTransport::close_fds() {
  close_fd(child_.stdin_fd);
  close_fd(child_.stdout_fd);
  close_fd(child_.stderr_fd);
  close_fd(pid_fd_);
  close_fd(wake_read_);
  close_fd(wake_write_);
}

// ---------------------------------------------------------------- the reader thread

void StdioTransport::read_loop() {
  detail::LineSplitter out_lines(spec_.max_message_bytes);
  detail::LineSplitter err_lines(kLogLineBytes, kLogLineBytes);
  using LineFn = detail::LineSplitter::LineFn;
  using OverlongFn = detail::LineSplitter::OverlongFn;
  const LineFn on_out = [this](std::string_view line) { on_stdout_line(line); };
  const OverlongFn on_out_overlong = [this](std::string_view head) {
    deliver_garbage(concat({"message from server longer than the limit of ", std::to_string(spec_.max_message_bytes),
                            " bytes (max_message_bytes) discarded: ", excerpt(head)}));
  };
  const LineFn on_err = [this](std::string_view line) { on_stderr_line(line); };
  const OverlongFn on_err_overlong = [this](std::string_view head) { on_stderr_line(concat({head, " [line cut]"})); };

  std::vector<char> buf(kReadChunk);
  bool out_open = true;
  bool err_open = true;
  bool reaped = false;
  bool reported = false;
  std::optional<Clock::time_point> end_seen;  // when the exit or stdout's EOF was first seen

  // Reads what `fd` has (a bounded amount); false at EOF or on an error.
  const auto drain = [&](int fd, detail::LineSplitter& lines, const LineFn& on_line, const OverlongFn& on_overlong) {
    for (int i = 0; i < kChunksPerWakeup; ++i) {
      const ssize_t n = ::read(fd, buf.data(), buf.size());
      if (n > 0) {
        lines.feed(std::string_view(buf.data(), static_cast<size_t>(n)), on_line, on_overlong);
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return true;
      lines.finish(on_line);
      return false;
    }
    return true;
  };

  while (!stop_reader_) {
    pollfd fds[4];
    nfds_t count = 0;
    fds[count++] = {wake_read_, POLLIN, 0};
    const nfds_t out_at = out_open ? count++ : 0;
    if (out_open) fds[out_at] = {child_.stdout_fd, POLLIN, 0};
    const nfds_t err_at = err_open ? count++ : 0;
    if (err_open) fds[err_at] = {child_.stderr_fd, POLLIN, 0};
    if (!reaped && pid_fd_ >= 0) fds[count++] = {pid_fd_, POLLIN, 0};

    int timeout_ms = -1;
    if (!reaped && pid_fd_ < 0) timeout_ms = static_cast<int>(kExitPoll.count());
    if (end_seen && !reported) {
      const auto left = std::chrono::duration_cast<milliseconds>(*end_seen + kEndDrain - Clock::now());
      const int left_ms = static_cast<int>(std::max<int64_t>(1, left.count() + 1));
      timeout_ms = timeout_ms < 0 ? left_ms : std::min(timeout_ms, left_ms);
    }
    if (::poll(fds, count, timeout_ms) < 0 && errno != EINTR) {
      std::this_thread::sleep_for(kExitPoll);  // cannot happen with valid descriptors; do not spin
    }
    if ((fds[0].revents & POLLIN) != 0) {
      char sink[64];
      while (::read(wake_read_, sink, sizeof sink) > 0) {
      }
      continue;  // stop_reader_ is checked at the top
    }
    constexpr short kReadable = POLLIN | POLLHUP | POLLERR;
    if (out_open && (fds[out_at].revents & kReadable) != 0) {
      out_open = drain(child_.stdout_fd, out_lines, on_out, on_out_overlong);
    }
    if (err_open && (fds[err_at].revents & kReadable) != 0) {
      err_open = drain(child_.stderr_fd, err_lines, on_err, on_err_overlong);
    }
    if (!reaped) reaped = try_reap();
    if (!end_seen && (reaped || !out_open)) end_seen = Clock::now();
    if (!end_seen) continue;
    const bool drained = reaped && !out_open && !err_open;
    const bool waited = Clock::now() >= *end_seen + kEndDrain;
    if (!reported && (drained || waited)) {
      report_end(reaped);
      reported = true;
    }
    if (reported && reaped) break;  // nothing left to watch; close() needs no reader
  }
}

void StdioTransport::on_stdout_line(std::string_view line) {
  line = keel::detail::trim(line);
  if (line.empty() || closing_) return;
  nlohmann::json parsed = nlohmann::json::parse(line.begin(), line.end(), nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) {
    deliver_garbage(concat({"non-JSON line from server: ", excerpt(line)}));
  } else if (parsed.is_object()) {
    deliver_message(std::move(parsed));
  } else if (parsed.is_array() && !parsed.empty()) {
    for (nlohmann::json& element : parsed) {
      if (element.is_object()) {
        deliver_message(std::move(element));
      } else {
        deliver_garbage(concat({"batch element from server that is not a JSON-RPC message: ",
                                excerpt(element.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace))}));
      }
    }
  } else {
    deliver_garbage(concat({"JSON line from server that is not a JSON-RPC message: ", excerpt(line)}));
  }
}

void StdioTransport::on_stderr_line(std::string_view raw) {
  while (!raw.empty() && (raw.back() == '\r' || raw.back() == ' ')) raw.remove_suffix(1);
  if (raw.empty()) return;
  std::string line = valid_utf8(raw);
  std::string kept = keel::detail::shorten(line, kTailBytes);
  tail_bytes_ += kept.size();
  tail_.push_back(std::move(kept));
  while (tail_.size() > kTailLines || (tail_.size() > 1 && tail_bytes_ > kTailBytes)) {
    tail_bytes_ -= tail_.front().size();
    tail_.pop_front();
  }
  if (!closing_ && callbacks_.on_log) callbacks_.on_log(std::move(line));
}

void StdioTransport::report_end(bool reaped) {
  int status = 0;
  {
    std::lock_guard lk(reap_mu_);
    status = wait_status_;
  }
  std::string msg = concat({"MCP server '", label_, "' "});
  msg.append(reaped ? detail::describe_wait_status(status) : "closed its output (stdout) but is still running");
  if (!tail_.empty()) {
    msg.append("; last stderr: ");
    for (size_t i = 0; i < tail_.size(); ++i) {
      if (i > 0) msg.append("\n");
      msg.append(tail_[i]);
    }
  }
  Status why = Status::Unavailable(std::move(msg));
  {
    std::lock_guard lk(state_mu_);
    ended_ = why;
  }
  if (!closing_ && callbacks_.on_closed) callbacks_.on_closed(std::move(why));
}

void StdioTransport::deliver_message(nlohmann::json message) {
  if (!closing_ && callbacks_.on_message) callbacks_.on_message(std::move(message));
}

void StdioTransport::deliver_garbage(std::string detail) {
  if (!closing_ && callbacks_.on_garbage) callbacks_.on_garbage(std::move(detail));
}

}  // namespace

std::unique_ptr<Transport> make_stdio_transport(StdioServerSpec spec) {
  return std::make_unique<StdioTransport>(std::move(spec));
}

}  // namespace keel::mcp
