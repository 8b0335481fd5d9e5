// api/a2a_v03.hpp — keel's A2A agent for clients of the protocol's version 0.3 (the JSON-RPC
// methods message/send, message/stream, tasks/get, tasks/cancel, and objects told apart by a
// "kind"), which most deployed A2A clients still speak. The endpoint handles 1.0 only: a 0.3
// request is renamed to its 1.0 method, and what the 1.0 handlers answer is rewritten into 0.3's
// shapes on the way out (a responder that wraps the client's).
//
//   if (std::string v1 = a2a::v1_method_of_v03(method); !v1.empty()) {
//     method = v1; params = a2a::v1_params_from_v03(params); out = a2a::v03_responder(out, v1);
//   }
//
// Thread-safety: pure functions; a wrapped responder is used as the one it wraps.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "server/http_responder.hpp"

namespace keel::api::a2a {

// The version 0.3 is known by: the card's protocolVersion, and the A2A-Version values taken with it.
inline constexpr const char* kV03ProtocolVersion = "0.3.0";

// "SendMessage" for "message/send", ...; empty when `method` is not one of 0.3's that keel offers.
std::string v1_method_of_v03(std::string_view method);
// True for an A2A-Version header naming 0.3 ("0.3", "0.3.0").
bool is_v03_version(std::string_view version);
// 0.3 request params as 1.0 takes them: configuration.blocking false is returnImmediately.
nlohmann::json v1_params_from_v03(nlohmann::json params);

// What a 1.0 handler of `v1_method` answered, in 0.3's shape: a task or message with its kind
// (SendMessage's {task} or {message} wrapper removed), states as "input-required", roles as
// "agent", parts as {kind: "text", text}.
nlohmann::json v03_result(std::string_view v1_method, const nlohmann::json& result);
// One 1.0 stream response ({task} | {message} | {statusUpdate} | {artifactUpdate}) as 0.3's
// event: the object with its kind ("task", "message", "status-update" with `final`,
// "artifact-update").
nlohmann::json v03_stream_event(const nlohmann::json& response);

// Wraps `inner` so the JSON-RPC answers and SSE events the 1.0 handler of `v1_method` writes
// reach the client in 0.3's shapes. Errors pass as they are (the codes are the same).
std::shared_ptr<server::HttpResponder> v03_responder(std::shared_ptr<server::HttpResponder> inner, std::string v1_method);

}  // namespace keel::api::a2a
