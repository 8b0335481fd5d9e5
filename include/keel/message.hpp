// keel/message.hpp — the conversation vocabulary shared by the core, backends, tools and hosts.
//
// A conversation is a vector<Message>. Assistant messages may carry tool calls; each tool call is
// answered by one tool message carrying its result. Arguments travel as JSON text (an object), as
// in the OpenAI wire format, so these types need no JSON library.
//
// Thread-safety: plain values.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace keel {

enum class Role { kSystem, kUser, kAssistant, kTool };

// "system", "user", "assistant", "tool".
std::string_view role_name(Role role);

// One call the model asked for.
struct ToolCall {
  std::string id;         // provider's call id; keel makes one ("call_<round>_<n>") when absent
  std::string name;       // tool name as the model wrote it
  std::string arguments;  // JSON object text, e.g. {"path":"README.md"}
};

// How a tool call ended. Everything but kOk is still data the model sees.
enum class ToolStatus {
  kOk,         // the tool ran and succeeded
  kError,      // the tool ran and failed, or its arguments were invalid
  kTimeout,    // the tool exceeded its timeout and was cancelled or abandoned
  kDenied,     // approval was refused (by a person, a rule or a missing TTY)
  kBlocked,    // a guardrail stopped the call before it ran (duplicate, disabled signature)
  kCancelled,  // the run was aborted while the call was in flight
};

// "ok", "error", "timeout", "denied", "blocked", "cancelled".
std::string_view tool_status_name(ToolStatus status);

// The outcome of one ToolCall.
// Tokens a model call (or several) reported.
struct Usage {
  int64_t prompt_tokens = 0;
  int64_t completion_tokens = 0;
  // Prompt tokens the backend did not evaluate again because it had them cached (a local model's
  // KV prefix reuse); prompt_tokens - cached_prompt_tokens were evaluated.
  int64_t cached_prompt_tokens = 0;

  Usage& operator+=(const Usage& o) {
    prompt_tokens += o.prompt_tokens;
    completion_tokens += o.completion_tokens;
    cached_prompt_tokens += o.cached_prompt_tokens;
    return *this;
  }
};

struct ToolResult {
  std::string call_id;      // ToolCall::id this answers
  std::string name;         // tool name
  ToolStatus status = ToolStatus::kOk;
  std::string content;      // output (ok) or an error message the model can act on
  bool truncated = false;   // content was cut to the per-result budget
  int64_t duration_ms = 0;  // wall time spent running it; 0 when it never ran
  bool cached = false;      // content came from the result cache (an earlier identical call); the tool did not run
  Usage model_usage = {};   // model calls the tool made itself (a sub-agent's run): counted in the caller's budget

  bool ok() const { return status == ToolStatus::kOk; }
};

struct Message {
  Role role = Role::kUser;
  std::string content;
  std::vector<ToolCall> tool_calls;  // assistant only
  std::string tool_call_id;          // tool only: the call answered
  std::string name;                  // tool only: the tool's name
  std::string reasoning;             // assistant only: separated thinking, never parsed as calls
  std::map<std::string, std::string> metadata;  // free-form annotations (round, status, ...)

  static Message system(std::string text) { return {Role::kSystem, std::move(text), {}, {}, {}, {}, {}}; }
  static Message user(std::string text) { return {Role::kUser, std::move(text), {}, {}, {}, {}, {}}; }
  static Message assistant(std::string text, std::vector<ToolCall> calls = {}) {
    return {Role::kAssistant, std::move(text), std::move(calls), {}, {}, {}, {}};
  }
  // A tool message; metadata "status" is the result's status name, and "cached" is "true" for a
  // cache hit.
  static Message tool(const ToolResult& r) {
    Message m{Role::kTool, r.content, {}, r.call_id, r.name, {}, {{"status", std::string(tool_status_name(r.status))}}};
    if (r.cached) m.metadata["cached"] = "true";
    return m;
  }
};

}  // namespace keel
