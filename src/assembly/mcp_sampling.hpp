// assembly/mcp_sampling.hpp — an MCP server's request for a model message (sampling/createMessage:
// a request of its own in the handshake revisions, an input request of a call in 2026-07-28)
// served by keel's own backend, under the operator's approval policy.
//
// Each request is checked as a call of the pseudo-tool `mcp_sampling` (risk high) whose canonical
// arguments are {"max_tokens","messages","server","system"}: keel.yaml `approvals.tools.mcp_sampling`
// (its mode, its allow and deny patterns, e.g. allow_patterns: ['"server":"docs"']), the default
// mode, --approve-mode and the workspace's remembered decisions decide as for any tool. A request
// that needs confirmation is put to the person through the run's UserAsker (the ask_user channel:
// the terminal for keel run, the web UI for keel serve), showing the server, the system prompt and
// the last message; with nobody to ask, or no answer within the timeout, it is refused. A refusal
// is PermissionDenied (the server gets JSON-RPC error -1).
//
// Text only, as keel declares it: image or audio content, `tools` (keel declares no
// sampling.tools) or a role other than user/assistant is InvalidArgument. `includeContext` is
// ignored (the specification lets the client). The reply is capped at the request's maxTokens (and
// at most kMaxSamplingTokens). The backend is made at the first allowed request and kept; requests
// are served one at a time.
//
// Thread-safety: the returned function may be called from any thread.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "keel/ask_user.hpp"
#include "keel/config.hpp"
#include "keel/llm_client.hpp"
#include "keel/result.hpp"
#include "keel/store/store.hpp"

namespace keel::assembly {

inline constexpr int kMaxSamplingTokens = 8192;

using SamplingHook = std::function<Result<nlohmann::json>(std::string_view server, const nlohmann::json& params)>;

struct SamplingSetup {
  ApprovalPolicy approvals;  // the operator's policy (keel.yaml approvals, --approve-mode)
  Store* store = nullptr;    // remembered decisions; may be null
  std::string workspace;
  std::shared_ptr<UserAsker> asker;  // who confirms; null: requests that need confirmation are refused
  std::function<Result<std::unique_ptr<LlmClient>>()> make_model;  // keel's backend, made on first use
  std::chrono::milliseconds question_timeout = std::chrono::minutes(10);
};

SamplingHook sampling_through_backend(SamplingSetup setup);

}  // namespace keel::assembly
