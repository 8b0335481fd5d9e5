// keel_mock_model_server — a scripted OpenAI-compatible model in a process of its own.
//
//   keel_mock_model_server [--port P] [--steps N] [--tool NAME] [--args JSON] [--text TEXT]
//
// keel_run_bench measures keel the way users run it: a whole `keel run` process talking to a model
// server in ANOTHER process, against a bare libcurl loop talking to the same server. This is that
// server. It answers like a model that calls one tool per round: while the request holds fewer
// than N tool results (`"role":"tool"`), it answers ONE call of --tool (default fs_stat) with
// --args (default {"path":"f{n}.txt"}, {n} = tool results so far + 1) and a fresh call id; then it
// answers the text "done" (or --text). N is the number in a model name holding `mock-steps-N` (else --steps,
// default 20). Replies are whole chat.completion JSON, or SSE (chunked) when "stream": true.
// The mock should cost little next to what it measures: the request is not parsed as JSON (the
// counts are string searches) and the replies are glued from pieces escaped once at start-up.
//
// One thread, poll(): HTTP/1.1 keep-alive, Content-Length bodies, several connections at once, an
// idle connection closed after 30 s. Endpoints: POST /v1/chat/completions, GET /v1/models,
// GET /stats (request counters, for the harness's checks); anything else is a 404 JSON error.
// Prints `listening http://127.0.0.1:PORT/v1` (flushed) and serves until stdin reaches EOF or
// SIGTERM/SIGINT arrives.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "core/parsing/json/json_view.hpp"

namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kIdleTimeout = std::chrono::seconds(30);
constexpr size_t kMaxRequest = 256u << 20;  // a request larger than this is refused

volatile sig_atomic_t g_stop = 0;
void on_signal(int) {
  g_stop = 1;
}

// ---------------------------------------------------------------- start-up options, reply pieces

// `s` as the inside of a JSON string (keel's own escaping, without the quotes).
std::string json_escape(std::string_view s) {
  std::string quoted;
  keel::detail::append_quoted_json(quoted, s);
  return quoted.substr(1, quoted.size() - 2);
}

struct Script {
  long default_steps = 20;
  std::string tool_name_json;            // "fs_stat", quoted and escaped
  std::vector<std::string> args_pieces;  // the escaped arguments split at each {n}
  std::string final_text_json = "\"done\"";  // the text answer, quoted and escaped
};

struct Stats {
  long requests = 0, chat = 0, stream = 0, tool_replies = 0, final_replies = 0, bad = 0, not_found = 0;
  long call_seq = 0;
};

Script g_script;
Stats g_stats;

// ---------------------------------------------------------------- looking into a request body

// The position just past `"key":` and any spaces, or npos. A quote inside a JSON string is
// always escaped, so the unescaped pattern only matches keys (and the first is the top level's).
size_t value_of(std::string_view body, std::string_view quoted_key, size_t from = 0) {
  size_t p = body.find(quoted_key, from);
  while (p != std::string_view::npos) {
    size_t q = p + quoted_key.size();
    while (q < body.size() && (body[q] == ' ' || body[q] == '\t' || body[q] == '\n' || body[q] == '\r')) ++q;
    if (q < body.size() && body[q] == ':') {
      ++q;
      while (q < body.size() && (body[q] == ' ' || body[q] == '\t' || body[q] == '\n' || body[q] == '\r')) ++q;
      return q;
    }
    p = body.find(quoted_key, q);
  }
  return std::string_view::npos;
}

long count_tool_results(std::string_view body) {
  long n = 0;
  for (size_t p = value_of(body, "\"role\""); p != std::string_view::npos; p = value_of(body, "\"role\"", p)) {
    if (body.compare(p, 6, "\"tool\"") == 0) ++n;
  }
  return n;
}

bool is_true(std::string_view body, std::string_view quoted_key) {
  size_t p = value_of(body, quoted_key);
  return p != std::string_view::npos && body.compare(p, 4, "true") == 0;
}

// The model name as it stands in the request (still escaped, so it can be echoed as is).
std::string_view model_of(std::string_view body) {
  size_t p = value_of(body, "\"model\"");
  if (p == std::string_view::npos || p >= body.size() || body[p] != '"') return "mock";
  size_t e = p + 1;
  while (e < body.size() && body[e] != '"') e += body[e] == '\\' ? 2 : 1;
  if (e >= body.size() || e - p - 1 > 200) return "mock";
  return body.substr(p + 1, e - p - 1);
}

long steps_for(std::string_view model) {
  size_t p = model.find("mock-steps-");
  if (p == std::string_view::npos) return g_script.default_steps;
  long n = 0;
  bool any = false;
  for (p += 11; p < model.size() && model[p] >= '0' && model[p] <= '9' && n < 1000000; ++p, any = true) {
    n = n * 10 + (model[p] - '0');
  }
  return any ? n : g_script.default_steps;
}

// ---------------------------------------------------------------- replies

void http_head(std::string& out, int code, std::string_view reason, std::string_view type, size_t length,
               bool chunked) {
  out += "HTTP/1.1 ";
  out += std::to_string(code);
  out += ' ';
  out += reason;
  out += "\r\nContent-Type: ";
  out += type;
  if (chunked) {
    out += "\r\nCache-Control: no-cache\r\nTransfer-Encoding: chunked\r\n\r\n";
  } else {
    out += "\r\nContent-Length: ";
    out += std::to_string(length);
    out += "\r\n\r\n";
  }
}

void send_json(std::string& out, int code, std::string_view reason, std::string_view body) {
  http_head(out, code, reason, "application/json", body.size(), false);
  out += body;
}

void send_error(std::string& out, int code, std::string_view reason, std::string_view message) {
  send_json(out, code, reason, "{\"error\":{\"message\":\"" + json_escape(message) + "\",\"type\":\"mock\"}}");
}

void append_chunk(std::string& out, std::string_view data) {
  char size[24];
  std::snprintf(size, sizeof size, "%zx\r\n", data.size());
  out += size;
  out += data;
  out += "\r\n";
}

constexpr std::string_view kUsage = R"("usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15})";

void chat(std::string& out, std::string_view body) {
  size_t first = body.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos || body[first] != '{') {
    ++g_stats.bad;
    send_error(out, 400, "Bad Request", "the body is not a JSON object");
    return;
  }
  ++g_stats.chat;
  const long done = count_tool_results(body);
  const std::string_view model = model_of(body);
  const bool want_tool = done < steps_for(model);
  const bool stream = is_true(body, "\"stream\"");
  const std::string seq = std::to_string(g_stats.chat);

  // The part every reply (and every chunk) starts with: id, object, created, model.
  std::string head = "{\"id\":\"chatcmpl-mock-" + seq + "\",\"object\":\"chat.completion";
  head += stream ? ".chunk" : "";
  head += "\",\"created\":1700000000,\"model\":\"";
  head += model;
  head += "\",";

  std::string call;
  if (want_tool) {
    ++g_stats.tool_replies;
    const std::string n = std::to_string(done + 1);
    call = "\"id\":\"call_" + std::to_string(++g_stats.call_seq) +
           "\",\"type\":\"function\",\"function\":{\"name\":" + g_script.tool_name_json + ",\"arguments\":\"";
    for (size_t i = 0; i < g_script.args_pieces.size(); ++i) {
      if (i > 0) call += n;
      call += g_script.args_pieces[i];
    }
    call += "\"}}";
  } else {
    ++g_stats.final_replies;
  }
  const std::string_view finish = want_tool ? "tool_calls" : "stop";

  if (!stream) {
    std::string json = head;
    json += "\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",";
    json += want_tool ? "\"content\":null,\"tool_calls\":[{" + call + "]"
                      : "\"content\":" + g_script.final_text_json;
    json += "},\"logprobs\":null,\"finish_reason\":\"";
    json += finish;
    json += "\"}],";
    json += kUsage;
    json += '}';
    send_json(out, 200, "OK", json);
    return;
  }
  ++g_stats.stream;
  http_head(out, 200, "OK", "text/event-stream", 0, true);
  std::string event = "data: " + head + "\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",";
  event +=
      want_tool ? "\"content\":null,\"tool_calls\":[{\"index\":0," + call + "]"
                : "\"content\":" + g_script.final_text_json;
  event += "},\"logprobs\":null,\"finish_reason\":null}]}\n\n";
  append_chunk(out, event);
  event = "data: " + head + "\"choices\":[{\"index\":0,\"delta\":{},\"logprobs\":null,\"finish_reason\":\"";
  event += finish;
  event += "\"}]}\n\n";
  append_chunk(out, event);
  if (is_true(body, "\"include_usage\"")) {
    append_chunk(out, "data: " + head + "\"choices\":[]," + std::string(kUsage) + "}\n\n");
  }
  append_chunk(out, "data: [DONE]\n\n");
  out += "0\r\n\r\n";
}

void route(std::string& out, std::string_view method, std::string_view target, std::string_view body) {
  ++g_stats.requests;
  std::string_view path = target.substr(0, target.find('?'));
  if (path.starts_with("/v1/")) path.remove_prefix(3);
  if (method == "POST" && path == "/chat/completions") {
    chat(out, body);
  } else if (method == "GET" && path == "/models") {
    send_json(
        out, 200, "OK",
        "{\"object\":\"list\",\"data\":[{\"id\":\"mock\",\"object\":\"model\",\"created\":0,\"owned_by\":\"mock\"},"
        "{\"id\":\"mock-steps-" +
            std::to_string(g_script.default_steps) + "\",\"object\":\"model\",\"created\":0,\"owned_by\":\"mock\"}]}");
  } else if (method == "GET" && path == "/stats") {
    char json[320];
    std::snprintf(json, sizeof json,
                  "{\"requests\":%ld,\"chat_requests\":%ld,\"stream_requests\":%ld,\"tool_call_replies\":%ld,"
                  "\"final_replies\":%ld,\"bad_requests\":%ld,\"not_found\":%ld}",
                  g_stats.requests, g_stats.chat, g_stats.stream, g_stats.tool_replies, g_stats.final_replies,
                  g_stats.bad, g_stats.not_found);
    send_json(out, 200, "OK", json);
  } else {
    ++g_stats.not_found;
    send_error(out, 404, "Not Found", "mock: no route " + std::string(method) + " " + std::string(target));
  }
}

// ---------------------------------------------------------------- connections

struct Connection {
  int fd = -1;
  std::string in, out;
  size_t out_sent = 0;
  bool close_after = false;  // close once `out` is written
  bool sent_continue = false;
  Clock::time_point last_active = Clock::now();
};

bool header_is(std::string_view head, std::string_view name, std::string_view token) {
  // Case-insensitive search for a header line `name: ...token...`.
  auto lower = [](std::string_view s) {
    std::string r(s);
    for (char& c : r) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c);
    return r;
  };
  std::string h = lower(head), n = "\r\n" + lower(name) + ":";
  size_t p = h.find(n);
  if (p == std::string::npos) return false;
  size_t e = h.find("\r\n", p + n.size());
  return h.substr(p + n.size(), e - p - n.size()).find(lower(token)) != std::string::npos;
}

long content_length(std::string_view head) {
  std::string h(head);
  for (char& c : h) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c);
  size_t p = h.find("\r\ncontent-length:");
  if (p == std::string::npos) return 0;
  return std::strtol(h.c_str() + p + 17, nullptr, 10);
}

// Answers every whole request in c.in; false when the connection must close at once.
bool serve_requests(Connection& c) {
  while (!c.close_after) {
    size_t end = c.in.find("\r\n\r\n");
    if (end == std::string::npos) return c.in.size() <= 64 * 1024;
    std::string_view head(c.in.data(), end);
    size_t sp1 = head.find(' '), sp2 = sp1 == std::string_view::npos ? sp1 : head.find(' ', sp1 + 1);
    size_t eol = head.find("\r\n");
    if (sp2 == std::string_view::npos || (eol != std::string_view::npos && sp2 > eol)) {
      send_error(c.out, 400, "Bad Request", "bad request line");
      c.close_after = true;
      break;
    }
    if (header_is(head, "transfer-encoding", "chunked")) {
      send_error(c.out, 411, "Length Required", "the mock reads Content-Length bodies only");
      c.close_after = true;
      break;
    }
    long length = content_length(head);
    if (length < 0 || static_cast<size_t>(length) > kMaxRequest) {
      send_error(c.out, 413, "Payload Too Large", "request too large");
      c.close_after = true;
      break;
    }
    size_t total = end + 4 + static_cast<size_t>(length);
    if (c.in.size() < total) {
      if (!c.sent_continue && header_is(head, "expect", "100-continue")) {
        c.out += "HTTP/1.1 100 Continue\r\n\r\n";
        c.sent_continue = true;
      }
      return true;
    }
    std::string_view method = head.substr(0, sp1), target = head.substr(sp1 + 1, sp2 - sp1 - 1);
    std::string_view version = head.substr(sp2 + 1, (eol == std::string_view::npos ? head.size() : eol) - sp2 - 1);
    bool keep =
        version == "HTTP/1.1" ? !header_is(head, "connection", "close") : header_is(head, "connection", "keep-alive");
    route(c.out, method, target, std::string_view(c.in).substr(end + 4, static_cast<size_t>(length)));
    c.in.erase(0, total);
    c.sent_continue = false;
    if (!keep) c.close_after = true;
  }
  return true;
}

// Writes what it can of c.out; false on a write error.
bool flush(Connection& c) {
  while (c.out_sent < c.out.size()) {
    ssize_t n = ::send(c.fd, c.out.data() + c.out_sent, c.out.size() - c.out_sent, MSG_NOSIGNAL);
    if (n < 0) return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
    c.out_sent += static_cast<size_t>(n);
  }
  c.out.clear();
  c.out_sent = 0;
  return true;
}

// Reads what is there and answers it; false when the connection is done.
bool on_readable(Connection& c) {
  char buf[65536];
  for (;;) {
    ssize_t n = ::recv(c.fd, buf, sizeof buf, 0);
    if (n > 0) {
      c.in.append(buf, static_cast<size_t>(n));
      if (static_cast<size_t>(n) < sizeof buf) break;
      continue;
    }
    if (n == 0) return false;
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) break;
    return false;
  }
  c.last_active = Clock::now();
  if (!serve_requests(c)) return false;
  return flush(c);
}

void set_nonblocking(int fd) {
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL, 0) | O_NONBLOCK);
}

int usage() {
  std::fprintf(stderr, "usage: keel_mock_model_server [--port P] [--steps N] [--tool NAME] [--args JSON] [--text TEXT]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  int port = 0;
  std::string tool = "fs_stat", args = R"({"path":"f{n}.txt"})";
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    if (i + 1 >= argc) return usage();
    if (a == "--port")
      port = std::atoi(argv[++i]);
    else if (a == "--steps")
      g_script.default_steps = std::atol(argv[++i]);
    else if (a == "--tool")
      tool = argv[++i];
    else if (a == "--args")
      args = argv[++i];
    else if (a == "--text")
      g_script.final_text_json = "\"" + json_escape(argv[++i]) + "\"";
    else
      return usage();
  }
  g_script.tool_name_json = "\"" + json_escape(tool) + "\"";
  std::string escaped = json_escape(args);
  for (size_t from = 0;;) {
    size_t p = escaped.find("{n}", from);
    g_script.args_pieces.push_back(escaped.substr(from, p == std::string::npos ? std::string::npos : p - from));
    if (p == std::string::npos) break;
    from = p + 3;
  }

  struct sigaction sa {};
  sa.sa_handler = on_signal;  // no SA_RESTART: poll() returns EINTR and the loop sees g_stop
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGINT, &sa, nullptr);
  signal(SIGPIPE, SIG_IGN);

  int listener = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  int one = 1;
  setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  if (listener < 0 || ::bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::listen(listener, 128) != 0 || ::getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    std::fprintf(stderr, "keel_mock_model_server: cannot listen on 127.0.0.1:%d: %s\n", port, std::strerror(errno));
    return 1;
  }
  set_nonblocking(listener);
  std::printf("listening http://127.0.0.1:%d/v1\n", ntohs(addr.sin_port));
  std::fflush(stdout);

  std::vector<Connection> conns;
  std::vector<pollfd> fds;
  bool stdin_open = true;
  while (!g_stop && stdin_open) {
    fds.clear();
    fds.push_back({STDIN_FILENO, POLLIN, 0});
    fds.push_back({listener, POLLIN, 0});
    for (auto& c : conns) fds.push_back({c.fd, static_cast<short>(POLLIN | (c.out.empty() ? 0 : POLLOUT)), 0});
    if (::poll(fds.data(), fds.size(), 1000) < 0) {
      if (errno == EINTR) continue;
      std::perror("keel_mock_model_server: poll");
      return 1;
    }
    if (fds[0].revents != 0) {
      char b[256];
      ssize_t n = ::read(STDIN_FILENO, b, sizeof b);
      if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) stdin_open = false;
    }
    const auto now = Clock::now();
    std::vector<Connection> kept;
    kept.reserve(conns.size() + 1);
    for (size_t i = 0; i < conns.size(); ++i) {
      Connection& c = conns[i];
      short ev = fds[i + 2].revents;
      bool alive = true;
      if (ev & (POLLIN | POLLHUP | POLLERR))
        alive = on_readable(c);
      else if (ev & POLLOUT)
        alive = flush(c);
      else if (now - c.last_active > kIdleTimeout)
        alive = false;
      if (alive && c.close_after && c.out.empty()) alive = false;
      if (alive)
        kept.push_back(std::move(c));
      else
        ::close(c.fd);
    }
    conns.swap(kept);
    if (fds[1].revents & POLLIN) {
      for (;;) {
        int fd = ::accept4(listener, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) break;
        ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        Connection c;
        c.fd = fd;
        conns.push_back(std::move(c));
      }
    }
  }
  for (auto& c : conns) ::close(c.fd);
  ::close(listener);
  return 0;
}
