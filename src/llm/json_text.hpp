// Writing JSON text directly into a string: the request body of every model call is built this
// way, in one linear pass with no intermediate document, so a long conversation is not copied
// into a JSON tree on every round.
#pragma once

#include <string>
#include <string_view>

namespace keel::detail {

// Appends `s` as a quoted JSON string. Control characters, quotes and backslashes are escaped;
// invalid UTF-8 (e.g. binary tool output) is replaced by U+FFFD rather than failing the request.
void append_json_string(std::string& out, std::string_view s);

// True when `text` is one complete JSON value (validated without building a document).
bool is_json_value(std::string_view text);

}  // namespace keel::detail
