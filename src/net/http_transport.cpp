// libcurl-based HTTP requests with prompt cancellation and an idle timeout; see http_transport.hpp.
#include "net/http_transport.hpp"

#include <chrono>
#include <optional>

#include "net/curl_easy.hpp"
#include "net/curl_multi.hpp"
#include "net/http_transfer.hpp"
#include "net/plain_http_client.hpp"
#include "net/plain_http_url.hpp"

namespace keel::detail {
namespace {

// How often the transfer loop wakes without network activity to check the idle timeout.
constexpr int kPollIntervalMs = 25;

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

HttpSession::HttpSession() = default;

HttpSession::HttpSession(std::string_view expected_url) {
  if (plain_http_ruled_out_by_environment() || !plain_http_url(expected_url)) start_loading_curl();
}

HttpSession::~HttpSession() = default;  // the multi handle goes first: it closes the cached connections

bool HttpSession::curl_ready() {
  if (easy_ == nullptr) {
    easy_ = std::make_unique<CurlEasy>();
    multi_ = std::make_unique<CurlMulti>();
  }
  return easy_->ok() && multi_->ok();
}

HttpOutcome HttpSession::perform(const HttpRequest& request) {
  if (!plain_http_ruled_out_by_environment()) {
    if (std::optional<PlainHttpUrl> url = plain_http_url(request.url)) {
      if (!plain_) plain_ = std::make_unique<PlainHttpClient>();
      return plain_->perform(request, *url);
    }
  }
  HttpOutcome out;
  if (!curl_ready()) {
    out.error = Status::Internal("libcurl could not create a handle (out of memory?)");
    return out;
  }
  Transfer transfer(request);
  CurlHooks hooks;
  hooks.on_header = [&transfer](std::string_view line) { return transfer.on_header_line(line); };
  hooks.on_body = [&transfer](std::string_view data) { return transfer.on_body_bytes(data); };
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
  if (transfer.ended_by_keel(out)) return out;
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
