// mcp/stateless_era.hpp — what keel's MCP client does differently with a server of the stateless
// revision (2026-07-28): the per-request `_meta`, how a failed server/discover probe tells a
// handshake-era server from a modern one that refused, multi round-trip requests
// (`resultType: "input_required"`), and the tools a client must leave out.
// Specification: https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning
//
//   json params = {{"name", "search"}};
//   mcp::add_stateless_meta(params, capabilities, client_info);
//   ... result = request("tools/call", params) ...
//   if (mcp::is_input_required(result)) KEEL_TRY(mcp::prepare_input_retry(params, result, answer));
//
// Thread-safety: pure functions.
#pragma once

#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "keel/result.hpp"

namespace keel::mcp {

// The stateless revision keel speaks, and the JSON-RPC error codes it defines.
inline constexpr const char* kStatelessVersion = "2026-07-28";
inline constexpr int64_t kRpcHeaderMismatch = -32020;
inline constexpr int64_t kRpcMissingClientCapability = -32021;
inline constexpr int64_t kRpcUnsupportedVersion = -32022;
// How many input_required answers one request may get before keel gives up on it.
inline constexpr int kMaxInputRounds = 8;

// Sets `_meta`'s protocol version, client capabilities and client info in `params` (made an object
// when it is not one), keeping whatever else the caller put in `_meta`.
void add_stateless_meta(nlohmann::json& params, const nlohmann::json& capabilities, const nlohmann::json& client_info);

// What a failed server/discover probe says about the server.
enum class ProbeVerdict {
  kHandshake,  // a handshake-era server (or a modern one that also speaks a handshake version keel does)
  kRetry,      // a modern server that supports 2026-07-28 after all: send the probe again
  kFail,       // give up: unreachable, silent over HTTP, refused credentials, or a modern refusal
};

// Classifies the probe's failure `status`; `rpc_error` is the server's JSON-RPC error object when
// it answered with one (null otherwise). `stdio`: a silent server is a handshake one (the stdio
// transport's rule); over HTTP silence is a failure.
ProbeVerdict classify_probe_failure(const Status& status, const nlohmann::json& rpc_error, bool stdio);

// Whether `versions` (a JSON array) lists `version`.
bool lists_version(const nlohmann::json& versions, std::string_view version);

// True when `result` asks for more input; a result without `resultType` is complete.
bool is_input_required(const nlohmann::json& result);

// Answers one input request (its method, e.g. "elicitation/create", and params) with the result
// object the method defines, or an error when keel cannot.
using InputAnswerer = std::function<Result<nlohmann::json>(const std::string& method, const nlohmann::json& params)>;

// Turns `params` of a request that got the input_required `result` into the retry's: every input
// request answered through `answer` under its key in `inputResponses`, and `requestState` echoed
// exactly (or removed when the result has none). The first error of `answer` is returned.
Status prepare_input_retry(nlohmann::json& params, const nlohmann::json& result, const InputAnswerer& answer);

// Removes from a tools/list `result` each tool whose x-mcp-header annotations are invalid (the
// revision requires clients to leave them out) and records the input schema of each kept tool in
// `schemas` (for its Mcp-Param-* headers). Returns "tool: why" for each tool left out.
std::vector<std::string> keep_valid_tools(nlohmann::json& result, std::map<std::string, nlohmann::json>& schemas);

}  // namespace keel::mcp
