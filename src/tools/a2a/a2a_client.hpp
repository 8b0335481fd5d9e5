// tools/a2a/a2a_client.hpp — one remote A2A agent: reads its card (once), sends a message, polls
// the task until it is final, and cancels it when the call runs out of time or is stopped.
//
//   A2aClient client(options, make_a2a_http(8 << 20, options.agent.url));
//   KEEL_ASSIGN_OR_RETURN(A2aReply reply, client.ask("summarize X", "", ctx.stop));
//
// The call's budget is the agent's timeout_ms, from sending to the final answer (the card read
// included when it is not cached yet). Polling waits poll_initial_ms, doubling up to poll_max_ms.
// A task that asks for input is remembered by its context id: the next ask() with that context id
// continues the same task (its taskId is sent along).
//
// Thread-safety: ask() and card() may be called from any thread; the HTTP exchanges of one client
// are served one at a time.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include "keel/a2a_config.hpp"
#include "keel/result.hpp"
#include "tools/a2a/a2a_card.hpp"
#include "tools/a2a/a2a_http.hpp"
#include "tools/a2a/a2a_wire.hpp"

namespace keel::detail {

struct A2aClientOptions {
  A2aAgentConfig agent;
  std::string token;          // the bearer token; empty: none is sent
  std::string token_problem;  // non-empty: why the configured token cannot be had (every call fails with it)
  int64_t connect_timeout_ms = 10000;
  int64_t cancel_timeout_ms = 5000;
  int64_t poll_initial_ms = 100;
  int64_t poll_max_ms = 2000;
};

class A2aClient {
 public:
  A2aClient(A2aClientOptions options, A2aHttp http);

  // "remote agent 'NAME'", for messages.
  const std::string& who() const { return who_; }
  const A2aClientOptions& options() const { return options_; }

  // The agent's card, read within `timeout_ms` the first time (a failed read is tried again at the
  // next call). Errors: the read's (unreachable, HTTP status, not JSON, no JSON-RPC interface) and
  // PermissionDenied for an endpoint on another origin than the configured url.
  Result<A2aCard> card(int64_t timeout_ms, const std::stop_token& stop);

  // Sends `text` (in `context_id`'s conversation when not empty) and returns the agent's answer
  // once it is final or asks for input. Errors: the card's, the requests', JSON-RPC errors of the
  // agent; DeadlineExceeded after timeout_ms and Cancelled when `stop` fires (both after asking the
  // agent to cancel the task, when there is one).
  Result<A2aReply> ask(std::string_view text, std::string_view context_id, const std::stop_token& stop);

 private:
  using Clock = std::chrono::steady_clock;
  Result<nlohmann::json> rpc(const A2aCard& card, A2aMethod method, const nlohmann::json& params,
                             Clock::time_point deadline, const std::stop_token& stop);
  Result<A2aReply> poll_until_settled(const A2aCard& card, A2aReply reply, Clock::time_point deadline,
                                      const std::stop_token& stop);
  // Asks the agent to cancel `task_id` (best effort, within cancel_timeout_ms); what happened, for
  // the caller's message.
  std::string cancel(const A2aCard& card, const std::string& task_id);
  std::vector<std::string> headers(bool json_body) const;
  Status http_status_error(const A2aHttpAnswer& answer, std::string_view what, std::string_view url) const;

  const A2aClientOptions options_;
  const A2aHttp http_;
  const std::string who_;
  std::atomic<int64_t> next_id_{1};
  std::mutex mutex_;  // guards the members below
  std::optional<A2aCard> card_;
  std::map<std::string, std::string> awaiting_;  // context id -> the task that asked for input
};

}  // namespace keel::detail
