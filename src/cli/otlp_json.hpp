// keel's trace spans as OTLP/JSON: the body of an ExportTraceServiceRequest that an OpenTelemetry
// collector accepts on POST /v1/traces (proto3 JSON mapping with OTLP's deviations: trace and
// span ids as lowercase hex, enums as integers, 64-bit integers as decimal strings).
//
//   {"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"keel"}}]},
//                      "scopeSpans":[{"scope":{"name":"keel"},"spans":[...]}]}]}
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
#include <vector>

#include "keel/store/records.hpp"

namespace keel::cli {

// 32 lowercase hex digits (16 bytes, never all zero) derived from a keel trace id.
std::string otlp_trace_id(std::string_view keel_trace_id);
// 16 lowercase hex digits (8 bytes, never all zero) derived from a keel trace and span id.
std::string otlp_span_id(std::string_view keel_trace_id, std::string_view keel_span_id);

// The export request for `spans` (one trace or several).
nlohmann::ordered_json spans_to_otlp(const std::vector<SpanRecord>& spans);

}  // namespace keel::cli
