// assembly/mcp_elicitation.hpp — an MCP server's question to the user (elicitation/create, in the
// handshake revisions as a request, in 2026-07-28 as an input request of a multi round-trip call)
// put to the person running keel through the run's UserAsker, the same channel ask_user uses (the
// terminal for `keel run`/`chat`, the web UI for `keel serve`).
//
// A form asks one question per requested field, in the schema's order: an enum (or oneOf with
// titles) or a boolean offers its choices, numbers and integers are parsed, an empty answer takes
// the field's default. The answer is {"action": "accept", "content": {...}}; a required field left
// unanswered, or a value that does not parse, declines; a stop or the timeout cancels. A URL-mode
// elicitation shows the URL and asks whether the person completed it there.
//
// Thread-safety: the returned function may be called from any thread; questions are put one at a
// time by the asker.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string_view>

#include "keel/ask_user.hpp"

namespace keel::assembly {

using ElicitationHook = std::function<nlohmann::json(std::string_view server, const nlohmann::json& params)>;

// The elicitation hook for an MCP client; null when `asker` is null (keel then answers from the
// schema's defaults, or declines).
ElicitationHook elicitation_through_asker(std::shared_ptr<UserAsker> asker,
                                          std::chrono::milliseconds timeout = std::chrono::minutes(10));

}  // namespace keel::assembly
