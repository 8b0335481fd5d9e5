// One transfer driven through a multi handle; see curl_multi.hpp.
#include "net/curl_multi.hpp"

#include <string>

#include "net/curl_easy.hpp"

namespace keel::detail {

CurlMulti::CurlMulti() {
  multi_ = curl().curl_multi_init();
}

CurlMulti::~CurlMulti() {
  if (multi_ != nullptr) curl().curl_multi_cleanup(multi_);
}

Result<CurlMulti::Outcome> CurlMulti::run(CURL* easy, const std::stop_token& stop,
                                          std::chrono::milliseconds poll_interval,
                                          const std::function<bool()>& keep_going) {
  if (CURLMcode mc = curl().curl_multi_add_handle(multi_, easy); mc != CURLM_OK) {
    return Status::Internal(std::string("libcurl refused the transfer: ") + curl().curl_multi_strerror(mc));
  }
  Outcome out;
  {
    CURLM* multi = multi_;
    std::stop_callback wake(stop, [multi] { curl().curl_multi_wakeup(multi); });
    while (true) {
      int running = 0;
      const CURLMcode mc = curl().curl_multi_perform(multi, &running);
      int pending = 0;
      while (CURLMsg* msg = curl().curl_multi_info_read(multi, &pending)) {
        if (msg->msg == CURLMSG_DONE && msg->easy_handle == easy) {
          out.result = msg->data.result;
          out.finished = true;
        }
      }
      if (out.finished || running == 0) break;
      if (mc != CURLM_OK) {
        out.multi_error = mc;
        break;
      }
      if (keep_going && !keep_going()) break;
      curl().curl_multi_poll(multi, nullptr, 0, static_cast<int>(poll_interval.count()), nullptr);
    }
  }
  curl().curl_multi_remove_handle(multi_, easy);  // an unfinished transfer is aborted here
  return out;
}

}  // namespace keel::detail
