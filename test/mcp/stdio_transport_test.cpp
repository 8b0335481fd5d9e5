// The stdio transport against keel_fault_mcp_server (and /bin/sh one-liners for framing cases).
#include "mcp/stdio_transport.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <initializer_list>
#include <map>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "support/temp_dir.hpp"

namespace keel::mcp {
namespace {

using Clock = std::chrono::steady_clock;
using nlohmann::json;
using std::chrono::milliseconds;

constexpr milliseconds kWait{10000};  // generous: the CI box is loaded

// The parts joined (by appending: GCC 12 warns falsely on chained operator+).
std::string cat(std::initializer_list<std::string_view> parts) {
  std::string out;
  for (std::string_view p : parts) out.append(p);
  return out;
}

int64_t ms_since(Clock::time_point start) {
  return std::chrono::duration_cast<milliseconds>(Clock::now() - start).count();
}

// Collects what a transport reports, for assertions from the test thread.
struct Recorder {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<json> messages;
  std::vector<std::string> garbage;
  std::vector<std::string> logs;
  std::optional<Status> closed;
  int closed_calls = 0;

  TransportCallbacks callbacks() {
    TransportCallbacks cb;
    cb.on_message = [this](json m) { add([&] { messages.push_back(std::move(m)); }); };
    cb.on_garbage = [this](std::string g) { add([&] { garbage.push_back(std::move(g)); }); };
    cb.on_log = [this](std::string l) { add([&] { logs.push_back(std::move(l)); }); };
    cb.on_closed = [this](Status s) {
      add([&] {
        closed = std::move(s);
        ++closed_calls;
      });
    };
    return cb;
  }
  template <class F>
  void add(F f) {
    {
      std::lock_guard lk(mu);
      f();
    }
    cv.notify_all();
  }
  template <class Pred>
  bool wait(Pred pred, milliseconds timeout = kWait) {
    std::unique_lock lk(mu);
    return cv.wait_for(lk, timeout, pred);
  }
  // The response with `id`, once it arrived (waits).
  std::optional<json> response(int id, milliseconds timeout = kWait) {
    std::optional<json> found;
    wait(
        [&] {
          for (const json& m : messages) {
            if (m.contains("id") && m["id"] == id) found = m;
          }
          return found.has_value();
        },
        timeout);
    return found;
  }
  bool has_log(const std::string& needle) {
    std::lock_guard lk(mu);
    for (const std::string& l : logs) {
      if (l.find(needle) != std::string::npos) return true;
    }
    return false;
  }
};

json request(int id, const std::string& method, json params = json::object()) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}};
}

json initialize(int id) {
  return request(id, "initialize",
                 {{"protocolVersion", "2025-06-18"},
                  {"capabilities", json::object()},
                  {"clientInfo", {{"name", "keel-test"}, {"version", "0"}}}});
}

json call(int id, const std::string& tool, json args = json::object()) {
  return request(id, "tools/call", {{"name", tool}, {"arguments", std::move(args)}});
}

StdioServerSpec fault_server(std::vector<std::string> args = {}) {
  StdioServerSpec spec;
  spec.command = KEEL_FAULT_MCP_SERVER;
  spec.args = std::move(args);
  return spec;
}

StdioServerSpec shell(const std::string& script) {
  StdioServerSpec spec;
  spec.command = "sh";  // found on PATH
  spec.args = {"-c", script};
  return spec;
}

SendOptions quick(milliseconds timeout = kWait) {
  SendOptions o;
  o.timeout = timeout;
  return o;
}

std::string text_of(const json& response) {
  return response["result"]["content"][0]["text"].get<std::string>();
}

// The fault server's pid, from its first stderr line "fault-server: started, pid N".
pid_t server_pid(Recorder& rec) {
  pid_t pid = -1;
  rec.wait([&] {
    for (const std::string& l : rec.logs) {
      const size_t at = l.find("started, pid ");
      if (at != std::string::npos) pid = static_cast<pid_t>(std::atoi(l.c_str() + at + 13));
    }
    return pid > 0;
  });
  return pid;
}

// True once `pid` is neither running nor a zombie of ours.
bool fully_gone(pid_t pid) {
  int status = 0;
  return ::kill(pid, 0) == -1 && errno == ESRCH && ::waitpid(pid, &status, WNOHANG) == -1 && errno == ECHILD;
}

TEST(StdioTransport, InitializeRoundTripAndQuietClose) {
  Recorder rec;
  auto t = make_stdio_transport(fault_server());
  EXPECT_EQ(t->describe(), cat({"stdio: ", KEEL_FAULT_MCP_SERVER}));
  ASSERT_TRUE(t->start(rec.callbacks(), milliseconds(5000)).ok());
  ASSERT_TRUE(t->send(initialize(1), quick()).ok());
  const auto r = rec.response(1);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ((*r)["jsonrpc"], "2.0");
  EXPECT_EQ((*r)["result"]["protocolVersion"], "2025-06-18");
  EXPECT_EQ((*r)["result"]["serverInfo"]["name"], "fault-server");
  const pid_t pid = server_pid(rec);
  ASSERT_GT(pid, 0);

  const auto start = Clock::now();
  t->close(milliseconds(5000));  // the server exits on stdin EOF: no signal needed
  EXPECT_LT(ms_since(start), 3000);
  EXPECT_TRUE(fully_gone(pid));
  std::lock_guard lk(rec.mu);
  EXPECT_EQ(rec.closed_calls, 0);  // a close() the client asked for is not reported
  const Status after = t->send(request(2, "ping"), quick());
  EXPECT_EQ(after.code(), ErrorCode::kUnavailable);
}

TEST(StdioTransport, GarbageIsReportedAndTheNextMessageStillArrives) {
  Recorder rec;
  auto t = make_stdio_transport(fault_server({"--garbage"}));
  ASSERT_TRUE(t->start(rec.callbacks(), milliseconds(5000)).ok());
  ASSERT_TRUE(t->send(request(7, "ping"), quick()).ok());
  const auto r = rec.response(7);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ((*r)["result"], json::object());
  std::lock_guard lk(rec.mu);
  ASSERT_EQ(rec.garbage.size(), 1u);
  EXPECT_EQ(rec.garbage[0], "non-JSON line from server: this is not json");
}

TEST(StdioTransport, FiveMegabyteMessageArrivesIntact) {
  Recorder rec;
  auto t = make_stdio_transport(fault_server({"--huge-bytes", "5000000"}));
  ASSERT_TRUE(t->start(rec.callbacks(), milliseconds(5000)).ok());
  ASSERT_TRUE(t->send(call(1, "echo", {{"text", "big"}}), quick()).ok());
  const auto r = rec.response(1);
  ASSERT_TRUE(r.has_value());
  const std::string text = text_of(*r);
  ASSERT_EQ(text.size(), 5000000u);
  EXPECT_EQ(text.substr(0, 9), "echo: big");
  EXPECT_EQ(text.find_first_not_of('.', 9), std::string::npos);
  std::lock_guard lk(rec.mu);
  EXPECT_TRUE(rec.garbage.empty());
}

TEST(StdioTransport, OverLimitLineIsDroppedAndReportedOnce) {
  Recorder rec;
  StdioServerSpec spec = fault_server({"--huge-bytes", "300000"});
  spec.max_message_bytes = 1000;
  auto t = make_stdio_transport(std::move(spec));
  ASSERT_TRUE(t->start(rec.callbacks(), milliseconds(5000)).ok());
  ASSERT_TRUE(t->send(call(1, "echo", {{"text", "x"}}), quick()).ok());
  ASSERT_TRUE(t->send(request(2, "ping"), quick()).ok());
  ASSERT_TRUE(rec.response(2).has_value());
  std::lock_guard lk(rec.mu);
  ASSERT_EQ(rec.garbage.size(), 1u);
  EXPECT_EQ(rec.garbage[0].rfind("message from server longer than the limit of 1000 bytes", 0), 0u) << rec.garbage[0];
  EXPECT_NE(rec.garbage[0].find("{\"id\":1"), std::string::npos) << rec.garbage[0];  // the line's start
  ASSERT_EQ(rec.messages.size(), 1u);                                                // only the ping's answer
}

TEST(StdioTransport, CrashIsReportedWithExitCodeAndStderrTail) {
  Recorder rec;
  auto t = make_stdio_transport(fault_server({"--crash-on", "tools/call"}));
  ASSERT_TRUE(t->start(rec.callbacks(), milliseconds(5000)).ok());
  ASSERT_TRUE(t->send(initialize(1), quick()).ok());
  ASSERT_TRUE(rec.response(1).has_value());
  ASSERT_TRUE(t->send(call(2, "echo", {{"text", "x"}}), quick()).ok());
  ASSERT_TRUE(rec.wait([&] { return rec.closed.has_value(); }));
  Status why;
  {
    std::lock_guard lk(rec.mu);
    why = *rec.closed;
  }
  EXPECT_EQ(why.code(), ErrorCode::kUnavailable);
  const std::string expected_start =
      cat({"MCP server '", KEEL_FAULT_MCP_SERVER, " --crash-on tools/call' exited with code 3; last stderr: "});
  EXPECT_EQ(why.message().rfind(expected_start, 0), 0u) << why.message();
  EXPECT_NE(why.message().find("fatal: crashing on purpose"), std::string::npos) << why.message();
  EXPECT_TRUE(rec.has_log("fatal: crashing on purpose"));
  // Later sends fail with the same reason.
  const Status s = t->send(request(3, "ping"), quick());
  EXPECT_EQ(s.code(), ErrorCode::kUnavailable);
  EXPECT_EQ(s.message(), why.message());
  t->close(milliseconds(1000));
  std::lock_guard lk(rec.mu);
  EXPECT_EQ(rec.closed_calls, 1);
}

TEST(StdioTransport, KilledServerIsReportedWithItsSignal) {
  Recorder rec;
  auto t = make_stdio_transport(fault_server());
  ASSERT_TRUE(t->start(rec.callbacks(), milliseconds(5000)).ok());
  const pid_t pid = server_pid(rec);
  ASSERT_GT(pid, 0);
  ::kill(pid, SIGKILL);
  ASSERT_TRUE(rec.wait([&] { return rec.closed.has_value(); }));
  std::lock_guard lk(rec.mu);
  EXPECT_NE(rec.closed->message().find("was killed by signal 9"), std::string::npos) << rec.closed->message();
  EXPECT_TRUE(fully_gone(pid));  // reaped by the transport
}

TEST(StdioTransport, CommandNotFoundIsAClearStartError) {
  Recorder rec;
  StdioServerSpec spec;
  spec.command = "keel-no-such-mcp-server";
  auto t = make_stdio_transport(std::move(spec));
  const Status s = t->start(rec.callbacks(), milliseconds(5000));
  EXPECT_EQ(s.code(), ErrorCode::kNotFound);
  EXPECT_EQ(s.message().rfind("cannot start MCP server: 'keel-no-such-mcp-server' not found on PATH", 0), 0u)
      << s.message();

  StdioServerSpec bad_dir = fault_server();
  bad_dir.cwd = "/nonexistent/keel-dir";
  const Status d = make_stdio_transport(std::move(bad_dir))->start(rec.callbacks(), milliseconds(5000));
  EXPECT_EQ(d.code(), ErrorCode::kNotFound);
  EXPECT_NE(d.message().find("'/nonexistent/keel-dir' is not an existing directory"), std::string::npos) << d.message();
}

TEST(StdioTransport, EnvironmentAndWorkingDirectoryReachTheServer) {
  keel::testing::TempDir dir;
  ::setenv("KEEL_STDIO_INHERITED", "from parent", 1);
  ::setenv("KEEL_STDIO_OVERRIDDEN", "parent value", 1);
  ::setenv("OPENAI_API_KEY", "sk-keel-test-secret", 1);
  ::setenv("LC_KEEL_STDIO_TEST", "kept", 1);
  StdioServerSpec spec = fault_server();
  spec.env = {{"KEEL_STDIO_OVERRIDDEN", "child value"}, {"KEEL_STDIO_ADDED", "added"}};
  spec.cwd = dir.path().string();
  Recorder rec;
  auto t = make_stdio_transport(std::move(spec));
  ASSERT_TRUE(t->start(rec.callbacks(), milliseconds(5000)).ok());
  // The .mcp.json env entries and the allowlist (LC_*) arrive; nothing else of keel's environment
  // does, provider keys least of all.
  const std::map<std::string, std::string> expected = {{"KEEL_STDIO_INHERITED", "KEEL_STDIO_INHERITED is not set"},
                                                       {"KEEL_STDIO_OVERRIDDEN", "child value"},
                                                       {"KEEL_STDIO_ADDED", "added"},
                                                       {"OPENAI_API_KEY", "OPENAI_API_KEY is not set"},
                                                       {"LC_KEEL_STDIO_TEST", "kept"}};
  int id = 1;
  for (const auto& [name, value] : expected) {
    ASSERT_TRUE(t->send(call(id, "env", {{"name", name}}), quick()).ok());
    const auto r = rec.response(id++);
    ASSERT_TRUE(r.has_value());
    EXPECT_EQ(text_of(*r), value) << name;
  }
  ASSERT_TRUE(t->send(call(id, "cwd"), quick()).ok());
  const auto r = rec.response(id);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(text_of(*r), dir.path().string());
  ::unsetenv("KEEL_STDIO_INHERITED");
  ::unsetenv("KEEL_STDIO_OVERRIDDEN");
  ::unsetenv("OPENAI_API_KEY");
  ::unsetenv("LC_KEEL_STDIO_TEST");
}

TEST(StdioTransport, CloseKillsAServerThatIgnoresEofAndSigterm) {
  Recorder rec;
  auto t = make_stdio_transport(fault_server({"--ignore-stdin-eof"}));
  ASSERT_TRUE(t->start(rec.callbacks(), milliseconds(5000)).ok());
  ASSERT_TRUE(t->send(initialize(1), quick()).ok());
  ASSERT_TRUE(rec.response(1).has_value());  // SIGTERM is ignored by now
  const pid_t pid = server_pid(rec);
  ASSERT_GT(pid, 0);
  const auto start = Clock::now();
  t->close(milliseconds(300));
  const int64_t took = ms_since(start);
  EXPECT_GE(took, 300 + 500);  // the grace, then SIGTERM's 500 ms, then SIGKILL
  EXPECT_LT(took, 300 + 500 + 3000);
  EXPECT_TRUE(fully_gone(pid));
  std::lock_guard lk(rec.mu);
  EXPECT_EQ(rec.closed_calls, 0);
}

TEST(StdioTransport, SendTimesOutWhenTheServerDoesNotReadAndLaterSendsStillWork) {
  Recorder rec;
  auto t = make_stdio_transport(fault_server({"--no-read", "1500"}));
  ASSERT_TRUE(t->start(rec.callbacks(), milliseconds(5000)).ok());
  ASSERT_TRUE(t->send(initialize(1), quick()).ok());
  ASSERT_TRUE(rec.response(1).has_value());
  const auto start = Clock::now();
  const Status s = t->send(call(2, "echo", {{"text", std::string(1 << 20, 'a')}}), quick(milliseconds(200)));
  EXPECT_EQ(s.code(), ErrorCode::kDeadlineExceeded) << s.to_string();
  EXPECT_NE(s.message().find("is not reading its input"), std::string::npos) << s.message();
  EXPECT_GE(ms_since(start), 200);
  // Once the server reads again, the torn line is dropped (it answers it with a parse error) and
  // the next message is understood.
  ASSERT_TRUE(t->send(request(3, "ping"), quick()).ok());
  const auto r = rec.response(3);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ((*r)["result"], json::object());
  std::lock_guard lk(rec.mu);
  for (const json& m : rec.messages) EXPECT_NE(m.value("id", json()), json(2));  // the torn request got no answer
}

TEST(StdioTransport, StopTokenCancelsABlockedSend) {
  Recorder rec;
  auto t = make_stdio_transport(fault_server({"--no-read", "5000"}));
  ASSERT_TRUE(t->start(rec.callbacks(), milliseconds(5000)).ok());
  ASSERT_TRUE(t->send(initialize(1), quick()).ok());
  ASSERT_TRUE(rec.response(1).has_value());
  std::stop_source stop;
  SendOptions options = quick();
  options.stop = stop.get_token();
  std::thread stopper([&] {
    std::this_thread::sleep_for(milliseconds(200));
    stop.request_stop();
  });
  const auto start = Clock::now();
  const Status s = t->send(call(2, "echo", {{"text", std::string(1 << 20, 'a')}}), options);
  const int64_t took = ms_since(start);
  stopper.join();
  EXPECT_EQ(s.code(), ErrorCode::kCancelled) << s.to_string();
  EXPECT_GE(took, 200);
  EXPECT_LT(took, 4000);
  t->close(milliseconds(100));  // SIGTERM ends the sleeping server
}

TEST(StdioTransport, ConcurrentSendsNeverInterleave) {
  Recorder rec;
  auto t = make_stdio_transport(fault_server());
  ASSERT_TRUE(t->start(rec.callbacks(), milliseconds(5000)).ok());
  constexpr int kThreads = 6;
  constexpr int kPerThread = 20;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int th = 0; th < kThreads; ++th) {
    threads.emplace_back([&, th] {
      for (int i = 0; i < kPerThread; ++i) {
        const int id = th * 1000 + i;
        // Some messages are larger than a pipe's buffer, so they are written in several pieces.
        const std::string text =
            cat({std::to_string(id), ":", std::string(i % 5 == 0 ? 100000 : 10 + i, static_cast<char>('a' + th))});
        if (!t->send(call(id, "echo", {{"text", text}}), quick()).ok()) ++failures;
      }
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  ASSERT_TRUE(rec.wait([&] { return rec.messages.size() >= kThreads * kPerThread; }));
  std::this_thread::sleep_for(milliseconds(100));  // a duplicate would show up now
  std::lock_guard lk(rec.mu);
  EXPECT_TRUE(rec.garbage.empty());
  ASSERT_EQ(rec.messages.size(), static_cast<size_t>(kThreads * kPerThread));
  std::map<int, int> seen;
  for (const json& m : rec.messages) {
    ASSERT_TRUE(m.contains("result")) << m.dump().substr(0, 200);
    const int id = m["id"].get<int>();
    ++seen[id];
    const int th = id / 1000;
    const int i = id % 1000;
    const std::string expected = cat(
        {"echo: ", std::to_string(id), ":", std::string(i % 5 == 0 ? 100000 : 10 + i, static_cast<char>('a' + th))});
    EXPECT_EQ(text_of(m), expected) << id;
  }
  for (const auto& [id, count] : seen) EXPECT_EQ(count, 1) << id;
  EXPECT_EQ(seen.size(), static_cast<size_t>(kThreads * kPerThread));
}

TEST(StdioTransport, BatchesEmptyLinesAndNonObjectsFromARawServer) {
  Recorder rec;
  auto t = make_stdio_transport(
      shell("printf '\\n[{\"id\":1},{\"id\":2},3]\\n\\n  \\n42\\n{\"id\":4}\\n{\"id\":5}'; echo oops >&2; exit 7"));
  ASSERT_TRUE(t->start(rec.callbacks(), milliseconds(5000)).ok());
  ASSERT_TRUE(rec.wait([&] { return rec.closed.has_value(); }));
  std::lock_guard lk(rec.mu);
  ASSERT_EQ(rec.messages.size(), 4u);  // the last line has no '\n' but ends with the stream
  EXPECT_EQ(rec.messages[0], json({{"id", 1}}));
  EXPECT_EQ(rec.messages[1], json({{"id", 2}}));
  EXPECT_EQ(rec.messages[2], json({{"id", 4}}));
  EXPECT_EQ(rec.messages[3], json({{"id", 5}}));
  ASSERT_EQ(rec.garbage.size(), 2u);
  EXPECT_EQ(rec.garbage[0], "batch element from server that is not a JSON-RPC message: 3");
  EXPECT_EQ(rec.garbage[1], "JSON line from server that is not a JSON-RPC message: 42");
  EXPECT_NE(rec.closed->message().find("exited with code 7; last stderr: oops"), std::string::npos)
      << rec.closed->message();
}

TEST(StdioTransport, LongStderrLinesAreCutAndNoDescriptorLeaksIntoTheServer) {
  const int leaky = ::open("/dev/null", O_RDONLY);  // deliberately without O_CLOEXEC
  ASSERT_GE(leaky, 0);
  Recorder rec;
  const std::string fd = std::to_string(leaky);
  auto t = make_stdio_transport(shell(cat(
      {"if [ -e /proc/self/fd/", fd, " ]; then echo leaked >&2; else echo clean >&2; fi; printf '%09000d\\n' 0 >&2"})));
  ASSERT_TRUE(t->start(rec.callbacks(), milliseconds(5000)).ok());
  ASSERT_TRUE(rec.wait([&] { return rec.closed.has_value(); }));
  ::close(leaky);
  std::lock_guard lk(rec.mu);
  ASSERT_EQ(rec.logs.size(), 2u);
  EXPECT_EQ(rec.logs[0], "clean");
  EXPECT_EQ(rec.logs[1], cat({std::string(4096, '0'), " [line cut]"}));
}

TEST(StdioTransport, WritingToAServerThatClosedItsInputIsUnavailableNotSigpipe) {
  // The shell closes its stdin and stdout and stays alive: a write finds no reader (EPIPE), which
  // would raise SIGPIPE and end this test program if the transport did not shield it.
  Recorder rec;
  auto t = make_stdio_transport(shell("exec 0<&- 1>&-; sleep 3"));
  ASSERT_TRUE(t->start(rec.callbacks(), milliseconds(5000)).ok());
  Status s;
  for (int i = 0; i < 100 && s.ok(); ++i) {  // until the shell has run its exec
    s = t->send(request(1, "ping"), quick());
    std::this_thread::sleep_for(milliseconds(5));
  }
  EXPECT_EQ(s.code(), ErrorCode::kUnavailable) << s.to_string();
  // Its closed stdout ends the connection, though the process still runs.
  ASSERT_TRUE(rec.wait([&] { return rec.closed.has_value(); }));
  {
    std::lock_guard lk(rec.mu);
    EXPECT_EQ(rec.closed->message(),
              "MCP server 'sh -c exec 0<&- 1>&-; sleep 3' closed its output (stdout) but is still running");
  }
  const auto start = Clock::now();
  t->close(milliseconds(100));
  EXPECT_LT(ms_since(start), 2500);  // SIGTERM to the group ends the sleep too
}

// True when `pid` no longer runs (gone, or a zombie waiting for a reaper that is not us).
bool not_running(pid_t pid) {
  if (::kill(pid, 0) == -1 && errno == ESRCH) return true;
  const std::string stat = keel::testing::read_file(cat({"/proc/", std::to_string(pid), "/stat"}));
  const size_t paren = stat.rfind(')');
  return paren != std::string::npos && paren + 2 < stat.size() && stat[paren + 2] == 'Z';
}

TEST(StdioTransport, HelpersLeftInTheServersGroupAreEndedWithIt) {
  Recorder rec;
  auto t = make_stdio_transport(shell("sleep 30 & echo \"helper $!\" >&2; exit 5"));
  ASSERT_TRUE(t->start(rec.callbacks(), milliseconds(5000)).ok());
  ASSERT_TRUE(rec.wait([&] { return rec.closed.has_value(); }));
  pid_t helper = -1;
  {
    std::lock_guard lk(rec.mu);
    EXPECT_NE(rec.closed->message().find("exited with code 5"), std::string::npos) << rec.closed->message();
    ASSERT_EQ(rec.logs.size(), 1u);
    helper = static_cast<pid_t>(std::atoi(rec.logs[0].c_str() + 7));
  }
  ASSERT_GT(helper, 0);
  const auto start = Clock::now();
  while (!not_running(helper) && ms_since(start) < 3000) std::this_thread::sleep_for(milliseconds(10));
  EXPECT_TRUE(not_running(helper));
}

TEST(StdioTransport, DescribeIsShortenedAndMisuseIsAnError) {
  StdioServerSpec spec = fault_server({std::string(300, 'x')});
  auto t = make_stdio_transport(std::move(spec));
  const std::string d = t->describe();
  EXPECT_LE(d.size(), 125u);
  EXPECT_EQ(d.rfind("stdio: ", 0), 0u);
  EXPECT_EQ(d.substr(d.size() - 3), "…");
  EXPECT_EQ(t->send(request(1, "ping"), quick()).code(), ErrorCode::kFailedPrecondition);
  t->close(milliseconds(10));  // never started: nothing to do
  t->close(milliseconds(10));  // idempotent
}

}  // namespace
}  // namespace keel::mcp
