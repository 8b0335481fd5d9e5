// The shared libcurl easy-handle setup; see curl_easy.hpp.
#include "net/curl_easy.hpp"

#include <mutex>
#include <system_error>

namespace keel::detail {
namespace {

size_t header_hook(char* buffer, size_t size, size_t count, void* user) {
  auto* hooks = static_cast<CurlHooks*>(user);
  const size_t n = size * count;
  if (!hooks->on_header) return n;
  try {
    return hooks->on_header(std::string_view(buffer, n)) ? n : 0;
  } catch (...) {
    return 0;
  }
}

size_t body_hook(char* data, size_t size, size_t count, void* user) {
  auto* hooks = static_cast<CurlHooks*>(user);
  const size_t n = size * count;
  if (!hooks->on_body) return n;
  try {
    return hooks->on_body(std::string_view(data, n)) ? n : 0;
  } catch (...) {
    return 0;
  }
}

int progress_hook(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  auto* hooks = static_cast<CurlHooks*>(user);
  if (!hooks->keep_going) return 0;
  try {
    return hooks->keep_going() ? 0 : 1;
  } catch (...) {
    return 1;
  }
}

}  // namespace

CurlList::~CurlList() {
  if (list_ != nullptr) curl().curl_slist_free_all(list_);
}

bool CurlList::append(const std::string& item) {
  curl_slist* next = curl().curl_slist_append(list_, item.c_str());
  if (next == nullptr) return false;
  list_ = next;
  return true;
}

CurlEasy::CurlEasy() {
  easy_ = curl().curl_easy_init();
}

CurlEasy::~CurlEasy() {
  if (easy_ != nullptr) curl().curl_easy_cleanup(easy_);
}

void CurlEasy::prepare(const CurlTransfer& t) {
  static CurlHooks no_hooks;  // never changed: drops the body
  CurlHooks* hooks = t.hooks != nullptr ? t.hooks : &no_hooks;
  CURL* e = easy_;
  curl().curl_easy_reset(e);  // keeps live connections, DNS and TLS session caches
  error_[0] = '\0';
  curl().curl_easy_setopt(e, CURLOPT_URL, t.url.c_str());
  curl().curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
  curl().curl_easy_setopt(e, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
  curl().curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, t.max_redirects > 0 ? 1L : 0L);
  if (t.max_redirects > 0) curl().curl_easy_setopt(e, CURLOPT_MAXREDIRS, t.max_redirects);
  if (!t.proxy_from_environment) curl().curl_easy_setopt(e, CURLOPT_PROXY, "");
  curl().curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
  curl().curl_easy_setopt(e, CURLOPT_USERAGENT, t.user_agent.empty() ? kKeelUserAgent : t.user_agent.c_str());
  curl().curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(t.connect_timeout_ms));
  curl().curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, static_cast<long>(t.total_timeout_ms));
  if (t.headers != nullptr) curl().curl_easy_setopt(e, CURLOPT_HTTPHEADER, t.headers);
  curl().curl_easy_setopt(e, CURLOPT_ERRORBUFFER, error_);
  curl().curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, header_hook);
  curl().curl_easy_setopt(e, CURLOPT_HEADERDATA, hooks);
  curl().curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, body_hook);
  curl().curl_easy_setopt(e, CURLOPT_WRITEDATA, hooks);
  curl().curl_easy_setopt(e, CURLOPT_NOPROGRESS, 0L);
  curl().curl_easy_setopt(e, CURLOPT_XFERINFOFUNCTION, progress_hook);
  curl().curl_easy_setopt(e, CURLOPT_XFERINFODATA, hooks);
}

CurlFailure classify_curl_failure(CURL* easy, CURLcode code, const char* error_text) {
  CurlFailure f;
  f.code = code;
  f.detail = error_text != nullptr && error_text[0] != '\0' ? std::string(error_text)
                                                            : std::string(curl().curl_easy_strerror(code));
  switch (code) {
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
      f.kind = CurlFailure::Kind::kResolve;
      break;
    case CURLE_COULDNT_CONNECT: {
      f.kind = CurlFailure::Kind::kConnect;
      long os_errno = 0;
      curl().curl_easy_getinfo(easy, CURLINFO_OS_ERRNO, &os_errno);
      if (os_errno != 0) f.system_error = std::system_category().message(static_cast<int>(os_errno));
      break;
    }
    case CURLE_OPERATION_TIMEDOUT: {
      f.kind = CurlFailure::Kind::kTimeout;
      curl_off_t connect_us = 0;
      curl().curl_easy_getinfo(easy, CURLINFO_CONNECT_TIME_T, &connect_us);
      f.connected = connect_us != 0;
      break;
    }
    case CURLE_GOT_NOTHING:
      f.kind = CurlFailure::Kind::kNoReply;
      break;
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_PARTIAL_FILE:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
      f.kind = CurlFailure::Kind::kConnectionBroken;
      break;
    case CURLE_UNSUPPORTED_PROTOCOL:
    case CURLE_URL_MALFORMAT:
      f.kind = CurlFailure::Kind::kBadUrl;
      break;
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CACERT_BADFILE:
      f.kind = CurlFailure::Kind::kTls;
      break;
    case CURLE_BAD_CONTENT_ENCODING:
      f.kind = CurlFailure::Kind::kBadEncoding;
      break;
    default:
      f.kind = CurlFailure::Kind::kOther;
      break;
  }
  return f;
}

}  // namespace keel::detail
