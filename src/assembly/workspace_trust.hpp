// What a user trusted in a workspace — an MCP server from its .mcp.json, a command hook from its
// settings files — kept in the store as an approval rule: tool "KIND:NAME", the thing's
// fingerprint as the pattern, verdict allow. A changed fingerprint is not trusted.
//
// Thread-safety: reads the store only.
#pragma once

#include <string>

#include "keel/store/store.hpp"

namespace keel::assembly {

// True when `store` holds an allow rule for `workspace` with exactly `trust_tool` and `fingerprint`;
// false without a store or when it cannot be read.
bool workspace_trusts(Store* store, const std::string& workspace, const std::string& trust_tool,
                      const std::string& fingerprint);

}  // namespace keel::assembly
