// api/anthropic_stream.hpp — relays one keel run to a streaming /v1/messages client as the
// Messages API's Server-Sent Events.
//
//   auto relay = std::make_shared<MessagesStreamRelay>(responder, ids, /*tool_pings=*/true);
//   agent.add_hooks(relay);
//   relay->start(cors_headers);        // 200 text/event-stream and message_start
//   Result<RunOutcome> out = agent.run_after(earlier, task, stop);
//   ok ? relay->finish(*out, stop_reason) : relay->fail(error);
//
// The events: message_start; a text block (content_block_start, content_block_delta text_delta
// ..., content_block_stop) once the model writes text; one tool_use block per call handed to the
// client (content_block_start with an empty input, one input_json_delta with the arguments,
// content_block_stop); message_delta with the stop reason and the run's usage; message_stop.
// While keel runs its own tools, `event: ping` goes out for each call (clients skip pings).
//
// Text is live: every delta the model streams (Hooks::on_model_delta, already cleared of tool-call
// markup) is sent at once. A run may take several rounds (the model calls keel's own tools, reads
// their results, writes on): a later round's text continues the same text block, after "\n\n"
// when text went out before. A retried model call streams its reply again from the start; the
// part already sent is not sent twice. So a stream carries the text of every round, where the
// whole (non-streamed) message carries the run's final answer.
//
// Thread-safety: the hooks are called by the run one at a time; start/finish/fail from the run's
// thread before and after it. The responder may be closed by the client at any time (writes then
// do nothing).
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "api/anthropic_reply.hpp"
#include "keel/hooks.hpp"
#include "server/http_responder.hpp"

namespace keel::api {

class MessagesStreamRelay final : public Hooks {
 public:
  // `tool_pings`: send `event: ping` when keel's own tools start.
  MessagesStreamRelay(std::shared_ptr<server::HttpResponder> out, MessageIds ids, bool tool_pings);

  // Sends 200 with `headers` plus the event-stream ones, then message_start.
  void start(server::HttpHeaders headers);
  // Closes a successful run: the text block (with the answer when no text was streamed), the
  // tool_use blocks of outcome.client_calls, message_delta (stop_reason, usage), message_stop.
  void finish(const RunOutcome& outcome, std::string_view stop_reason);
  // Closes a failed run: `event: error`, then the end of the stream.
  void fail(const AnthropicError& error);

  void on_process_prompts(RunContext&, ModelRequest&) override;
  void on_model_delta(RunContext&, std::string_view text) override;
  void on_model_retry(RunContext&, int attempt, const Status& why, int64_t delay_ms) override;
  void on_tool_call(RunContext&, const ToolCall& call) override;

 private:
  void send_text(std::string_view text);
  void close_text();

  std::shared_ptr<server::HttpResponder> out_;
  MessageIds ids_;
  bool tool_pings_;
  int next_index_ = 0;         // the index the next content block gets
  bool text_open_ = false;     // a text block has started and not stopped
  bool any_text_ = false;      // some text went out
  bool new_round_ = false;     // the next text is a new round's first
  std::string round_text_;     // what the current model call streamed
  bool replaying_ = false;     // a retried call is streaming again what round_text_ holds
  size_t replayed_ = 0;        // how much of round_text_ it has repeated
};

}  // namespace keel::api
