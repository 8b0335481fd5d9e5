// The OpenAI chat-completions wire format: keel's ModelRequest to request JSON, a non-streamed
// reply body to a ModelReply, and servers' error bodies to Status values.
//
// Thread-safety: free functions without shared state; safe from any thread.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "keel/model_io.hpp"
#include "keel/result.hpp"

namespace keel::detail {

struct WireOptions {
  std::string_view model;     // empty: the "model" field is omitted
  bool stream = false;        // "stream": true
  bool stream_usage = true;   // with stream: "stream_options": {"include_usage": true}
};

// What the previous request rendered: a run sends the same conversation each round plus what
// the round added, and the same tools, so only what changed is escaped (and a schema checked)
// again; the rest is compared, which is far cheaper. Not thread-safe: one per client, used under
// its lock.
class RenderCache {
 public:
  // Appends the messages of `request` to `out` as the elements of a JSON array.
  void append_messages(std::string& out, const ModelRequest& request);
  // Appends `,"tools":[...]`; kInvalidArgument when a tool's schema is not a JSON object.
  Status append_tools(std::string& out, const ModelRequest& request);

 private:
  // Forgets every rendered message after the first `n`.
  void keep_messages(size_t n);

  std::vector<Message> sent_;  // what messages_ renders, in order
  std::vector<size_t> ends_;   // where each message's JSON ends in messages_
  std::string messages_;       // "m1,m2,..."
  std::vector<ToolSpec> tools_;  // what tools_text_ renders
  std::string tools_text_;       // ',"tools":[...]'
};

// The JSON body of POST /chat/completions. Fails with kInvalidArgument when a tool's
// parameters_schema is not a JSON object. `cache` (optional) keeps what was rendered between calls.
Result<std::string> build_chat_request(const ModelRequest& request, const WireOptions& options,
                                       RenderCache* cache = nullptr);

// Parses a non-streamed "chat.completion" body. A body that is not JSON, carries an "error"
// object, or has no choices fails with kUnavailable (the caller may retry).
Result<ModelReply> parse_chat_completion(std::string_view body);
// The same through a JSON document: the reference reading, which parse_chat_completion uses for
// the rarer shapes and matches for the rest (completion_view.hpp).
Result<ModelReply> parse_chat_completion_document(std::string_view body);

// Tool-call arguments as JSON text: strings pass through, objects (some servers send them) are
// serialised, null/absent/empty become "{}".
std::string arguments_text(const nlohmann::json& arguments);

// usage.prompt_tokens_details.cached_tokens (prompt tokens the provider served from its cache), or 0.
int64_t openai_cached_prompt_tokens(const nlohmann::json& usage);

// Message content that may be a string, null, or an array of {"type":"text","text":...} parts;
// "thinking" parts are left out (content_thinking has them).
std::string content_text(const nlohmann::json& content);

// The reasoning in a content array: Mistral's {"type":"thinking","thinking":[{"type":"text",
// "text":...}]} parts (or a plain string in "thinking"); "" for string content.
std::string content_thinking(const nlohmann::json& content);

// The message of an {"error": ...} object (error.message, or error as a string); nullopt when
// `value` is not an error object.
std::optional<std::string> embedded_error(const nlohmann::json& value);

// The numeric error.code / error.status / error.status_code (or a top-level status_code) of an
// error object when it is an HTTP status; else 0.
long embedded_error_status(const nlohmann::json& value);

// A human-readable server message from an error body: its error message, or the raw body
// truncated to about 500 characters.
std::string server_error_message(std::string_view body);

// The Status for a non-2xx HTTP reply: 400 kInvalidArgument, 401 kUnauthenticated,
// 403 kPermissionDenied, 404 kNotFound, other 4xx kInvalidArgument, everything else kUnavailable.
// The message reads "HTTP <code>: <server message>", plus a hint naming `url` where it helps.
Status http_error_status(long status, std::string_view server_message, std::string_view url);

// `text` cut to at most `max_bytes` (on a UTF-8 boundary) with "..." appended when cut.
std::string truncate_text(std::string_view text, size_t max_bytes);

}  // namespace keel::detail
