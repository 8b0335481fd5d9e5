// Accept and version checks of the MCP HTTP endpoint; see mcp_http_guard.hpp.
#include "mcp_server/mcp_http_guard.hpp"

#include "core/text/text_util.hpp"

#include <algorithm>
#include <cstddef>

namespace keel::mcp::detail {
namespace {

using keel::detail::lowercase;
using keel::detail::trim;

}  // namespace

bool accepts_media_type(std::string_view accept, std::string_view media_type) {
  const std::string wanted = lowercase(media_type);
  std::string wanted_any = wanted.substr(0, wanted.find('/'));
  wanted_any.append("/*");
  while (!accept.empty()) {
    const size_t comma = accept.find(',');
    std::string_view item = accept.substr(0, comma);
    item = trim(item.substr(0, item.find(';')));
    const std::string range = lowercase(item);
    if (range == wanted || range == wanted_any || range == "*/*") return true;
    if (comma == std::string_view::npos) break;
    accept.remove_prefix(comma + 1);
  }
  return false;
}

bool is_supported_protocol_version(std::string_view version) {
  return version == "2025-03-26" || version == "2025-06-18" || version == "2025-11-25";
}

}  // namespace keel::mcp::detail
