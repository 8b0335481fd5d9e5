// mcp/jwt_assertion.hpp — a signed JWT (RFC 7519) that authenticates keel to an authorization
// server with its private key (private_key_jwt, RFC 7523 §2.2): what a machine client sends
// instead of a client secret. ES256 (P-256) and RS256, through OpenSSL's libcrypto, loaded at the
// first signature (Unavailable when it cannot be).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "keel/result.hpp"

namespace keel::mcp {

// header.claims.signature, signed with the PEM private key by `algorithm` ("ES256" or "RS256").
// InvalidArgument for an unknown algorithm, a key that does not load, or a key of another kind.
Result<std::string> sign_jwt(const nlohmann::json& claims, const std::string& private_key_pem,
                             const std::string& algorithm);

}  // namespace keel::mcp
