// store/message_codec.hpp — the text forms of Message fields that have no column of their own:
// tool calls as a JSON array of {"id","name","arguments"} and metadata as a JSON object of
// strings, plus the role's name.
//
// Encoding never fails: bytes that are not valid UTF-8 are replaced with U+FFFD (JSON text must
// be UTF-8), so only valid UTF-8 round-trips exactly. Decoding a column keel did not write gives
// an error naming the column.
//
// Thread-safety: pure functions.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "keel/message.hpp"
#include "keel/result.hpp"

namespace keel::detail {

// "" for no calls (stored as NULL).
std::string encode_tool_calls(const std::vector<ToolCall>& calls);
Result<std::vector<ToolCall>> decode_tool_calls(std::string_view json);

// "" for no entries (stored as NULL).
std::string encode_metadata(const std::map<std::string, std::string>& metadata);
Result<std::map<std::string, std::string>> decode_metadata(std::string_view json);

Result<Role> parse_role(std::string_view name);

}  // namespace keel::detail
