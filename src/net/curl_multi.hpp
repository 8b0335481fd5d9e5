// net/curl_multi.hpp — drives one libcurl transfer through a multi handle so that a stop request
// wakes it at once and the caller is asked at short intervals whether to go on (idle timeouts,
// a reader that has what it needs). The multi handle keeps the connection cache, so consecutive
// transfers to one host reuse a kept-alive connection. Used by the HTTP transport and the web
// tools' fetcher.
//
// Thread-safety: one transfer at a time per CurlMulti; the stop token may fire from any thread.
#pragma once

#include <curl/curl.h>

#include <chrono>
#include <functional>
#include <stop_token>

#include "keel/result.hpp"

namespace keel::detail {

class CurlMulti {
 public:
  CurlMulti();
  ~CurlMulti();  // closes the cached connections
  CurlMulti(const CurlMulti&) = delete;
  CurlMulti& operator=(const CurlMulti&) = delete;

  // False when libcurl could not create the handle (out of memory).
  bool ok() const { return multi_ != nullptr; }

  // How run() ended.
  struct Outcome {
    bool finished = false;                 // libcurl finished the transfer; `result` is its code
    CURLcode result = CURLE_OK;
    CURLMcode multi_error = CURLM_OK;      // the multi interface failed before the transfer finished
  };

  // Runs the transfer prepared on `easy` until it finishes, the multi interface fails, or
  // `keep_going` (asked after every wake-up: network activity, a stop request, or
  // `poll_interval` passing) returns false; an unfinished transfer is abandoned. Internal when
  // libcurl refuses to take the transfer.
  Result<Outcome> run(CURL* easy, const std::stop_token& stop, std::chrono::milliseconds poll_interval,
                      const std::function<bool()>& keep_going);

 private:
  CURLM* multi_ = nullptr;
};

}  // namespace keel::detail
