// keel_serve_bench — keel serve under load: N sessions, each with an open event stream and one
// message, against a local mock model; what a client waits between an event being published and
// its arrival.
//
//   keel_serve_bench [--sessions N] [--workers W] [--rounds R]
//
// Each run makes R tool rounds (a read-only tool call) and then streams a short answer. Prints:
// wall time, runs/s, events/s, event latency (publish → received by the client, p50/p99/max),
// errors, and resident memory per session. Target (issue 7): 1,000 sessions on a 2-core machine
// with p99 event latency under 50 ms and no errors.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "support/api_harness.hpp"

namespace {

using Clock = std::chrono::steady_clock;

int64_t epoch_us() {
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

long rss_kb() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  }
  return 0;
}

int connect_loopback(uint16_t port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd < 0 || ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    if (fd >= 0) ::close(fd);
    return -1;
  }
  return fd;
}

// One event stream: raw bytes in, "data: {...}" lines out (chunk framing is skipped by looking
// for the data lines themselves).
struct Stream {
  int fd = -1;
  std::string buffer;
  bool finished = false;
};

}  // namespace

int main(int argc, char** argv) {
  size_t sessions = 1000, workers = 4;
  int rounds = 1;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string flag = argv[i];
    if (flag == "--sessions") sessions = std::stoul(argv[i + 1]);
    if (flag == "--workers") workers = std::stoul(argv[i + 1]);
    if (flag == "--rounds") rounds = std::stoi(argv[i + 1]);
  }
  rlimit nofile{};
  getrlimit(RLIMIT_NOFILE, &nofile);
  nofile.rlim_cur = nofile.rlim_max;
  setrlimit(RLIMIT_NOFILE, &nofile);

  keel::testing::ApiHarnessOptions options;
  options.workers = workers;
  options.max_connections = sessions * 2 + 64;
  keel::testing::ApiHarness h(options);
  // Every request: a tool round while the conversation has fewer than `rounds` tool results, then
  // a streamed answer.
  h.model().set_record_requests(false);
  h.model().set_responder([rounds](const std::string& body) {
    nlohmann::json req = nlohmann::json::parse(body, nullptr, false);
    int tool_results = 0;
    if (req.is_object()) {
      for (const auto& m : req["messages"]) tool_results += m.value("role", "") == "tool" ? 1 : 0;
    }
    keel::ModelReply reply;
    if (tool_results < rounds) {
      reply.tool_calls = {{"c" + std::to_string(tool_results), "get_datetime", "{}"}};
    } else {
      reply.text = "All done: the answer is forty-two.";
    }
    return keel::testing::mock_stream(reply, 12);
  });

  long rss_before = rss_kb();
  std::vector<std::string> ids;
  ids.reserve(sessions);
  for (size_t i = 0; i < sessions; ++i) ids.push_back(h.new_session());

  int ep = epoll_create1(EPOLL_CLOEXEC);
  std::vector<Stream> streams(sessions);
  size_t errors = 0;
  for (size_t i = 0; i < sessions; ++i) {
    streams[i].fd = connect_loopback(h.port());
    if (streams[i].fd < 0) {
      ++errors;
      continue;
    }
    std::string req = "GET /api/sessions/" + ids[i] + "/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
    if (::send(streams[i].fd, req.data(), req.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(req.size())) ++errors;
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = i;
    epoll_ctl(ep, EPOLL_CTL_ADD, streams[i].fd, &ev);
  }
  long rss_streams = rss_kb();

  std::vector<int64_t> latencies;
  latencies.reserve(sessions * 16);
  size_t finished = 0, failed_runs = 0, stream_errors = 0;
  long rss_peak = rss_streams;
  // The client reads every stream on its own thread, so posting messages never delays reading.
  std::thread reader([&] {
    std::vector<epoll_event> ready(256);
    char buf[65536];
    auto deadline = Clock::now() + std::chrono::minutes(5);
    auto next_rss = Clock::now();
    while (finished + failed_runs < sessions && Clock::now() < deadline) {
      int n = epoll_wait(ep, ready.data(), static_cast<int>(ready.size()), 1000);
      int64_t now = epoch_us();
      for (int k = 0; k < n; ++k) {
        Stream& s = streams[ready[k].data.u64];
        ssize_t got = ::recv(s.fd, buf, sizeof(buf), 0);
        if (got <= 0) {
          if (!s.finished) ++stream_errors;
          epoll_ctl(ep, EPOLL_CTL_DEL, s.fd, nullptr);
          s.finished = true;
          continue;
        }
        s.buffer.append(buf, static_cast<size_t>(got));
        size_t pos;
        while ((pos = s.buffer.find("data: ")) != std::string::npos) {
          size_t end = s.buffer.find('\n', pos);
          if (end == std::string::npos) break;
          nlohmann::json data = nlohmann::json::parse(s.buffer.substr(pos + 6, end - pos - 6), nullptr, false);
          s.buffer.erase(0, end + 1);
          if (!data.is_object()) {
            ++stream_errors;
            continue;
          }
          latencies.push_back(now - data.value("time_us", now));
          std::string type = data.value("type", "");
          if (type == "run_finished") ++finished;
          if (type == "run_failed") ++failed_runs;
        }
      }
      if (Clock::now() >= next_rss) {  // /proc is read at most every 100 ms, not on every wake
        rss_peak = std::max(rss_peak, rss_kb());
        next_rss = Clock::now() + std::chrono::milliseconds(100);
      }
    }
    rss_peak = std::max(rss_peak, rss_kb());
  });
  auto start = Clock::now();
  for (size_t i = 0; i < sessions; ++i) {
    keel::testing::RawHttpResponse r = h.call("POST", "/api/sessions/" + ids[i] + "/messages", R"({"content":"go"})");
    if (r.status != 202) ++errors;
  }
  double post_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();

  reader.join();
  errors += stream_errors;
  double wall_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  std::sort(latencies.begin(), latencies.end());
  auto pct = [&](double p) -> double {
    if (latencies.empty()) return 0;
    return latencies[std::min(latencies.size() - 1, static_cast<size_t>(p * static_cast<double>(latencies.size())))] / 1000.0;
  };
  std::printf("keel serve load: %zu sessions, %zu workers, %d tool round(s) per run, mock model over loopback\n", sessions,
              workers, rounds);
  std::printf("  runs finished: %zu, failed: %zu, errors: %zu\n", finished, failed_runs, errors);
  std::printf("  wall: %.0f ms (accepting %zu messages took %.0f ms); %.0f runs/s, %.0f events/s\n", wall_ms, sessions,
              post_ms, 1000.0 * static_cast<double>(finished) / wall_ms,
              1000.0 * static_cast<double>(latencies.size()) / wall_ms);
  std::printf("  event latency (publish -> client): p50 %.2f ms, p99 %.2f ms, max %.2f ms over %zu events\n", pct(0.5),
              pct(0.99), latencies.empty() ? 0.0 : latencies.back() / 1000.0, latencies.size());
  std::printf("  memory: %.1f MB before, %.1f MB with %zu open streams, peak %.1f MB; %.1f KB per session\n",
              rss_before / 1024.0, rss_streams / 1024.0, sessions, rss_peak / 1024.0,
              static_cast<double>(rss_peak - rss_before) / static_cast<double>(sessions));
  for (Stream& s : streams) {
    if (s.fd >= 0) ::close(s.fd);
  }
  ::close(ep);
  bool ok = finished == sessions && errors == 0 && pct(0.99) < 50.0;
  std::printf("  target (all finish, no errors, p99 < 50 ms): %s\n", ok ? "met" : "NOT met");
  return ok ? 0 : 1;
}
