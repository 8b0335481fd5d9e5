// acp/prompt_content.hpp — ACP content in and out of keel's messages: a prompt's content blocks as
// the turn's text, and a stored conversation replayed as the updates a loaded session shows.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "acp/session_updates.hpp"
#include "keel/result.hpp"
#include "keel/store/records.hpp"

namespace keel::acp {

// The text of a prompt (an array of ContentBlock): text as it is, a resource link as a Markdown
// link, an embedded text resource fenced under its URI. InvalidArgument for an empty prompt, an
// image or audio block (not offered in promptCapabilities), a binary resource or an unknown block.
Result<std::string> prompt_text(const nlohmann::json& prompt);

// Sends a stored conversation as ACP updates: user and agent message chunks, and each tool call
// with its outcome.
void replay_messages(SessionUpdates& updates, const std::vector<StoredMessage>& messages);

}  // namespace keel::acp
