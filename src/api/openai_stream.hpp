// api/openai_stream.hpp — relays one keel run to a streaming chat-completions client as
// chat.completion.chunk events (Server-Sent Events).
//
//   auto relay = std::make_shared<ChatStreamRelay>(responder, ids, /*include_usage=*/true, true);
//   agent.add_hooks(relay);
//   relay->start(cors_headers);                 // 200 text/event-stream and the role chunk
//   Result<RunOutcome> out = agent.run_after(earlier, task, stop);
//   out.ok() && out->ok ? relay->finish(*out) : relay->fail(error);
//
// Only the final answer is content. A model reply's text is known to be the answer only when the
// reply turns out final (no tool calls, native or written in the text, and no guard asking for
// another round), which the run says in on_response_complete. So each round's deltas are held
// until then: the rounds that end in tool calls are dropped, the final one is sent as the pieces
// the model streamed (trimmed to the answer keel keeps), all at once. Content therefore arrives
// per round, not token by token; in exchange no text of an earlier round ever reaches the
// client. While tools run, ": keel tool NAME" comment lines show progress (clients skip them).
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
  // `tool_comments`: send ": keel tool NAME" lines when tools start.
  ChatStreamRelay(std::shared_ptr<server::HttpResponder> out, CompletionIds ids, bool include_usage,
                  bool tool_comments);

  // Sends 200 with `headers` plus the event-stream ones, then the role chunk.
  void start(server::HttpHeaders headers);
  // Closes a successful run: the stop chunk (with keel's extension), the usage chunk when asked
  // for, [DONE].
  void finish(const RunOutcome& outcome);
  // Closes a failed run: an error event, then [DONE].
  void fail(const OpenAiError& error);

  void on_process_prompts(RunContext&, ModelRequest&) override;
  void on_model_delta(RunContext&, std::string_view text) override;
  void on_model_retry(RunContext&, int attempt, const Status& why, int64_t delay_ms) override;
  void on_tool_call(RunContext&, const ToolCall& call) override;
  void on_response_complete(RunContext&, const std::string& answer, ResponseActions&) override;

 private:
  void send_content(std::string_view text);
  void close_stream(std::string last_events);

  std::shared_ptr<server::HttpResponder> out_;
  CompletionIds ids_;
  bool include_usage_;
  bool tool_comments_;
  std::vector<std::string> pieces_;  // the current round's deltas
};

}  // namespace keel::api
