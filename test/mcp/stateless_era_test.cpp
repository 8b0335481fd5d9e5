// The pure parts of keel's MCP 2026-07-28 client: mirrored header values (the Base64 sentinel),
// x-mcp-header validation, how a failed probe is classified, the retry of an input_required
// request, and the RFC 9207 issuer check of an authorization response.
#include "mcp/stateless_era.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "mcp/mcp_param_headers.hpp"
#include "mcp/oauth_metadata.hpp"

namespace keel::mcp {
namespace {

using nlohmann::json;

TEST(McpParamHeaders, PlainAsciiIsSentAsIsAndAnythingElseInTheBase64Sentinel) {
  EXPECT_EQ(mirrored_header_value("us-west1"), "us-west1");
  EXPECT_EQ(mirrored_header_value("two words"), "two words");
  EXPECT_EQ(mirrored_header_value("café"), "=?base64?Y2Fmw6k=?=");
  EXPECT_EQ(mirrored_header_value(" lead"), "=?base64?IGxlYWQ=?=");
  EXPECT_EQ(mirrored_header_value("a\r\nb"), "=?base64?YQ0KYg==?=");
  EXPECT_EQ(mirrored_header_value("=?base64?x?="), "=?base64?PT9iYXNlNjQ/eD89?=");  // looks encoded: encoded
}

TEST(McpParamHeaders, InvalidAnnotationsAreRefused) {
  auto schema = [](json property) { return json{{"type", "object"}, {"properties", {{"p", property}}}}; };
  EXPECT_TRUE(check_param_annotations(schema({{"type", "string"}, {"x-mcp-header", "Region"}})).ok());
  EXPECT_FALSE(check_param_annotations(schema({{"type", "string"}, {"x-mcp-header", ""}})).ok());
  EXPECT_FALSE(check_param_annotations(schema({{"type", "number"}, {"x-mcp-header", "Score"}})).ok());
  EXPECT_FALSE(check_param_annotations(schema({{"type", "object"}, {"x-mcp-header", "Data"}})).ok());
  EXPECT_FALSE(check_param_annotations(schema({{"type", "string"}, {"x-mcp-header", "My Region"}})).ok());
  EXPECT_FALSE(check_param_annotations(schema({{"type", "string"}, {"x-mcp-header", "Région"}})).ok());
  json twice = {{"type", "object"},
                {"properties",
                 {{"a", {{"type", "string"}, {"x-mcp-header", "MyField"}}},
                  {"b", {{"type", "string"}, {"x-mcp-header", "myfield"}}}}}};
  EXPECT_FALSE(check_param_annotations(twice).ok());
}

TEST(McpParamHeaders, NullAndMissingArgumentsAreNotMirrored) {
  json schema = {{"type", "object"},
                 {"properties",
                  {{"region", {{"type", "string"}, {"x-mcp-header", "Region"}}},
                   {"verbose", {{"type", "boolean"}, {"x-mcp-header", "Verbose"}}},
                   {"n", {{"type", "integer"}, {"x-mcp-header", "N"}}}}}};
  auto lines = param_header_lines(schema, {{"region", "eu"}, {"verbose", nullptr}, {"n", 3}});
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0], "Mcp-Param-N: 3");
  EXPECT_EQ(lines[1], "Mcp-Param-Region: eu");
}

TEST(StatelessEra, ProbeFailuresAreClassifiedAsTheRevisionSays) {
  const Status refused = Status::InvalidArgument("answered with an error");
  json unsupported = {{"code", -32022}, {"message", "no"}, {"data", {{"supported", {"2099-01-01"}}}}};
  EXPECT_EQ(classify_probe_failure(refused, unsupported, false), ProbeVerdict::kFail);
  unsupported["data"]["supported"] = {"2026-07-28"};
  EXPECT_EQ(classify_probe_failure(refused, unsupported, false), ProbeVerdict::kRetry);
  unsupported["data"]["supported"] = {"2025-06-18"};
  EXPECT_EQ(classify_probe_failure(refused, unsupported, true), ProbeVerdict::kHandshake);
  EXPECT_EQ(classify_probe_failure(refused, {{"code", -32020}}, false), ProbeVerdict::kFail);
  EXPECT_EQ(classify_probe_failure(refused, {{"code", -32601}}, true), ProbeVerdict::kHandshake);
  EXPECT_EQ(classify_probe_failure(refused, {{"code", -32602}}, false), ProbeVerdict::kHandshake);
  EXPECT_EQ(classify_probe_failure(refused, nullptr, false), ProbeVerdict::kHandshake);  // HTTP 400 plain
  const Status silent = Status::DeadlineExceeded("no answer");
  EXPECT_EQ(classify_probe_failure(silent, nullptr, true), ProbeVerdict::kHandshake);
  EXPECT_EQ(classify_probe_failure(silent, nullptr, false), ProbeVerdict::kFail);
  EXPECT_EQ(classify_probe_failure(Status::Unauthenticated("401"), nullptr, false), ProbeVerdict::kFail);
  EXPECT_EQ(classify_probe_failure(Status::Unavailable("refused"), nullptr, false), ProbeVerdict::kFail);
}

TEST(StatelessEra, AMissingResultTypeIsComplete) {
  EXPECT_FALSE(is_input_required({{"content", json::array()}}));
  EXPECT_FALSE(is_input_required({{"resultType", "complete"}}));
  EXPECT_TRUE(is_input_required({{"resultType", "input_required"}}));
}

TEST(StatelessEra, ARetryCarriesTheAnswersAndTheStateExactly) {
  json params = {{"name", "t"}, {"requestState", "old"}, {"inputResponses", {{"x", 1}}}};
  json result = {{"resultType", "input_required"},
                 {"inputRequests", {{"a", {{"method", "elicitation/create"}, {"params", {{"message", "m"}}}}}}},
                 {"requestState", "opaque+/=="}};
  auto answer = [](const std::string& method, const json& p) -> Result<json> {
    return json{{"action", "accept"}, {"content", {{"asked", method + ":" + p.value("message", "")}}}};
  };
  ASSERT_TRUE(prepare_input_retry(params, result, answer).ok());
  EXPECT_EQ(params["requestState"], "opaque+/==");
  EXPECT_EQ(params["inputResponses"],
            (json{{"a", {{"action", "accept"}, {"content", {{"asked", "elicitation/create:m"}}}}}}));

  json state_only = {{"resultType", "input_required"}};  // neither requests nor state: both dropped
  ASSERT_TRUE(prepare_input_retry(params, state_only, answer).ok());
  EXPECT_FALSE(params.contains("requestState"));
  EXPECT_FALSE(params.contains("inputResponses"));

  auto cannot = [](const std::string&, const json&) -> Result<json> { return Status::FailedPrecondition("no"); };
  EXPECT_FALSE(prepare_input_retry(params, result, cannot).ok());
}

TEST(OAuthIssuer, TheResponseMustComeFromTheRecordedIssuer) {
  AuthServerMetadata server;
  server.issuer = "https://auth.example.com";
  const std::string same = "https://auth.example.com";
  const std::string other = "https://evil.example.com";
  const std::string slash = "https://auth.example.com/";  // compared exactly: not the same
  EXPECT_TRUE(check_response_issuer(&same, server).ok());
  EXPECT_TRUE(check_response_issuer(nullptr, server).ok());  // not promised, not sent
  EXPECT_EQ(check_response_issuer(&other, server).code(), ErrorCode::kUnauthenticated);
  EXPECT_FALSE(check_response_issuer(&slash, server).ok());
  server.iss_parameter_supported = true;
  EXPECT_TRUE(check_response_issuer(&same, server).ok());
  EXPECT_EQ(check_response_issuer(nullptr, server).code(), ErrorCode::kUnauthenticated);
}

}  // namespace
}  // namespace keel::mcp
