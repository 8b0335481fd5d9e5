// One remote A2A agent: card, send, poll, cancel; see a2a_client.hpp.
#include "tools/a2a/a2a_client.hpp"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <utility>

#include "base/random_token.hpp"
#include "core/text/utf8_text.hpp"

namespace keel::detail {
namespace {

using A2aClock = std::chrono::steady_clock;

// Milliseconds left before `deadline`, rounded up; 0 once it passed.
int64_t a2a_ms_left(A2aClock::time_point deadline) {
  const auto left = deadline - A2aClock::now();
  if (left <= A2aClock::duration::zero()) return 0;
  return std::chrono::ceil<std::chrono::milliseconds>(left).count();
}

// Waits `ms`; false when `stop` fired first.
bool a2a_wait(int64_t ms, const std::stop_token& stop) {
  std::mutex m;
  std::condition_variable_any cv;
  std::unique_lock lock(m);
  cv.wait_for(lock, stop, std::chrono::milliseconds(ms), [] { return false; });
  return !stop.stop_requested();
}

std::string a2a_body_excerpt(std::string_view body) {
  std::string out = sanitize_utf8(body.substr(0, utf8_cut_length(body, 200)));
  for (char& c : out) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return out;
}

}  // namespace

A2aClient::A2aClient(A2aClientOptions options, A2aHttp http)
    : options_(std::move(options)), http_(std::move(http)), who_("remote agent '" + options_.agent.name + "'") {}

std::vector<std::string> A2aClient::headers(bool json_body) const {
  std::vector<std::string> lines = {"Accept: application/json", "A2A-Version: 1.0"};
  if (json_body) lines.push_back("Content-Type: application/json");
  if (!options_.token.empty()) lines.push_back("Authorization: Bearer " + options_.token);
  return lines;
}

Status A2aClient::http_status_error(const A2aHttpAnswer& answer, std::string_view what, std::string_view url) const {
  std::string message = who_ + " answered " + std::string(what) + " with HTTP " + std::to_string(answer.status);
  if (!answer.body.empty()) message += " (" + a2a_body_excerpt(answer.body) + ")";
  if (answer.status == 401 || answer.status == 403) {
    message += options_.token.empty()
                   ? "; it may need a token: name the variable holding it with token_env in a2a_agents"
                   : "; check the token in $" + options_.agent.token_env;
    return Status::Unauthenticated(std::move(message));
  }
  if (answer.status == 404) return Status::NotFound(message + "; nothing A2A answers at " + std::string(url));
  if (answer.status >= 500) return Status::Unavailable(std::move(message));
  return Status::InvalidArgument(std::move(message));
}

Result<A2aCard> A2aClient::card(int64_t timeout_ms, const std::stop_token& stop) {
  {
    std::lock_guard lock(mutex_);
    if (card_) return *card_;
  }
  if (!options_.token_problem.empty()) return Status::FailedPrecondition(who_ + ": " + options_.token_problem);
  A2aHttpCall call;
  call.method = "GET";
  call.url = a2a_card_url(options_.agent.url);
  call.headers = headers(false);
  call.timeout_ms = std::max<int64_t>(timeout_ms, 1);
  call.connect_timeout_ms = std::min(options_.connect_timeout_ms, call.timeout_ms);
  call.stop = stop;
  Result<A2aHttpAnswer> answer = http_(call);
  if (!answer.ok()) {
    return Status(answer.status().code(),
                  who_ + ": its agent card (" + call.url + ") cannot be read: " + answer.status().message());
  }
  if (answer->status < 200 || answer->status > 299)
    return http_status_error(*answer, "the agent card request", call.url);
  Result<A2aCard> parsed = parse_a2a_card(answer->body, call.url);
  if (!parsed.ok()) return Status(parsed.status().code(), who_ + ": " + parsed.status().message());
  KEEL_TRY(check_a2a_origin(*parsed, options_.agent.url, who_));
  std::lock_guard lock(mutex_);
  card_ = *parsed;
  return *parsed;
}

Result<nlohmann::json> A2aClient::rpc(const A2aCard& card, A2aMethod method, const nlohmann::json& params,
                                      Clock::time_point deadline, const std::stop_token& stop) {
  const std::string_view name = a2a_method_name(card.protocol, method);
  const int64_t id = next_id_.fetch_add(1);
  A2aHttpCall call;
  call.url = card.rpc_url;
  call.headers = headers(true);
  call.body = a2a_rpc_request(name, params, id);
  call.timeout_ms = a2a_ms_left(deadline);
  call.stop = stop;
  if (call.timeout_ms <= 0) return Status::DeadlineExceeded(who_ + ": no time was left for " + std::string(name));
  call.connect_timeout_ms = std::min(options_.connect_timeout_ms, call.timeout_ms);
  Result<A2aHttpAnswer> answer = http_(call);
  if (!answer.ok()) {
    ErrorCode code = answer.status().code();
    if (code != ErrorCode::kCancelled && A2aClock::now() >= deadline) code = ErrorCode::kDeadlineExceeded;
    return Status(code, who_ + ": " + std::string(name) + " failed: " + answer.status().message());
  }
  if (answer->status < 200 || answer->status > 299) {
    // A JSON-RPC error may come with any status (a server's fault with 500): its message says more.
    const nlohmann::json doc = nlohmann::json::parse(answer->body, nullptr, false);
    if (doc.is_object() && doc.contains("error") && !doc["error"].is_null()) {
      return a2a_rpc_result(answer->body, id, name, who_).status();
    }
    return http_status_error(*answer, name, call.url);
  }
  return a2a_rpc_result(answer->body, id, name, who_);
}

std::string A2aClient::cancel(const A2aCard& card, const std::string& task_id) {
  const auto deadline = A2aClock::now() + std::chrono::milliseconds(std::max<int64_t>(options_.cancel_timeout_ms, 1));
  Result<nlohmann::json> result = rpc(card, A2aMethod::kCancelTask, a2a_task_params(task_id), deadline, {});
  if (result.ok())
    return "keel asked it to cancel the task (" + std::string(a2a_method_name(card.protocol, A2aMethod::kCancelTask)) +
           ")";
  return "asking it to cancel the task failed too: " + result.status().message();
}

Result<A2aReply> A2aClient::poll_until_settled(const A2aCard& card, A2aReply reply, Clock::time_point deadline,
                                               const std::stop_token& stop) {
  int64_t wait_ms = std::max<int64_t>(options_.poll_initial_ms, 1);
  const std::string timeout_text = " within timeout_ms " + std::to_string(options_.agent.timeout_ms);
  while (reply.is_task && a2a_task_running(reply.state)) {
    const std::string task = "task " + reply.task_id + " was " + std::string(a2a_task_state_name(reply.state));
    const int64_t left = a2a_ms_left(deadline);
    if (left > 0 && !stop.stop_requested()) a2a_wait(std::min(wait_ms, left), stop);
    if (stop.stop_requested()) {
      return Status::Cancelled(who_ + ": the call was stopped while the " + task + "; " + cancel(card, reply.task_id));
    }
    if (a2a_ms_left(deadline) <= 0) {
      return Status::DeadlineExceeded(who_ + " did not finish" + timeout_text + " (" + task + "); " +
                                      cancel(card, reply.task_id));
    }
    Result<nlohmann::json> polled = rpc(card, A2aMethod::kGetTask, a2a_task_params(reply.task_id), deadline, stop);
    if (!polled.ok()) {
      const ErrorCode code = polled.status().code();
      if (code == ErrorCode::kDeadlineExceeded) {
        return Status::DeadlineExceeded(who_ + " did not finish" + timeout_text + " (" + task + "); " +
                                        cancel(card, reply.task_id));
      }
      if (code == ErrorCode::kCancelled) {
        return Status::Cancelled(who_ + ": the call was stopped while the " + task + "; " +
                                 cancel(card, reply.task_id));
      }
      return polled.status();
    }
    const std::string context = reply.context_id;
    KEEL_ASSIGN_OR_RETURN(reply, parse_a2a_task(*polled, who_));
    if (reply.context_id.empty()) reply.context_id = context;
    wait_ms = std::min(wait_ms * 2, std::max(options_.poll_max_ms, wait_ms));
  }
  return reply;
}

Result<A2aReply> A2aClient::ask(std::string_view text, std::string_view context_id, const std::stop_token& stop) {
  const auto deadline = A2aClock::now() + std::chrono::milliseconds(options_.agent.timeout_ms);
  if (!options_.token_problem.empty()) return Status::FailedPrecondition(who_ + ": " + options_.token_problem);
  KEEL_ASSIGN_OR_RETURN(A2aCard agent_card, card(std::max<int64_t>(a2a_ms_left(deadline), 1), stop));
  std::string continued_task;
  if (!context_id.empty()) {
    std::lock_guard lock(mutex_);
    if (auto it = awaiting_.find(std::string(context_id)); it != awaiting_.end()) {
      continued_task = it->second;
      awaiting_.erase(it);
    }
  }
  const nlohmann::json params = a2a_send_params(agent_card.protocol, text, random_hex(16), context_id, continued_task);
  Result<nlohmann::json> sent = rpc(agent_card, A2aMethod::kSendMessage, params, deadline, stop);
  if (!sent.ok()) {
    if (sent.status().code() == ErrorCode::kDeadlineExceeded) {
      return Status::DeadlineExceeded(
          who_ + " did not answer " + std::string(a2a_method_name(agent_card.protocol, A2aMethod::kSendMessage)) +
          " within timeout_ms " + std::to_string(options_.agent.timeout_ms) + ": " + sent.status().message());
    }
    return sent.status();
  }
  KEEL_ASSIGN_OR_RETURN(A2aReply reply, parse_a2a_send_result(*sent, who_));
  if (reply.context_id.empty()) reply.context_id = std::string(context_id);
  KEEL_ASSIGN_OR_RETURN(reply, poll_until_settled(agent_card, std::move(reply), deadline, stop));
  if (reply.is_task && reply.state == A2aTaskState::kInputRequired && !reply.context_id.empty()) {
    std::lock_guard lock(mutex_);
    if (awaiting_.size() >= 256 && !awaiting_.contains(reply.context_id))
      awaiting_.erase(awaiting_.begin());  // bounded
    awaiting_[reply.context_id] = reply.task_id;
  }
  return reply;
}

}  // namespace keel::detail
