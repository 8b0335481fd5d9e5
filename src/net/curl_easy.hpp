// net/curl_easy.hpp — the libcurl easy handle as keel's HTTP clients use it: the HTTP transport
// (net/http_transport), the web tools' guarded fetcher (tools/web/web_fetcher) and `keel model
// pull` (llm/model_download). One place sets up libcurl's global state, owns the handle and its
// error buffer, applies the options every transfer shares (protocols, user agent, timeouts,
// redirects, proxies, no signals, callbacks) and sorts a failed transfer's CURLcode into the kinds
// the callers word for their users. Each caller adds its own options on top (the fetcher's socket
// guard, the download's Range, the transport's keep-alive) with curl_easy_setopt.
//
// Thread-safety: a CurlEasy is used by one thread at a time; different handles are independent.
#pragma once

#include "net/curl_library.hpp"

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace keel::detail {

#ifdef KEEL_VERSION
inline constexpr const char* kKeelUserAgent = "keel/" KEEL_VERSION;
#else
inline constexpr const char* kKeelUserAgent = "keel/dev";
#endif

// What a transfer's callbacks call. Each is optional; returning false ends the transfer
// (CURLE_WRITE_ERROR for on_header and on_body, CURLE_ABORTED_BY_CALLBACK for keep_going). An
// exception thrown by one ends the transfer the same way; none crosses libcurl's C frames.
struct CurlHooks {
  std::function<bool(std::string_view line)> on_header;  // one header line as received (CRLF included)
  std::function<bool(std::string_view data)> on_body;    // body bytes as they arrive (decoded)
  std::function<bool()> keep_going;                      // asked by libcurl's progress callback
};

// The options every transfer sets (see CurlEasy::prepare).
struct CurlTransfer {
  std::string url;
  std::string user_agent;           // empty: kKeelUserAgent
  int64_t connect_timeout_ms = 0;   // 0: libcurl's default
  int64_t total_timeout_ms = 0;     // the whole transfer; 0: none
  long max_redirects = 0;           // redirects libcurl follows itself; 0: none (the caller sees 3xx)
  bool proxy_from_environment = true;  // false: never a proxy (*_proxy variables ignored)
  const curl_slist* headers = nullptr;  // extra request headers, owned by the caller
  CurlHooks* hooks = nullptr;       // must outlive the transfer; nullptr: the body is dropped
};

// A list of strings for libcurl (headers, resolve entries), freed on destruction.
class CurlList {
 public:
  CurlList() = default;
  ~CurlList();
  CurlList(const CurlList&) = delete;
  CurlList& operator=(const CurlList&) = delete;

  // Appends a copy of `item`; false when libcurl ran out of memory (the list is unchanged).
  bool append(const std::string& item);
  curl_slist* get() const { return list_; }
  bool empty() const { return list_ == nullptr; }

 private:
  curl_slist* list_ = nullptr;
};

// One owned easy handle with its error buffer.
class CurlEasy {
 public:
  CurlEasy();  // sets up libcurl's global state once per process first
  ~CurlEasy();
  CurlEasy(const CurlEasy&) = delete;
  CurlEasy& operator=(const CurlEasy&) = delete;

  // False when libcurl could not create the handle (out of memory).
  bool ok() const { return easy_ != nullptr; }
  CURL* get() const { return easy_; }

  // Readies the handle for the next transfer: curl_easy_reset (connections, DNS and TLS session
  // caches are kept), an empty error buffer, then `t`'s options: http and https only (redirects
  // too), no signals, the user agent, both timeouts, redirects, proxies, headers, the hooks and
  // progress callbacks on. The caller's own options come after.
  void prepare(const CurlTransfer& t);

  // What libcurl wrote about the last failure; "" when nothing.
  const char* error_text() const { return error_; }

 private:
  CURL* easy_ = nullptr;
  char error_[CURL_ERROR_SIZE] = {};
};

// A failed transfer, sorted into the kinds keel's messages distinguish.
struct CurlFailure {
  enum class Kind {
    kResolve,           // the host (or proxy) name did not resolve
    kConnect,           // no connection (refused, unreachable)
    kTimeout,           // a timeout fired (see connected)
    kNoReply,           // the server closed the connection without a response
    kConnectionBroken,  // sending or receiving failed mid-way
    kBadUrl,            // malformed URL or a protocol that is not enabled
    kTls,               // handshake or certificate failure
    kBadEncoding,       // the Content-Encoding could not be decoded
    kOther,
  };
  Kind kind = Kind::kOther;
  CURLcode code = CURLE_OK;
  std::string detail;        // the error buffer's text, else libcurl's description of `code`
  std::string system_error;  // kConnect: the OS's reason (e.g. "Connection refused"); may be ""
  bool connected = false;    // kTimeout: a connection had been made (so it was not the connect)

  // The OS's reason when there is one, else detail.
  const std::string& reason() const { return system_error.empty() ? detail : system_error; }
};

// Sorts `code` (not CURLE_OK), reading what it needs from `easy` (OS errno, connect time).
// `error_text` is the handle's error buffer (or a replacement text).
CurlFailure classify_curl_failure(CURL* easy, CURLcode code, const char* error_text);

}  // namespace keel::detail
