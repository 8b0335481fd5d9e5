// acp/permission_approver.hpp — keel's approvals put to the editor: each call the workspace's
// policy asks about becomes a `session/request_permission` request. The editor only answers what
// the policy asks; what the policy allows or refuses on its own never reaches it, so a client
// cannot loosen the operator's policy.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "acp/json_rpc_peer.hpp"
#include "keel/approver.hpp"

namespace keel::acp {

// `timeout`: how long one question waits for the editor before the call is denied.
std::unique_ptr<Approver> make_permission_approver(JsonRpcPeer& peer, std::string session_id,
                                                   std::chrono::milliseconds timeout = std::chrono::minutes(10));

}  // namespace keel::acp
