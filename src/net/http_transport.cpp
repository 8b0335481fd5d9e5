// libcurl-based HTTP requests with prompt cancellation and an idle timeout; see http_transport.hpp.
#include "net/http_transport.hpp"

#include <chrono>
#include <exception>

#include "net/curl_easy.hpp"
#include "net/curl_multi.hpp"

namespace keel::detail {
namespace {

using Clock = std::chrono::steady_clock;

// How often the transfer loop wakes without network activity to check the idle timeout.
constexpr int kPollIntervalMs = 25;

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

// One header line of the response (see CurlHooks::on_header).
bool on_header_line(Transfer& t, std::string_view raw) {
  t.last_byte = Clock::now();
  const std::string_view line = trim(raw);
  if (line.empty()) {  // the end of a head: a final one unless it is 1xx
    if (t.head.status >= 200 && t.request->on_head) t.request->on_head(t.head);
  } else if (line.starts_with("HTTP/")) {
    t.head = HttpHead{};  // a new response (after 100 Continue or similar)
    const size_t space = line.find(' ');
    if (space != std::string_view::npos) {
      long status = 0;
      for (size_t i = space + 1; i < line.size() && line[i] >= '0' && line[i] <= '9'; ++i) {
        status = status * 10 + (line[i] - '0');
      }
      t.head.status = status;
    }
  } else if (iequals_prefix(line, "content-type:")) {
    t.head.content_type = std::string(trim(line.substr(13)));
  } else if (iequals_prefix(line, "retry-after:")) {
    t.head.retry_after = std::string(trim(line.substr(12)));
  } else if (!t.request->capture_headers.empty()) {
    capture(t, line);
  }
  return true;
}

// Body bytes of the response (see CurlHooks::on_body).
bool on_body_bytes(Transfer& t, std::string_view data) {
  t.last_byte = Clock::now();
  if (t.abort != HttpEnd::kCompleted) return false;
  bool keep_going = true;
  try {
    keep_going = !t.request->on_body || t.request->on_body(t.head, data);
  } catch (...) {
    keep_going = false;  // on_body is keel's own code and does not throw; never let it cross C code
  }
  if (!keep_going) {
    t.abort = HttpEnd::kAbortedByBody;
    return false;
  }
  return true;
}

// A transport error as a Status, with whether another attempt may help.
HttpOutcome curl_failure(CURL* easy, CURLcode code, const char* errbuf, const HttpRequest& request) {
  HttpOutcome out;
  out.end = HttpEnd::kFailed;
  const CurlFailure f = classify_curl_failure(easy, code, errbuf);
  const std::string& target = request.target;
  switch (f.kind) {
    case CurlFailure::Kind::kConnect:
      out.error = Status::Unavailable("cannot connect to " + target + ": " + f.reason());
      out.retryable = true;
      break;
    case CurlFailure::Kind::kResolve:
      out.error = Status::Unavailable("cannot resolve the host of " + target + ": " + f.detail);
      break;
    case CurlFailure::Kind::kTimeout:
      if (!f.connected) {
        out.error = Status::Unavailable("timed out connecting to " + target + " (connect_timeout_ms " +
                                        std::to_string(request.connect_timeout_ms) + "): " + f.detail);
        out.retryable = true;
      } else {
        out.error = Status::DeadlineExceeded("request to " + target + " timed out after " +
                                             std::to_string(request.total_timeout_ms) + " ms (" +
                                             request.total_timeout_name + "): " + f.detail);
      }
      break;
    case CurlFailure::Kind::kNoReply:
      out.error = Status::Unavailable(target + " closed the connection without replying");
      out.retryable = true;
      break;
    case CurlFailure::Kind::kConnectionBroken:
      out.error = Status::Unavailable("connection to " + target + " broke: " + f.detail);
      out.retryable = true;
      out.connection_lost = true;
      break;
    case CurlFailure::Kind::kBadUrl:
      out.error = Status::InvalidArgument("invalid URL " + request.url + ": " + f.detail);
      break;
    case CurlFailure::Kind::kTls:
      out.error = Status::Unavailable("TLS error talking to " + target + ": " + f.detail);
      break;
    default:
      out.error = Status::Unavailable("request to " + target + " failed: " + f.detail + " (curl error " +
                                      std::to_string(static_cast<int>(code)) + ")");
      break;
  }
  return out;
}

// Applies every per-request option on top of the shared ones.
void configure(CurlEasy& easy, const HttpRequest& request, const CurlList& headers, CurlHooks& hooks) {
  CurlTransfer common;
  common.url = request.url;
  common.connect_timeout_ms = request.connect_timeout_ms;
  common.total_timeout_ms = request.total_timeout_ms;
  common.headers = headers.get();
  common.hooks = &hooks;
  easy.prepare(common);
  CURL* e = easy.get();
  if (request.method == "POST") {
    curl().curl_easy_setopt(e, CURLOPT_POST, 1L);
    curl().curl_easy_setopt(e, CURLOPT_POSTFIELDS, request.body.data());
    curl().curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
  } else {
    curl().curl_easy_setopt(e, CURLOPT_HTTPGET, 1L);
    if (request.method != "GET") curl().curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, request.method.c_str());
  }
  curl().curl_easy_setopt(e, CURLOPT_TCP_KEEPALIVE, 1L);
  curl().curl_easy_setopt(e, CURLOPT_TCP_KEEPIDLE, 30L);
  curl().curl_easy_setopt(e, CURLOPT_TCP_KEEPINTVL, 15L);
}

}  // namespace

std::string_view HttpHead::header(std::string_view lower_name) const {
  for (const auto& [name, value] : captured) {
    if (name == lower_name) return value;
  }
  return {};
}

HttpSession::HttpSession() { start_loading_curl(); }

HttpSession::~HttpSession() = default;  // the multi handle goes first: it closes the cached connections

bool HttpSession::ok() {
  if (easy_ == nullptr) {
    easy_ = std::make_unique<CurlEasy>();
    multi_ = std::make_unique<CurlMulti>();
  }
  return easy_->ok() && multi_->ok();
}

HttpOutcome HttpSession::perform(const HttpRequest& request) {
  HttpOutcome out;
  if (!ok()) {
    out.error = Status::Internal("libcurl could not create a handle (out of memory?)");
    return out;
  }
  Transfer transfer;
  transfer.request = &request;
  transfer.last_byte = Clock::now();
  CurlHooks hooks;
  hooks.on_header = [&transfer](std::string_view line) { return on_header_line(transfer, line); };
  hooks.on_body = [&transfer](std::string_view data) { return on_body_bytes(transfer, data); };
  hooks.keep_going = [&transfer] { return !transfer.should_abort(); };
  CurlList headers;
  for (const std::string& h : request.headers) {
    if (!headers.append(h)) break;
  }
  configure(*easy_, request, headers, hooks);
  CURL* easy = easy_->get();

  Result<CurlMulti::Outcome> ran = multi_->run(easy, request.stop, std::chrono::milliseconds(kPollIntervalMs),
                                               [&transfer] { return !transfer.should_abort(); });
  if (!ran.ok()) {
    out.error = ran.status();
    return out;
  }
  CURLcode result = ran->result;
  bool finished = ran->finished;
  std::string errbuf = easy_->error_text();
  if (!finished && ran->multi_error != CURLM_OK) {
    result = CURLE_RECV_ERROR;
    errbuf = curl().curl_multi_strerror(ran->multi_error);
    finished = true;
  }

  out.head = transfer.head;
  long status = 0;
  if (curl().curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status) == CURLE_OK && status != 0) {
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
    HttpOutcome failure = curl_failure(easy, result, errbuf.c_str(), request);
    failure.head = out.head;
    return failure;
  }
  out.end = HttpEnd::kCompleted;
  return out;
}

}  // namespace keel::detail
