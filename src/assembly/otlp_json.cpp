#include "assembly/otlp_json.hpp"

#include <cstdint>
#include <cstdio>
#include <set>

namespace keel::assembly {
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

// Message and tool contents: exported only when capture is on.
bool is_content_attribute(std::string_view key) {
  return key == "gen_ai.input.messages" || key == "gen_ai.output.messages" || key == "gen_ai.system_instructions" ||
         key == "gen_ai.tool.call.arguments" || key == "gen_ai.tool.call.result";
}

// A stored attribute under the name the conventions give it: keel's short names for what the
// conventions define are renamed, other short names go under keel.*, dotted names stay.
void add_stored_attribute(json& attributes, const std::string& key, const json& value, const OtlpEncoding& encoding) {
  if (key.find('.') != std::string::npos) {
    if (!is_content_attribute(key) || encoding.capture_content) add_attribute(attributes, key, value);
  } else if (key == "prompt_tokens") {
    add_attribute(attributes, "gen_ai.usage.input_tokens", value);
  } else if (key == "completion_tokens") {
    add_attribute(attributes, "gen_ai.usage.output_tokens", value);
  } else if (key == "cached_prompt_tokens") {
    add_attribute(attributes, "gen_ai.usage.cache_read.input_tokens", value);
  } else if (key == "finish_reason") {
    if (value.is_string() && !value.get<std::string>().empty()) {
      add_attribute(attributes, "gen_ai.response.finish_reasons", json::array({value}));
    }
  } else if (key == "call_id") {
    add_attribute(attributes, "gen_ai.tool.call.id", value);
  } else {
    add_attribute(attributes, "keel." + key, value);
  }
}

// What the conventions ask of each kind of span, from what the record holds.
void add_convention_attributes(json& attributes, const SpanRecord& s, const json& stored) {
  auto missing = [&](const char* key) { return !stored.is_object() || !stored.contains(key); };
  const std::string_view name = s.name;
  if (s.kind == "run") {
    add_attribute(attributes, "gen_ai.operation.name", "invoke_agent");
    if (missing("gen_ai.agent.name")) add_attribute(attributes, "gen_ai.agent.name", "keel");
    if (!s.run_id.empty()) add_attribute(attributes, "gen_ai.agent.id", s.run_id);
  } else if (s.kind == "model") {
    add_attribute(attributes, "gen_ai.operation.name", "chat");
  } else if (s.kind == "tool") {
    add_attribute(attributes, "gen_ai.operation.name", "execute_tool");
    std::string_view tool = name.starts_with("execute_tool ") ? name.substr(13) : name;
    if (missing("gen_ai.tool.name")) add_attribute(attributes, "gen_ai.tool.name", std::string(tool));
    if (missing("gen_ai.tool.type")) add_attribute(attributes, "gen_ai.tool.type", "function");
  }
  if (!s.session_id.empty() && s.kind != "context") add_attribute(attributes, "gen_ai.conversation.id", s.session_id);
  // error.type: the failure's class, for any span that did not end ok.
  if (!s.status.empty() && s.status != "ok" && s.status != "running" && s.status != "suspended") {
    add_attribute(attributes, "error.type", s.status);
  }
}

json span_to_otlp(const SpanRecord& s, bool parent_present, const OtlpEncoding& encoding) {
  json attributes = json::array();
  json parsed = s.attributes.empty() ? json::object() : json::parse(s.attributes, nullptr, false);
  add_convention_attributes(attributes, s, parsed);
  if (parsed.is_object()) {
    for (const auto& [k, v] : parsed.items()) add_stored_attribute(attributes, k, v, encoding);
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
  } else if (s.status.empty() || s.status == "running" || s.status == "suspended") {
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

json spans_to_otlp(const std::vector<SpanRecord>& spans, const OtlpEncoding& encoding) {
  std::set<std::pair<std::string, std::string>> present;
  for (const SpanRecord& s : spans) present.emplace(s.trace_id, s.span_id);
  json out = json::array();
  for (const SpanRecord& s : spans) {
    const bool parent_present = present.count({s.trace_id, s.parent_span_id}) > 0;
    out.push_back(span_to_otlp(s, parent_present, encoding));
  }
  json resource_attributes = json::array();
  add_attribute(resource_attributes, "service.name", encoding.resource.service_name);
  add_attribute(resource_attributes, "service.version", KEEL_VERSION);
  add_attribute(resource_attributes, "telemetry.sdk.name", "keel");
  add_attribute(resource_attributes, "telemetry.sdk.language", "cpp");
  for (const auto& [key, value] : encoding.resource.attributes) {
    if (key != "service.name") add_attribute(resource_attributes, key, value);
  }
  json resource = {{"attributes", std::move(resource_attributes)}};
  json scope = {{"name", "keel"}, {"version", KEEL_VERSION}};
  json scope_spans = json::array({{{"scope", std::move(scope)}, {"spans", std::move(out)}}});
  return {
      {"resourceSpans", json::array({{{"resource", std::move(resource)}, {"scopeSpans", std::move(scope_spans)}}})}};
}

}  // namespace keel::assembly
