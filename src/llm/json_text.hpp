// Writing JSON text directly into a string: the request body of every model call is built this
// way, in one linear pass with no intermediate document, so a long conversation is not copied
// into a JSON tree on every round.
#pragma once

#include <string>
#include <string_view>

#include "core/parsing/json/json_text.hpp"  // append_json_string

namespace keel::detail {

// True when `text` is one complete JSON value (validated without building a document).
bool is_json_value(std::string_view text);

}  // namespace keel::detail
