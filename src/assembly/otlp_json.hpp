// keel's trace spans as OTLP/JSON: the body of an ExportTraceServiceRequest that an OpenTelemetry
// collector accepts on POST /v1/traces (proto3 JSON mapping with OTLP's deviations: trace and
// span ids as lowercase hex, enums as integers, 64-bit integers as decimal strings).
//
//   {"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"keel"}}]},
//                      "scopeSpans":[{"scope":{"name":"keel"},"spans":[...]}]}]}
//
// Spans follow OpenTelemetry's GenAI semantic conventions (opentelemetry.io/docs/specs/semconv/
// gen-ai/gen-ai-spans and gen-ai-agent-spans): a run is `invoke_agent keel` (INTERNAL), a model
// call `chat MODEL` (CLIENT), a tool `execute_tool TOOL` (INTERNAL), with gen_ai.operation.name,
// gen_ai.provider.name, gen_ai.request.model / response.model, gen_ai.usage.input_tokens /
// output_tokens, gen_ai.response.finish_reasons, gen_ai.conversation.id (the session),
// gen_ai.agent.name / agent.id, gen_ai.tool.name / tool.call.id / tool.type, server.address /
// server.port and error.type. Attributes keel keeps under short names ("round", "prompt_tokens")
// are exported under their convention names or as keel.*. Message contents
// (gen_ai.output.messages, gen_ai.tool.call.arguments / result) are left out unless
// capture_content is set (OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true).
//
// keel's ids are text ("r_…", "tool-3-…"), so the 16-byte trace id and 8-byte span ids are
// derived from them by hashing: the same spans always give the same ids. The original ids stay
// in the attributes keel.trace_id, keel.span_id and keel.parent_span_id. A span whose parent is
// not among `spans` (e.g. after a crash) is exported as a root.
//
// Thread-safety: free functions without shared state.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "keel/store/records.hpp"

namespace keel::assembly {

// 32 lowercase hex digits (16 bytes, never all zero) derived from a keel trace id.
std::string otlp_trace_id(std::string_view keel_trace_id);
// 16 lowercase hex digits (8 bytes, never all zero) derived from a keel trace and span id.
std::string otlp_span_id(std::string_view keel_trace_id, std::string_view keel_span_id);

// Who sends the spans: the OTLP resource.
struct OtlpResource {
  std::string service_name = "keel";                             // OTEL_SERVICE_NAME
  std::vector<std::pair<std::string, std::string>> attributes;  // OTEL_RESOURCE_ATTRIBUTES, in order
};

struct OtlpEncoding {
  OtlpResource resource;
  bool capture_content = false;  // keep message and tool contents (off by default: they may be private)
};

// The export request for `spans` (one trace or several).
nlohmann::ordered_json spans_to_otlp(const std::vector<SpanRecord>& spans, const OtlpEncoding& encoding = {});


}  // namespace keel::assembly
