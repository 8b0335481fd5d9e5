// keel/core/token_counter.hpp — how many tokens a conversation and its tool definitions take.
//
// The context pipeline (keel/core/context_manager.hpp) decides by token counts. They come from a
// TokenCounter, an interface so that an exact tokenizer can replace the default estimate:
//
//   keel::EstimatingTokenCounter est;                  // ~4 characters per token, 1 per CJK character
//   size_t n = est.count("你好世界");                  // 4
//   keel::TokenBreakdown b = keel::count_breakdown(est, history, tools);
//   size_t total = b.total();
//
// Thread-safety: TokenCounter implementations must be safe to call concurrently through a const
// reference (EstimatingTokenCounter is: it holds only its options). TokenBreakdown is a plain value.
#pragma once

#include <cstddef>
#include <span>
#include <string_view>

#include "keel/message.hpp"
#include "keel/tool_spec.hpp"

namespace keel {

// Counts tokens of text as a model would see them.
class TokenCounter {
 public:
  virtual ~TokenCounter() = default;
  // Tokens of `text` (UTF-8). Empty text is 0.
  virtual size_t count(std::string_view text) const = 0;
  // Tokens a chat template adds around each message (role markers, separators).
  virtual size_t per_message_overhead() const = 0;

  // One message: content + reasoning + each tool call's name and arguments + overhead.
  size_t count_message(const Message& message) const;
  // One tool definition: name + description + parameters_schema + overhead.
  size_t count_tool(const ToolSpec& tool) const;
};

struct EstimatorOptions {
  // Code points per token for Latin and other non-CJK text. <= 0: the default.
  double chars_per_token = 4.0;
  // Code points per token for CJK text (Han, Hiragana, Katakana, Hangul, CJK punctuation and
  // fullwidth forms). <= 0: the default.
  double cjk_chars_per_token = 1.0;
  // Tokens added per message (and per tool definition).
  size_t per_message_overhead = 4;
};

// The default counter: counts code points (not bytes) in two classes and rounds up:
// ceil(other / chars_per_token + cjk / cjk_chars_per_token). Bytes that are not valid UTF-8
// count as one character each. Linear in the text, several GB/s on ASCII.
class EstimatingTokenCounter final : public TokenCounter {
 public:
  explicit EstimatingTokenCounter(EstimatorOptions options = {});
  size_t count(std::string_view text) const override;
  size_t per_message_overhead() const override { return options_.per_message_overhead; }
  const EstimatorOptions& options() const { return options_; }

 private:
  EstimatorOptions options_;
};

// Tokens of one model request by category (reported in events and `keel run --json`).
struct TokenBreakdown {
  size_t system = 0;        // system messages (the system prompt)
  size_t tools = 0;         // tool definitions offered to the model (name, description, schema)
  size_t user = 0;          // user messages: the task, summaries, follow-ups
  size_t assistant = 0;     // assistant messages: text, reasoning, tool calls
  size_t tool_results = 0;  // tool messages
  size_t total() const { return system + tools + user + assistant + tool_results; }
};

// Counts every message and tool definition afresh (no caching; ContextManager::measure caches).
TokenBreakdown count_breakdown(const TokenCounter& counter, std::span<const Message> history,
                               std::span<const ToolSpec> tools);

}  // namespace keel
