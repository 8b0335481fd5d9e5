// Assembles a streamed chat completion ("chat.completion.chunk" events) into one ModelReply,
// forwarding text and reasoning deltas to the caller's callbacks as they arrive.
//
// Tool calls arrive as deltas keyed by `index`: the first carries id and name, later ones carry
// pieces of the arguments text to be concatenated. Usage arrives in a final chunk with no choices
// (Groq: in that chunk's x_groq object).
//
// Most chunks (text, reasoning, tool-call deltas, integer usage counts) are read in place from the
// validated text; the rarer shapes (errors, Groq's usage, content parts, whole-object arguments,
// fractional counts or indexes) through a JSON document, the reference reading that both ways match.
//
// Thread-safety: not thread-safe; one assembler per streamed attempt.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <string_view>

#include "core/parsing/json/json_view.hpp"
#include "keel/llm_client.hpp"
#include "keel/model_io.hpp"
#include "keel/result.hpp"

namespace keel::detail {

// Calls a caller's text callback (if set), turning an exception it throws into kInternal.
Status invoke_text_callback(const std::function<void(std::string_view)>& fn, std::string_view text,
                            const char* what);

class StreamAssembler {
 public:
  // `options` (its callbacks) must outlive the assembler. `documents_only` reads every chunk
  // through a document (the reference reading, for comparing the two).
  explicit StreamAssembler(const CallOptions& options, bool documents_only = false)
      : options_(options), documents_only_(documents_only) {}

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
  // The same for a chunk that plain_chunk() accepted, read without a document.
  Status on_plain_chunk(const JsonView& chunk);
  Status on_plain_delta(const JsonView& delta);
  void on_plain_tool_delta(const JsonView& delta);
  // The index a tool delta without a usable "index" continues or opens.
  int64_t implied_index(const std::string& id) const;
  Status deliver(const std::function<void(std::string_view)>& fn, std::string_view text, const char* what) {
    if (fn) delivered_ = true;
    return invoke_text_callback(fn, text, what);
  }

  const CallOptions& options_;
  bool documents_only_ = false;
  JsonIndex index_;  // where the current chunk's values lie
  ModelReply reply_;
  std::map<int64_t, ToolCall> calls_;  // by delta index
  int64_t last_index_ = -1;            // the call the previous tool delta touched
  bool done_ = false;
  bool delivered_ = false;
  long error_http_status_ = 0;
};

}  // namespace keel::detail
