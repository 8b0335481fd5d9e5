// Assembles a streamed chat completion ("chat.completion.chunk" events) into one ModelReply,
// forwarding text and reasoning deltas to the caller's callbacks as they arrive.
//
// Tool calls arrive as deltas keyed by `index`: the first carries id and name, later ones carry
// pieces of the arguments text to be concatenated. Usage arrives in a final chunk with no choices
// (Groq: in that chunk's x_groq object).
//
// Thread-safety: not thread-safe; one assembler per streamed attempt.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <string_view>

#include "keel/llm_client.hpp"
#include "keel/model_io.hpp"
#include "keel/result.hpp"

namespace keel::detail {

// Calls a caller's text callback (if set), turning an exception it throws into kInternal.
Status invoke_text_callback(const std::function<void(std::string_view)>& fn, std::string_view text,
                            const char* what);

class StreamAssembler {
 public:
  // `options` (its callbacks) must outlive the assembler.
  explicit StreamAssembler(const CallOptions& options) : options_(options) {}

  // Handles one SSE data payload: "[DONE]" or a chunk object. An error object, invalid JSON or a
  // throwing callback yields a non-ok Status; the stream should then be abandoned.
  Status on_data(std::string_view data);

  bool done() const { return done_; }                                 // "[DONE]" was seen
  bool finished() const { return !reply_.finish_reason.empty(); }     // a finish_reason was seen
  bool delivered() const { return delivered_; }  // a callback has received text or reasoning
  // The HTTP status an error event named (error.code), or 0; valid after on_data failed.
  long error_http_status() const { return error_http_status_; }

  // The assembled reply: tool calls in index order, empty arguments normalised to "{}".
  ModelReply take_reply();

 private:
  Status on_chunk(const nlohmann::json& chunk);
  Status on_delta(const nlohmann::json& delta);
  void on_tool_delta(const nlohmann::json& delta);
  Status deliver(const std::function<void(std::string_view)>& fn, std::string_view text, const char* what) {
    if (fn) delivered_ = true;
    return invoke_text_callback(fn, text, what);
  }

  const CallOptions& options_;
  ModelReply reply_;
  std::map<int64_t, ToolCall> calls_;  // by delta index
  int64_t last_index_ = -1;            // the call the previous tool delta touched
  bool done_ = false;
  bool delivered_ = false;
  long error_http_status_ = 0;
};

}  // namespace keel::detail
