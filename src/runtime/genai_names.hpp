// OpenTelemetry's GenAI semantic conventions (opentelemetry.io/docs/specs/semconv/gen-ai/): the
// names keel gives its trace spans, and the attributes that say which backend a model span
// called. The run records spans with these (runtime/session_recorder); assembly/otlp_json exports
// them.
//
//   chat_span_name("gpt-4o")        // "chat gpt-4o"
//   backend_attributes("openai-compatible https://api.openai.com/v1 (gpt-4o)")
//   // {"gen_ai.provider.name": "openai", "gen_ai.request.model": "gpt-4o",
//   //  "server.address": "api.openai.com", "server.port": 443}
//
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "keel/model_io.hpp"

namespace keel::detail {

// "chat MODEL", "execute_tool TOOL", "invoke_agent keel".
std::string chat_span_name(std::string_view model);
std::string tool_span_name(std::string_view tool);
std::string agent_span_name();

// gen_ai.provider.name, gen_ai.request.model and server.address / server.port of a backend, read
// from its description (LlmClient::describe()). Well-known hosts get the convention's provider
// names (openai, anthropic, groq, mistral_ai, deepseek, x_ai, ...); another OpenAI-compatible
// server is "openai_compatible"; llama.cpp in process is "llama.cpp", the rules model "keel.rules".
nlohmann::json backend_attributes(std::string_view description);

// OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT is "true": spans also keep what was said
// (a reply's text and calls, a tool's arguments and result, each cut at kCapturedContentBytes).
// Off by default: contents may be private. Read once per process.
bool capture_genai_content();
inline constexpr size_t kCapturedContentBytes = 8192;

// A reply as the conventions' gen_ai.output.messages: JSON text of
// [{"role":"assistant","parts":[{"type":"text","content":...},{"type":"tool_call","id":...,
//   "name":...,"arguments":{...}}],"finish_reason":...}].
std::string output_messages_json(const ModelReply& reply);

}  // namespace keel::detail
