#include "cli/otlp_json.hpp"

#include <cstdint>
#include <cstdio>
#include <set>

namespace keel::cli {
namespace {

using json = nlohmann::ordered_json;  // keys in the order written: ids first

// FNV-1a over `text`, starting from `basis`, then a splitmix64 finalizer so that ids differing in
// one character differ in every hex digit. Not cryptographic: ids only need to be stable and
// unlikely to collide within one export.
uint64_t hash64(std::string_view text, uint64_t basis) {
  uint64_t h = basis;
  for (unsigned char c : text) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  h ^= h >> 30;
  h *= 0xbf58476d1ce4e5b9ULL;
  h ^= h >> 27;
  h *= 0x94d049bb133111ebULL;
  h ^= h >> 31;
  return h;
}

std::string hex64(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

constexpr uint64_t kBasisA = 0xcbf29ce484222325ULL;  // FNV-1a's offset basis
constexpr uint64_t kBasisB = 0x84222325cbf29ce4ULL;  // a second, independent stream

// An OTLP AnyValue for a JSON value; nullopt for null (left out).
std::optional<json> any_value(const json& v) {
  switch (v.type()) {
    case json::value_t::string:
      return json{{"stringValue", v.get<std::string>()}};
    case json::value_t::boolean:
      return json{{"boolValue", v.get<bool>()}};
    case json::value_t::number_integer:
      return json{{"intValue", std::to_string(v.get<int64_t>())}};
    case json::value_t::number_unsigned:
      return json{{"intValue", std::to_string(v.get<uint64_t>())}};
    case json::value_t::number_float:
      return json{{"doubleValue", v.get<double>()}};
    case json::value_t::array: {
      json values = json::array();
      for (const json& e : v) {
        if (auto a = any_value(e)) values.push_back(std::move(*a));
      }
      return json{{"arrayValue", {{"values", std::move(values)}}}};
    }
    case json::value_t::object: {
      json values = json::array();
      for (const auto& [k, e] : v.items()) {
        if (auto a = any_value(e)) values.push_back({{"key", k}, {"value", std::move(*a)}});
      }
      return json{{"kvlistValue", {{"values", std::move(values)}}}};
    }
    default:
      return std::nullopt;
  }
}

void add_attribute(json& attributes, std::string key, const json& value) {
  if (auto a = any_value(value)) attributes.push_back({{"key", std::move(key)}, {"value", std::move(*a)}});
}

json span_to_otlp(const SpanRecord& s, bool parent_present) {
  json attributes = json::array();
  json parsed = s.attributes.empty() ? json::object() : json::parse(s.attributes, nullptr, false);
  if (parsed.is_object()) {
    for (const auto& [k, v] : parsed.items()) add_attribute(attributes, k, v);
  } else {
    add_attribute(attributes, "keel.attributes", s.attributes);
  }
  add_attribute(attributes, "keel.trace_id", s.trace_id);
  add_attribute(attributes, "keel.span_id", s.span_id);
  if (!s.parent_span_id.empty()) add_attribute(attributes, "keel.parent_span_id", s.parent_span_id);
  add_attribute(attributes, "keel.kind", s.kind);
  if (!s.session_id.empty()) add_attribute(attributes, "keel.session_id", s.session_id);
  if (!s.run_id.empty()) add_attribute(attributes, "keel.run_id", s.run_id);
  add_attribute(attributes, "keel.status", s.status);

  json span = {{"traceId", otlp_trace_id(s.trace_id)}, {"spanId", otlp_span_id(s.trace_id, s.span_id)}};
  if (!s.parent_span_id.empty() && parent_present) span["parentSpanId"] = otlp_span_id(s.trace_id, s.parent_span_id);
  span["name"] = s.name;
  span["kind"] = s.kind == "model" ? 3 : 1;  // SPAN_KIND_CLIENT for calls to a model, else INTERNAL
  // Fixed-width nanoseconds as decimal strings (proto3 JSON's form of a fixed64).
  const int64_t start_ns = s.start_us * 1000;
  const int64_t end_ns = (s.start_us + (s.duration_us > 0 ? s.duration_us : 0)) * 1000;
  span["startTimeUnixNano"] = std::to_string(start_ns);
  span["endTimeUnixNano"] = std::to_string(end_ns);
  span["attributes"] = std::move(attributes);
  // STATUS_CODE_OK = 1, STATUS_CODE_ERROR = 2; a span still running (or without a status) is UNSET.
  if (s.status == "ok") {
    span["status"] = {{"code", 1}};
  } else if (s.status.empty() || s.status == "running") {
    span["status"] = json::object();
  } else {
    std::string message = s.status;
    if (parsed.is_object() && parsed.contains("error") && parsed["error"].is_string()) {
      message += ": " + parsed["error"].get<std::string>();
    }
    span["status"] = {{"code", 2}, {"message", message}};
  }
  return span;
}

}  // namespace

std::string otlp_trace_id(std::string_view keel_trace_id) {
  const uint64_t a = hash64(keel_trace_id, kBasisA);
  uint64_t b = hash64(keel_trace_id, kBasisB);
  if (a == 0 && b == 0) b = 1;  // an all-zero id is invalid in OTLP
  return hex64(a) + hex64(b);
}

std::string otlp_span_id(std::string_view keel_trace_id, std::string_view keel_span_id) {
  std::string key(keel_trace_id);
  key.push_back('\0');
  key.append(keel_span_id);
  const uint64_t h = hash64(key, kBasisA);
  return hex64(h == 0 ? 1 : h);
}

json spans_to_otlp(const std::vector<SpanRecord>& spans) {
  std::set<std::pair<std::string, std::string>> present;
  for (const SpanRecord& s : spans) present.emplace(s.trace_id, s.span_id);
  json out = json::array();
  for (const SpanRecord& s : spans) {
    const bool parent_present = present.count({s.trace_id, s.parent_span_id}) > 0;
    out.push_back(span_to_otlp(s, parent_present));
  }
  json resource = {
      {"attributes", json::array({{{"key", "service.name"}, {"value", {{"stringValue", "keel"}}}},
                                  {{"key", "service.version"}, {"value", {{"stringValue", KEEL_VERSION}}}}})}};
  json scope = {{"name", "keel"}, {"version", KEEL_VERSION}};
  json scope_spans = json::array({{{"scope", std::move(scope)}, {"spans", std::move(out)}}});
  return {
      {"resourceSpans", json::array({{{"resource", std::move(resource)}, {"scopeSpans", std::move(scope_spans)}}})}};
}

}  // namespace keel::cli
