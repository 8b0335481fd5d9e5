// The A2A client's HTTP exchange over the net layer; see a2a_http.hpp.
#include "tools/a2a/a2a_http.hpp"

#include <memory>
#include <mutex>
#include <string_view>
#include <utility>

#include "net/http_transport.hpp"

namespace keel::detail {
namespace {

// One session (and so one kept-alive connection) per agent, lent to one exchange at a time.
struct A2aHttpState {
  std::mutex mutex;
  std::unique_ptr<HttpSession> session;
  size_t max_bytes = 0;
  std::string target;
};

Result<A2aHttpAnswer> a2a_exchange(A2aHttpState& state, const A2aHttpCall& call) {
  std::lock_guard lock(state.mutex);
  if (!state.session) state.session = std::make_unique<HttpSession>();
  A2aHttpAnswer answer;
  bool too_big = false;
  HttpRequest request;
  request.method = call.method;
  request.url = call.url;
  request.target = state.target;
  request.body = call.body;
  request.headers = call.headers;
  request.connect_timeout_ms = call.connect_timeout_ms;
  request.total_timeout_ms = call.timeout_ms;
  request.total_timeout_name = "timeout_ms";
  request.stop = call.stop;
  request.on_body = [&](const HttpHead&, std::string_view bytes) {
    if (answer.body.size() + bytes.size() > state.max_bytes) {
      too_big = true;
      return false;
    }
    answer.body.append(bytes);
    return true;
  };
  HttpOutcome out = state.session->perform(request);
  switch (out.end) {
    case HttpEnd::kCompleted:
      answer.status = out.head.status;
      answer.content_type = out.head.content_type;
      return answer;
    case HttpEnd::kCancelled:
      return Status::Cancelled("the request to " + state.target + " was stopped");
    case HttpEnd::kAbortedByBody:
      if (too_big) {
        state.session.reset();  // the connection is mid-answer: start afresh next time
        return Status::ResourceExhausted(state.target + " sent an answer larger than " +
                                         std::to_string(state.max_bytes) + " bytes; it was not read");
      }
      return Status::Unavailable("the request to " + state.target + " was abandoned");
    case HttpEnd::kIdleTimeout:
    case HttpEnd::kFailed:
      break;
  }
  state.session.reset();
  if (out.error.ok()) return Status::Unavailable("the request to " + state.target + " failed");
  return out.error;
}

}  // namespace

A2aHttp make_a2a_http(size_t max_response_bytes, std::string target) {
  auto state = std::make_shared<A2aHttpState>();
  state->max_bytes = max_response_bytes;
  state->target = std::move(target);
  return [state](const A2aHttpCall& call) { return a2a_exchange(*state, call); };
}

}  // namespace keel::detail
