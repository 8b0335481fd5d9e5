// The default detect() of a tool-call format: its markers, then its own closer look.
#include "keel/core/tool_call_format.hpp"

namespace keel {

bool ToolCallFormat::detect(std::string_view text) const {
  for (std::string_view marker : markers()) {
    if (text.find(marker) != std::string_view::npos) return detect_marked(text);
  }
  return unmarked_detection() && detect_unmarked(text);
}

}  // namespace keel
