// keel/core/chat_template.hpp — prompt text for local models (an in-process backend that feeds
// tokens itself, with no server to apply the model's chat template).
//
// A model's GGUF carries a Jinja chat template; keel does not run Jinja. It recognises the
// template's family (detect_chat_family) and writes that family's prompt format in C++:
//
//   auto family = keel::detect_chat_family(gguf_template).value_or(keel::ChatFamily::kChatML);
//   keel::ChatRenderOptions opts;
//   opts.tools = tools;
//   std::string prompt = keel::render_chat(family, messages, opts);
//   // generate, stopping at any of keel::stop_strings(family)
//
// The rendering is prefix-stable: render_chat(m[0..k], add_generation_prompt = false) is a byte
// prefix of render_chat(m[0..k+1], ...), so a backend can keep the KV cache of the earlier rounds.
// Tool calls are written in the family's CallSyntax, the same text the tool-call grammar
// (keel/core/gbnf_grammar.hpp) makes the model write, and which make_default_tool_call_parser()
// reads back.
//
// Thread-safety: pure functions; safe to call concurrently.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "keel/message.hpp"
#include "keel/tool_spec.hpp"

namespace keel {

// The prompt formats keel writes.
enum class ChatFamily {
  kChatML,   // <|im_start|>role ... <|im_end|> (Qwen 2.5 / Hermes and most fine-tunes)
  kLlama3,   // <|start_header_id|>role<|end_header_id|> ... <|eot_id|> (Llama 3.1 - 3.3)
  kMistral,  // [INST] ... [/INST] with [TOOL_CALLS] / [TOOL_RESULTS] (Mistral v3 / v7 tekken)
  kGemma,    // <start_of_turn>user|model ... <end_of_turn> (Gemma 2 / 3)
};

// "chatml", "llama3", "mistral", "gemma".
std::string_view chat_family_name(ChatFamily f);
// The inverse of chat_family_name; nullopt for an unknown name.
std::optional<ChatFamily> chat_family_from_name(std::string_view n);

// The family a Jinja chat template (GGUF tokenizer.chat_template) belongs to, recognised by its
// markers (<|start_header_id|>, <start_of_turn>, <|im_start|>, [INST], checked in that order);
// nullopt when none is recognised.
std::optional<ChatFamily> detect_chat_family(std::string_view template_text);

// How a family writes tool calls as text: what the model must emit, and what a lazy grammar
// triggers on. Each call is the JSON object {"name": NAME, "<arguments_key>": ARGUMENTS}.
struct CallSyntax {
  std::string open;           // text before a call (or before the list): "<tool_call>", "[TOOL_CALLS]", ...
  std::string close;          // text after a call (or after the list); may be empty
  std::string arguments_key;  // "arguments", or "parameters" (Llama 3)
  bool list = false;          // the calls are one JSON array after `open` (Mistral); otherwise each call
                              // is its own open ... close block, blocks separated by a newline
  // Name-first calls (DeepSeek, Kimi K2, functionary v3.2, gpt-oss, ...): each call is
  // open NAME name_close ARGUMENTS close, ARGUMENTS one JSON object; arguments_key and list unused.
  bool name_first = false;
  std::string name_close;
  // Text around all the calls of one reply (DeepSeek's calls-begin and calls-end); may be empty.
  std::string calls_open;
  std::string calls_close;

  // The text a reply's calls start with: calls_open, else open.
  const std::string& trigger() const { return calls_open.empty() ? open : calls_open; }
};

// ChatML and Gemma: <tool_call>\n{...}\n</tool_call> (Hermes / Qwen; keel's parser reads it for
// any model). Llama 3: <|python_tag|>{"name": ..., "parameters": {...}}. Mistral:
// [TOOL_CALLS][{...}, ...].
CallSyntax call_syntax(ChatFamily f);

// The calls written in `syntax`, exactly as render_chat writes them in an assistant turn. An
// argument text that is empty becomes {}; other text is written as given (trimmed).
std::string render_tool_calls(const CallSyntax& syntax, std::span<const ToolCall> calls);

// The calls in `text` written in `syntax` (the inverse of render_tool_calls, for any syntax,
// including one derived from a model's template). `before` receives the text ahead of the first
// call. nullopt when the text holds no call, or a call that is not complete and well-formed (its
// name missing, its arguments not one JSON object, a closing text missing).
std::optional<std::vector<ToolCall>> read_tool_calls(const CallSyntax& syntax, std::string_view text,
                                                     std::string* before = nullptr);

// The tool section keel writes into a system text: the tools' signatures and how to call them in
// `syntax` (a JSON-object syntax). Used for families, and for a model's template that ignores tools.
std::string tool_instructions(const CallSyntax& syntax, std::span<const ToolSpec> tools);

// End-of-turn strings generation stops at ("<|im_end|>", "<|eot_id|>", "</s>", "<end_of_turn>", ...).
std::vector<std::string> stop_strings(ChatFamily f);

// Per-call rendering options.
struct ChatRenderOptions {
  // Described in the first system text (ChatML, Llama 3, Gemma) or [AVAILABLE_TOOLS] (Mistral)
  // with their JSON schemas and the family's call syntax; empty: no tool section. Borrowed for
  // the call.
  std::span<const ToolSpec> tools;
  bool add_generation_prompt = true;  // end with the assistant turn's opening
  bool add_bos = false;               // start with the BOS text ("<|begin_of_text|>", "<s>", "<bos>";
                                      // ChatML has none)
};

// The prompt text for `messages`, in send order. System messages of Mistral and Gemma (which have
// no system role) are folded into the next user turn; tool results are written one per message,
// each naming its tool. Assistant reasoning is not written.
std::string render_chat(ChatFamily f, std::span<const Message> messages, const ChatRenderOptions& options);

}  // namespace keel
