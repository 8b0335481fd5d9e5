#include "mcp/line_splitter.hpp"

namespace keel::mcp::detail {
void LineSplitter::feed(std::string_view bytes, const LineFn& on_line, const OverlongFn& on_overlong) {
  while (!bytes.empty()) {
    const size_t nl = bytes.find('\n');
    const bool ends = nl != std::string_view::npos;
    const std::string_view piece = ends ? bytes.substr(0, nl) : bytes;
    if (discarding_) {
      discarded_ += piece.size();
    } else if (partial_.size() + piece.size() > max_) {
      std::string head = partial_.substr(0, head_);
      head.append(piece.substr(0, head_ - head.size()));
      discarding_ = true;
      discarded_ = partial_.size() + piece.size();
      partial_.clear();
      on_overlong(head);
    } else if (ends && partial_.empty()) {
      on_line(piece);  // the common case: a whole line inside one chunk, delivered without a copy
    } else if (ends) {
      partial_.append(piece);
      std::string line;
      line.swap(partial_);
      on_line(line);
    } else {
      partial_.append(piece);
    }
    if (!ends) return;
    discarding_ = false;
    discarded_ = 0;
    bytes.remove_prefix(nl + 1);
  }
}

void LineSplitter::finish(const LineFn& on_line) {
  if (!discarding_ && !partial_.empty()) {
    std::string line;
    line.swap(partial_);
    on_line(line);
  }
  partial_.clear();
  discarding_ = false;
  discarded_ = 0;
}

}  // namespace keel::mcp::detail
