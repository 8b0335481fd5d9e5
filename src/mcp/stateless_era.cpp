// The client's side of MCP 2026-07-28; see stateless_era.hpp.
#include "mcp/stateless_era.hpp"

#include "mcp/client_connect.hpp"
#include "mcp/mcp_param_headers.hpp"

namespace keel::mcp {

using nlohmann::json;

void add_stateless_meta(json& params, const json& capabilities, const json& client_info) {
  if (!params.is_object()) params = json::object();
  json& meta = params["_meta"];
  if (!meta.is_object()) meta = json::object();
  meta["io.modelcontextprotocol/protocolVersion"] = kStatelessVersion;
  meta["io.modelcontextprotocol/clientCapabilities"] = capabilities;
  meta["io.modelcontextprotocol/clientInfo"] = client_info;
}

bool lists_version(const json& versions, std::string_view version) {
  if (!versions.is_array()) return false;
  for (const json& v : versions) {
    if (v.is_string() && v.get<std::string>() == version) return true;
  }
  return false;
}

ProbeVerdict classify_probe_failure(const Status& status, const json& rpc_error, bool stdio) {
  if (rpc_error.is_object()) {
    const json code = rpc_error.value("code", json());
    const int64_t n = code.is_number_integer() ? code.get<int64_t>() : 0;
    if (n == kRpcUnsupportedVersion) {
      // A modern server: never the handshake unless it names a handshake version itself.
      const json data = rpc_error.value("data", json::object());
      const json supported = data.is_object() ? data.value("supported", json::array()) : json::array();
      if (lists_version(supported, kStatelessVersion)) return ProbeVerdict::kRetry;
      for (const char* v : kProtocolVersions) {
        if (lists_version(supported, v)) return ProbeVerdict::kHandshake;
      }
      return ProbeVerdict::kFail;
    }
    if (n == kRpcHeaderMismatch || n == kRpcMissingClientCapability) return ProbeVerdict::kFail;
    return ProbeVerdict::kHandshake;  // any other error: legacy servers answer unknown methods variously
  }
  switch (status.code()) {
    case ErrorCode::kDeadlineExceeded:
      return stdio ? ProbeVerdict::kHandshake : ProbeVerdict::kFail;
    case ErrorCode::kUnauthenticated:
    case ErrorCode::kCancelled:
    case ErrorCode::kUnavailable:
      return ProbeVerdict::kFail;
    default:
      return ProbeVerdict::kHandshake;  // e.g. HTTP 400/404/405 without a modern JSON-RPC error
  }
}

bool is_input_required(const json& result) {
  if (!result.is_object()) return false;
  auto type = result.find("resultType");
  return type != result.end() && type->is_string() && type->get<std::string>() == "input_required";
}

Status prepare_input_retry(json& params, const json& result, const InputAnswerer& answer) {
  if (!params.is_object()) params = json::object();
  json answers = json::object();
  if (auto asked = result.find("inputRequests"); asked != result.end() && asked->is_object()) {
    for (const auto& [key, input] : asked->items()) {
      const std::string method = input.is_object() ? input.value("method", "") : "";
      const json input_params = input.is_object() ? input.value("params", json::object()) : json::object();
      Result<json> answered = answer(method, input_params);
      if (!answered.ok()) return answered.status();
      answers[key] = std::move(*answered);
    }
  }
  if (answers.empty()) {
    params.erase("inputResponses");
  } else {
    params["inputResponses"] = std::move(answers);
  }
  if (auto state = result.find("requestState"); state != result.end() && state->is_string()) {
    params["requestState"] = *state;
  } else {
    params.erase("requestState");
  }
  return Status::Ok();
}

std::vector<std::string> keep_valid_tools(json& result, std::map<std::string, json>& schemas) {
  std::vector<std::string> left_out;
  auto tools = result.find("tools");
  if (tools == result.end() || !tools->is_array()) return left_out;
  json kept = json::array();
  for (json& tool : *tools) {
    const json schema = tool.is_object() ? tool.value("inputSchema", json::object()) : json::object();
    const std::string name = tool.is_object() ? tool.value("name", "") : "";
    if (Status valid = check_param_annotations(schema); !valid.ok()) {
      left_out.push_back(name + ": " + valid.message());
      continue;
    }
    schemas[name] = schema;
    kept.push_back(std::move(tool));
  }
  *tools = std::move(kept);
  return left_out;
}

}  // namespace keel::mcp
