// api/openai_stream.hpp — relays one keel run to a streaming chat-completions client as
// chat.completion.chunk events (Server-Sent Events).
//
//   auto relay = std::make_shared<ChatStreamRelay>(responder, ids, /*include_usage=*/true, true);
//   agent.add_hooks(relay);
//   relay->start(cors_headers);                 // 200 text/event-stream and the role chunk
//   Result<RunOutcome> out = agent.run_after(earlier, task, stop);
//   out.ok() && out->ok ? relay->finish(*out) : relay->fail(error);
//
// Text is live: each piece the model streams (tool-call markup already filtered out by the run)
// goes out as a content delta the moment it arrives, so a client sees the answer as it is
// written. A round that ends in keel's own tool calls has therefore shown its text too; the next
// round's text follows after a blank line. While tools run, ": keel tool NAME" comment lines
// show progress (clients skip them). A run that hands the client's tool calls over ends with one
// delta.tool_calls chunk and finish_reason "tool_calls". Held (a structured answer that must be
// validated first): nothing is sent until the run ends, then the answer in one piece.
//
// Thread-safety: the hooks are called by the run one at a time; start/finish/fail from the
// run's thread before and after it. The responder may be closed by the client at any time
// (writes then do nothing).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "api/openai_reply.hpp"
#include "keel/hooks.hpp"
#include "server/http_responder.hpp"

namespace keel::api {

class ChatStreamRelay final : public Hooks {
 public:
  // `tool_comments`: send ": keel tool NAME" lines when tools start. `live`: send text as it comes.
  ChatStreamRelay(std::shared_ptr<server::HttpResponder> out, CompletionIds ids, bool include_usage,
                  bool tool_comments, bool live = true);

  // Sends 200 with `headers` plus the event-stream ones, then the role chunk.
  void start(server::HttpHeaders headers);
  // Closes a successful run: the held answer (`answer`, when not live), the client's tool calls,
  // the stop chunk (with keel's extension), the usage chunk when asked for, [DONE].
  void finish(const RunOutcome& outcome, const std::string& answer);
  // Closes a failed run: an error event, then [DONE].
  void fail(const OpenAiError& error);

  void on_model_delta(RunContext&, std::string_view text) override;
  void on_tool_call(RunContext&, const ToolCall& call) override;
  void on_user_message(RunContext&, const Message&) override;

 private:
  void send_content(std::string_view text);
  void close_stream(std::string last_events);

  std::shared_ptr<server::HttpResponder> out_;
  CompletionIds ids_;
  bool include_usage_;
  bool tool_comments_;
  bool live_;
  bool sent_text_ = false;   // some text went out
  bool new_round_ = false;   // a round ended since: the next text starts after a blank line
};

}  // namespace keel::api
