// tools/a2a/a2a_card.hpp — an A2A agent card (GET URL/.well-known/agent-card.json): who the agent
// is, for the tool's description, and where its JSON-RPC endpoint is, checked to lie on the
// configured origin so that requests (and the token) go nowhere else.
//
// v1.0 cards list `supportedInterfaces: [{url, protocolBinding, protocolVersion}]`; v0.3 cards
// have a top-level `url` with `preferredTransport` (JSONRPC when absent) and `additionalInterfaces:
// [{url, transport}]`. A JSON-RPC interface of version 1.x is preferred over a v0.3 one.
//
// Thread-safety: plain values and free functions without shared state.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "keel/result.hpp"
#include "tools/a2a/a2a_wire.hpp"

namespace keel::detail {

struct A2aCard {
  std::string name;
  std::string description;
  std::string version;
  std::vector<std::pair<std::string, std::string>> skills;  // (name, description)
  std::string rpc_url;                                      // the JSON-RPC endpoint, absolute
  A2aProtocol protocol = A2aProtocol::kV1;
};

// Where the card of the agent at `base_url` is: base_url without trailing slashes, then
// "/.well-known/agent-card.json"; a base_url that already ends in ".json" is taken as the card.
std::string a2a_card_url(std::string_view base_url);

// Parses the card text `body` read from `card_url` (relative interface URLs are resolved against
// it). InvalidArgument, naming card_url, when the text is not a JSON object or the card offers no
// JSON-RPC interface (the message lists what it offers).
Result<A2aCard> parse_a2a_card(std::string_view body, std::string_view card_url);

// Ok when card.rpc_url has the origin (scheme, host, port) of `configured_url`; else
// PermissionDenied explaining that keel talks only to the configured origin. `who` names the
// agent in the message.
Status check_a2a_origin(const A2aCard& card, std::string_view configured_url, std::string_view who);

// The tool description from the card: what the agent says it does and its skills, bounded to
// about `max_chars` bytes and free of control characters.
std::string a2a_card_description(const A2aCard& card, std::string_view agent_name, size_t max_chars = 1200);

}  // namespace keel::detail
