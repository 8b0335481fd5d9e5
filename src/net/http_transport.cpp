// libcurl-based HTTP requests with prompt cancellation and an idle timeout; see http_transport.hpp.
#include "net/http_transport.hpp"

#include <curl/curl.h>

#include <chrono>
#include <cstdio>
#include <exception>
#include <mutex>
#include <system_error>

#ifndef KEEL_VERSION
#define KEEL_VERSION "dev"
#endif

namespace keel::detail {
namespace {

using Clock = std::chrono::steady_clock;

// How often the transfer loop wakes without network activity to check the idle timeout.
constexpr int kPollIntervalMs = 25;

void global_init_once() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

bool iequals_prefix(std::string_view line, std::string_view name) {
  if (line.size() < name.size()) return false;
  for (size_t i = 0; i < name.size(); ++i) {
    char c = line[i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != name[i]) return false;
  }
  return true;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r' || s.back() == '\n')) {
    s.remove_suffix(1);
  }
  return s;
}

// State shared with the libcurl callbacks during one transfer.
struct Transfer {
  const HttpRequest* request = nullptr;
  HttpHead head;
  Clock::time_point last_byte;
  HttpEnd abort = HttpEnd::kCompleted;  // set when we decide to stop the transfer

  // Checks the stop token and the idle timeout; records why when the transfer must end.
  bool should_abort() {
    if (abort != HttpEnd::kCompleted) return true;
    if (request->stop.stop_requested()) {
      abort = HttpEnd::kCancelled;
    } else if (request->idle_timeout_ms > 0 &&
               Clock::now() - last_byte > std::chrono::milliseconds(request->idle_timeout_ms)) {
      abort = HttpEnd::kIdleTimeout;
    } else if (request->still_wanted && !request->still_wanted()) {
      abort = HttpEnd::kAbortedByBody;
    }
    return abort != HttpEnd::kCompleted;
  }
};

// Keeps `line` in head.captured when its name is one the request asked for.
void capture(Transfer& t, std::string_view line) {
  const size_t colon = line.find(':');
  if (colon == std::string_view::npos) return;
  const std::string_view name = trim(line.substr(0, colon));
  for (const std::string& wanted : t.request->capture_headers) {
    if (wanted.size() == name.size() && iequals_prefix(name, wanted)) {
      t.head.captured.emplace_back(wanted, std::string(trim(line.substr(colon + 1))));
      return;
    }
  }
}

size_t on_header(char* buffer, size_t size, size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const size_t n = size * count;
  t->last_byte = Clock::now();
  const std::string_view line = trim(std::string_view(buffer, n));
  if (line.empty()) {  // the end of a head: a final one unless it is 1xx
    if (t->head.status >= 200 && t->request->on_head) t->request->on_head(t->head);
  } else if (line.starts_with("HTTP/")) {
    t->head = HttpHead{};  // a new response (after 100 Continue or similar)
    const size_t space = line.find(' ');
    if (space != std::string_view::npos) {
      long status = 0;
      for (size_t i = space + 1; i < line.size() && line[i] >= '0' && line[i] <= '9'; ++i) {
        status = status * 10 + (line[i] - '0');
      }
      t->head.status = status;
    }
  } else if (iequals_prefix(line, "content-type:")) {
    t->head.content_type = std::string(trim(line.substr(13)));
  } else if (iequals_prefix(line, "retry-after:")) {
    t->head.retry_after = std::string(trim(line.substr(12)));
  } else if (!t->request->capture_headers.empty()) {
    capture(*t, line);
  }
  return n;
}

size_t on_write(char* data, size_t size, size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const size_t n = size * count;
  t->last_byte = Clock::now();
  if (t->abort != HttpEnd::kCompleted) return 0;
  bool keep_going = true;
  try {
    keep_going = !t->request->on_body || t->request->on_body(t->head, std::string_view(data, n));
  } catch (...) {
    keep_going = false;  // on_body is keel's own code and does not throw; never let it cross C code
  }
  if (!keep_going) {
    t->abort = HttpEnd::kAbortedByBody;
    return 0;
  }
  return n;
}

int on_progress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  return static_cast<Transfer*>(user)->should_abort() ? 1 : 0;
}

// A transport error as a Status, with whether another attempt may help.
HttpOutcome curl_failure(CURL* easy, CURLcode code, const char* errbuf, const HttpRequest& request) {
  HttpOutcome out;
  out.end = HttpEnd::kFailed;
  std::string detail = errbuf[0] != '\0' ? std::string(errbuf) : std::string(curl_easy_strerror(code));
  const std::string& target = request.target;
  switch (code) {
    case CURLE_COULDNT_CONNECT: {
      long os_errno = 0;
      curl_easy_getinfo(easy, CURLINFO_OS_ERRNO, &os_errno);
      if (os_errno != 0) detail = std::system_category().message(static_cast<int>(os_errno));
      out.error = Status::Unavailable("cannot connect to " + target + ": " + detail);
      out.retryable = true;
      break;
    }
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
      out.error = Status::Unavailable("cannot resolve the host of " + target + ": " + detail);
      break;
    case CURLE_OPERATION_TIMEDOUT: {
      curl_off_t connect_us = 0;
      curl_easy_getinfo(easy, CURLINFO_CONNECT_TIME_T, &connect_us);
      if (connect_us == 0) {
        out.error = Status::Unavailable("timed out connecting to " + target + " (connect_timeout_ms " +
                                        std::to_string(request.connect_timeout_ms) + "): " + detail);
        out.retryable = true;
      } else {
        out.error = Status::DeadlineExceeded("request to " + target + " timed out after " +
                                             std::to_string(request.total_timeout_ms) + " ms (" +
                                             request.total_timeout_name + "): " + detail);
      }
      break;
    }
    case CURLE_GOT_NOTHING:
      out.error = Status::Unavailable(target + " closed the connection without replying");
      out.retryable = true;
      break;
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_PARTIAL_FILE:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
      out.error = Status::Unavailable("connection to " + target + " broke: " + detail);
      out.retryable = true;
      out.connection_lost = true;
      break;
    case CURLE_UNSUPPORTED_PROTOCOL:
    case CURLE_URL_MALFORMAT:
      out.error = Status::InvalidArgument("invalid URL " + request.url + ": " + detail);
      break;
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CACERT_BADFILE:
      out.error = Status::Unavailable("TLS error talking to " + target + ": " + detail);
      break;
    default:
      out.error = Status::Unavailable("request to " + target + " failed: " + detail + " (curl error " +
                                      std::to_string(static_cast<int>(code)) + ")");
      break;
  }
  return out;
}

// Applies every per-request option (the handle was reset before).
curl_slist* configure(CURL* easy, const HttpRequest& request, Transfer& transfer, char* errbuf) {
  curl_slist* headers = nullptr;
  for (const std::string& h : request.headers) {
    curl_slist* next = curl_slist_append(headers, h.c_str());
    if (next == nullptr) break;
    headers = next;
  }
  curl_easy_setopt(easy, CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(easy, CURLOPT_PROTOCOLS_STR, "http,https");
  if (request.method == "POST") {
    curl_easy_setopt(easy, CURLOPT_POST, 1L);
    curl_easy_setopt(easy, CURLOPT_POSTFIELDS, request.body.data());
    curl_easy_setopt(easy, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
  } else {
    curl_easy_setopt(easy, CURLOPT_HTTPGET, 1L);
    if (request.method != "GET") curl_easy_setopt(easy, CURLOPT_CUSTOMREQUEST, request.method.c_str());
  }
  curl_easy_setopt(easy, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(easy, CURLOPT_USERAGENT, "keel/" KEEL_VERSION);
  curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(easy, CURLOPT_TCP_KEEPALIVE, 1L);
  curl_easy_setopt(easy, CURLOPT_TCP_KEEPIDLE, 30L);
  curl_easy_setopt(easy, CURLOPT_TCP_KEEPINTVL, 15L);
  curl_easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(request.connect_timeout_ms));
  curl_easy_setopt(easy, CURLOPT_TIMEOUT_MS, static_cast<long>(request.total_timeout_ms));
  curl_easy_setopt(easy, CURLOPT_ERRORBUFFER, errbuf);
  curl_easy_setopt(easy, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(easy, CURLOPT_HEADERDATA, &transfer);
  curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, on_write);
  curl_easy_setopt(easy, CURLOPT_WRITEDATA, &transfer);
  curl_easy_setopt(easy, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(easy, CURLOPT_XFERINFOFUNCTION, on_progress);
  curl_easy_setopt(easy, CURLOPT_XFERINFODATA, &transfer);
  return headers;
}

}  // namespace

std::string_view HttpHead::header(std::string_view lower_name) const {
  for (const auto& [name, value] : captured) {
    if (name == lower_name) return value;
  }
  return {};
}

HttpSession::HttpSession() {
  global_init_once();
  easy_ = curl_easy_init();
  multi_ = curl_multi_init();
}

HttpSession::~HttpSession() {
  if (multi_ != nullptr) curl_multi_cleanup(multi_);  // closes the cached connections
  if (easy_ != nullptr) curl_easy_cleanup(easy_);
}

HttpOutcome HttpSession::perform(const HttpRequest& request) {
  HttpOutcome out;
  if (!ok()) {
    out.error = Status::Internal("libcurl could not create a handle (out of memory?)");
    return out;
  }
  CURL* easy = easy_;
  CURLM* multi = multi_;
  curl_easy_reset(easy);  // keeps live connections, DNS and TLS session caches
  Transfer transfer;
  transfer.request = &request;
  transfer.last_byte = Clock::now();
  char errbuf[CURL_ERROR_SIZE] = {};
  curl_slist* headers = configure(easy, request, transfer, errbuf);

  CURLcode result = CURLE_OK;
  bool finished = false;
  if (CURLMcode mc = curl_multi_add_handle(multi, easy); mc != CURLM_OK) {
    curl_slist_free_all(headers);
    out.error = Status::Internal(std::string("libcurl refused the transfer: ") + curl_multi_strerror(mc));
    return out;
  }
  {
    // Wakes the poll below at once when a stop is requested from another thread.
    std::stop_callback wake(request.stop, [multi] { curl_multi_wakeup(multi); });
    while (true) {
      int running = 0;
      CURLMcode mc = curl_multi_perform(multi, &running);
      int pending = 0;
      while (CURLMsg* msg = curl_multi_info_read(multi, &pending)) {
        if (msg->msg == CURLMSG_DONE && msg->easy_handle == easy) {
          result = msg->data.result;
          finished = true;
        }
      }
      if (finished || running == 0) break;
      if (mc != CURLM_OK) {
        result = CURLE_RECV_ERROR;
        std::snprintf(errbuf, CURL_ERROR_SIZE, "%s", curl_multi_strerror(mc));
        finished = true;
        break;
      }
      if (transfer.should_abort()) break;
      curl_multi_poll(multi, nullptr, 0, kPollIntervalMs, nullptr);
    }
  }
  curl_multi_remove_handle(multi, easy);  // an unfinished transfer is aborted here
  curl_slist_free_all(headers);

  out.head = transfer.head;
  long status = 0;
  if (curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status) == CURLE_OK && status != 0) {
    out.head.status = status;
  }
  // Our own reasons come first: an abort shows up in libcurl as a callback or write error.
  switch (transfer.abort) {
    case HttpEnd::kCancelled:
      out.end = HttpEnd::kCancelled;
      out.error = Status::Cancelled("request to " + request.target + " cancelled");
      return out;
    case HttpEnd::kIdleTimeout:
      out.end = HttpEnd::kIdleTimeout;
      out.error = Status::DeadlineExceeded("no data from " + request.target + " for " +
                                           std::to_string(request.idle_timeout_ms) +
                                           " ms while streaming (stream_idle_timeout_ms)");
      return out;
    case HttpEnd::kAbortedByBody:
      out.end = HttpEnd::kAbortedByBody;
      return out;
    default:
      break;
  }
  if (!finished) {
    out.error = Status::Internal("libcurl stopped without finishing the transfer");
    return out;
  }
  if (result != CURLE_OK) {
    HttpOutcome failure = curl_failure(easy, result, errbuf, request);
    failure.head = out.head;
    return failure;
  }
  out.end = HttpEnd::kCompleted;
  return out;
}

}  // namespace keel::detail
