#include "core/parsing/formats/format_groups.hpp"
#include "core/parsing/formats/formats.hpp"

namespace keel {

std::vector<std::unique_ptr<ToolCallFormat>> builtin_tool_call_formats() {
  detail::FormatList out;
  detail::append_special_token_formats(out);
  detail::append_text_formats(out);
  out.push_back(detail::make_json_format());  // the generic fallback comes last
  return out;
}

}  // namespace keel
