// mcp/line_splitter.hpp — cuts a byte stream into newline-terminated lines with a cap on a line's
// length, for the stdio transport's stdout (one JSON-RPC message per line) and stderr (log lines).
//
// A line longer than the cap is not held: once it crosses the cap its first `head_bytes` are
// reported and the rest of it is dropped up to its '\n'.
//
//   LineSplitter lines(1024);
//   lines.feed(chunk, [](std::string_view line) { ... }, [](std::string_view head) { ... });
//
// Thread-safety: not thread-safe; one reader feeds it.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace keel::mcp::detail {

class LineSplitter {
 public:
  // Receives one whole line, without its '\n' (it may be empty). Valid during the call only.
  using LineFn = std::function<void(std::string_view line)>;
  // Told once per line that crossed the cap, with the line's first bytes (at most head_bytes).
  using OverlongFn = std::function<void(std::string_view head)>;

  // `max_line_bytes`: the longest line delivered (0 is taken as 1); `head_bytes`: how much of a
  // longer line on_overlong gets (at most max_line_bytes).
  explicit LineSplitter(size_t max_line_bytes, size_t head_bytes = 200)
      : max_(max_line_bytes == 0 ? 1 : max_line_bytes), head_(head_bytes < max_ ? head_bytes : max_) {}

  // Feeds the next bytes of the stream.
  void feed(std::string_view bytes, const LineFn& on_line, const OverlongFn& on_overlong);

  // End of the stream: delivers an unterminated last line, if any.
  void finish(const LineFn& on_line);

  // Bytes of the current unterminated line dropped so far (0 unless it crossed the cap).
  size_t discarded() const { return discarded_; }

 private:
  size_t max_;
  size_t head_;
  std::string partial_;  // the current line's bytes so far (never more than max_)
  bool discarding_ = false;
  size_t discarded_ = 0;
};

}  // namespace keel::mcp::detail
