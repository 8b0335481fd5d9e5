// keel/model_io.hpp — the exact request the core hands a backend, and the reply it gets back.
//
// A ModelRequest borrows the conversation from the agent's state (no copy of the history per
// round) and appends a few transient messages, such as the runtime continuation prompt. Hooks may
// edit the transient part, the sampling settings, or replace the history wholesale.
//
// Lifetime: the spans in a ModelRequest point into the AgentMachine that produced it; they are
// valid until that machine's next step().
// Thread-safety: plain values.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "keel/message.hpp"
#include "keel/tool_spec.hpp"

namespace keel {

struct SamplingParams {
  std::optional<double> temperature;  // unset: backend default
  std::optional<int> max_tokens;      // unset: backend default
  std::optional<double> top_p;        // unset: backend default
  std::optional<int64_t> seed;        // unset: backend default
  std::optional<int> top_k;           // unset: backend default (local models; ignored by HTTP APIs without it)
  std::optional<double> min_p;        // unset: backend default (local models)
  std::optional<double> repeat_penalty;  // unset: backend default; 1 is off (local models)
  std::vector<std::string> stop;      // generation ends before any of these strings
};

struct ModelRequest {
  std::span<const Message> history;     // borrowed conversation (system prompt first)
  std::vector<Message> appended;        // transient messages sent after history, not stored
  std::span<const ToolSpec> tools;      // tools offered to the model
  bool tools_enabled = true;            // false on the final forced-answer call
  int round = 1;                        // 1-based model call number within the run
  bool final_round = false;             // the round limit was reached; answer without tools
  SamplingParams sampling;
  // A JSON Schema (text) the reply must be one JSON value of (a skill's output schema); empty: free
  // text. A local model enforces it with a grammar; other backends rely on the prompt, and keel
  // validates the reply either way.
  std::string response_schema;
  // Whether the model must call a tool: "" or "auto" (it decides), "none" (it must not),
  // "required" (it must call one), or the name of the tool it must call. Backends that cannot
  // force a choice send what they can (a named tool as "required", or nothing).
  std::string tool_choice;
  // When a hook sets this, it is sent instead of `history`.
  std::optional<std::vector<Message>> replaced_history;

  // Calls fn(const Message&) for every message in send order.
  template <class Fn>
  void for_each_message(Fn&& fn) const {
    if (replaced_history) {
      for (const Message& m : *replaced_history) fn(m);
    } else {
      for (const Message& m : history) fn(m);
    }
    for (const Message& m : appended) fn(m);
  }
};

// A backend's normalized answer: text and/or native tool calls.
struct ModelReply {
  std::string text;                 // visible content
  std::string reasoning;            // separated reasoning, if the backend reports it
  std::vector<ToolCall> tool_calls; // native tool calls (OpenAI tool_calls), in order
  std::string finish_reason;        // "stop", "tool_calls", "length", ... as reported
  Usage usage;
  std::string model;                // the model that answered, as reported
};

}  // namespace keel
