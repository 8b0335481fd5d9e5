// Assembles a streamed Anthropic message (message_start, content_block_start/delta/stop,
// message_delta, message_stop, ping, error events) into one ModelReply, forwarding text and
// thinking deltas to the caller's callbacks as they arrive.
//
// Content blocks are keyed by `index`: a text block grows by text_delta, a thinking block by
// thinking_delta, a tool_use block by input_json_delta pieces that are concatenated into the call's
// arguments. Blocks message_start already carries (a resumed turn) count as if streamed first.
// Only message_stop completes the reply: a stream without it is never an answer.
//
// Thread-safety: not thread-safe; one assembler per streamed attempt.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>

#include "keel/llm_client.hpp"
#include "keel/model_io.hpp"
#include "keel/result.hpp"

namespace keel::detail {

class AnthropicStreamAssembler {
 public:
  // `options` (its callbacks) must outlive the assembler.
  explicit AnthropicStreamAssembler(const CallOptions& options) : options_(options) {}

  // Handles one SSE event: `event` is its "event:" name (may be empty; the payload's "type" is
  // used first), `data` its JSON payload. An `error` event yields kUnavailable with its message;
  // invalid JSON, or a throwing callback (kInternal), yield a non-ok Status too. After a failure
  // the stream should be abandoned.
  Status on_event(std::string_view event, std::string_view data);

  bool stopped() const { return stopped_; }      // message_stop was seen: the reply is complete
  bool delivered() const { return delivered_; }  // a callback has received text or reasoning
  // Whether the last failure was an `error` event from the server (not a local fault).
  bool server_error() const { return server_error_; }

  // The assembled reply: tool calls in block order, empty arguments normalised to "{}".
  ModelReply take_reply();

 private:
  Status on_payload(const std::string& type, const nlohmann::json& payload);
  Status on_delta(const nlohmann::json& payload);
  // The content blocks and stop_reason a message_start may already carry.
  Status on_started_content(const nlohmann::json& message);
  Status deliver_text(std::string_view text);
  Status deliver_thinking(std::string_view text);
  Status deliver(const std::function<void(std::string_view)>& fn, std::string_view text, const char* what);

  struct ToolBlock {
    ToolCall call;
    std::string start_input;  // the input object of content_block_start, used when no delta came
    bool got_delta = false;
  };

  const CallOptions& options_;
  ModelReply reply_;
  std::map<int64_t, ToolBlock> tools_;  // tool_use blocks by content block index
  bool stopped_ = false;
  bool delivered_ = false;
  bool server_error_ = false;
};

}  // namespace keel::detail
