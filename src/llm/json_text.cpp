#include "llm/json_text.hpp"

#include <nlohmann/json.hpp>

namespace keel::detail {

bool is_json_value(std::string_view text) { return nlohmann::json::accept(text); }

}  // namespace keel::detail
