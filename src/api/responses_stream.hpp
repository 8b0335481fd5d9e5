// api/responses_stream.hpp — follows one keel run as a Responses API response: builds its output
// items as the run goes and, for a streaming client, sends them as the standard events.
//
//   auto relay = std::make_shared<ResponseRelay>(head, out, options, on_started);
//   agent.add_hooks(relay);
//   Result<RunOutcome> r = agent.run_after(earlier, task, stop);   // on_run_started: the id is known
//   nlohmann::json response = ok ? relay->finish(*r, answer) : relay->fail("failed", code, message, r);
//
// The response's id is its run's (responses_reply.hpp), so nothing is sent before the run starts:
// at on_run_started the relay takes the id, calls `on_started` (the endpoint registers the
// response, and answers a background request), and a stream begins: response.created and
// response.in_progress, each with the response object.
//
// Streamed events, each with "sequence_number" from 0:
//   text (live: every piece the model writes, tool-call markup already filtered out, the moment
//   it comes): response.output_item.added (a message), response.content_part.added,
//   response.output_text.delta...; text of a later round (after keel ran its own tools) continues
//   the same part after "\n\n". At the end: response.output_text.done, response.content_part.done,
//   response.output_item.done; then per call of a client tool: response.output_item.added (a
//   function_call), response.function_call_arguments.delta and .done, response.output_item.done;
//   then response.completed with the whole response and usage. A run that fails sends
//   response.failed (status failed or cancelled, error {code,message}). Not live (an answer that
//   must be validated first): the text is sent in one delta at the end. While keel's tools run,
//   ": keel tool NAME" comment lines show progress (clients skip them).
//
// Without a stream the relay only builds the output (the answer is the run's final reply).
//
// Thread-safety: the hooks, finish and fail are called from the run's thread; snapshot() from
// any thread. The responder may be closed by the client at any time (writes then do nothing).
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "api/responses_reply.hpp"
#include "keel/hooks.hpp"
#include "server/http_responder.hpp"

namespace keel::api {

struct ResponseRelayOptions {
  bool stream = false;             // send events
  bool live = true;                // stream text as the model writes it (false: the answer at the end)
  bool tool_comments = true;       // ": keel tool NAME" comment lines while keel's tools run
  server::HttpHeaders headers;     // sent with the stream's 200
  std::function<int64_t()> now_s;  // unix seconds for completed_at
};

class ResponseRelay final : public Hooks {
 public:
  // `on_started(response_id)` runs on the run's thread when the run has started, before any event.
  ResponseRelay(ResponseHead head, std::shared_ptr<server::HttpResponder> out, ResponseRelayOptions options,
                std::function<void(const std::string&)> on_started);

  // True once the run started (the id is known and, streaming, the events began).
  bool started() const;
  const std::string& id() const { return head_.id; }
  // The response as it stands (status in_progress until finish or fail).
  nlohmann::json snapshot() const;

  // Completes the response with the run's client calls and usage; `answer` is the text to show
  // when none was streamed live. Sends the closing events; returns the final response object.
  nlohmann::json finish(const RunOutcome& outcome, const std::string& answer);
  // Ends the response as `status` ("failed" or "cancelled") with error {code, message}; sends
  // response.failed when streaming. `outcome` (may be null) gives usage and keel's extension.
  nlohmann::json fail(std::string_view status, const std::string& code, const std::string& message,
                      const RunOutcome* outcome);

  void on_run_started(RunContext& ctx) override;
  void on_model_delta(RunContext&, std::string_view text) override;
  void on_tool_call(RunContext&, const ToolCall& call) override;
  void on_user_message(RunContext&, const Message&) override;

 private:
  void send(nlohmann::json event);          // adds the sequence number; holds mu_
  void open_message();                      // holds mu_
  void append_text(std::string_view text);  // holds mu_
  void close_message();                     // holds mu_
  void add_call(const ToolCall& call);      // holds mu_
  void end_stream();

  ResponseHead head_;
  std::shared_ptr<server::HttpResponder> out_;
  ResponseRelayOptions options_;
  std::function<void(const std::string&)> on_started_;

  mutable std::mutex mu_;
  bool started_ = false;
  ResponseBody body_;
  int64_t sequence_ = 0;
  int next_item_ = 0;
  int message_index_ = -1;  // the open message's place in the output; -1: none open
  std::string message_id_;
  std::string text_;        // the open message's text so far
  bool sent_text_ = false;  // some text went out
  bool new_round_ = false;  // a round ended since: the next text starts after a blank line
};

}  // namespace keel::api
