// Cuts generated text at stop strings and decides how much of it may be streamed yet: text that
// could still turn into a stop string, a call marker, or an incomplete UTF-8 character is held back.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace keel {

class TextStopScanner {
 public:
  // stops: generation ends where one occurs (it is not part of the reply). hold_at: strings after
  // which nothing more is streamed (a tool call's opening marker); the text is still collected.
  TextStopScanner(std::vector<std::string> stops, std::vector<std::string> hold_at);
  // Adds a piece of generated text. Returns true when a stop string completed (text() is cut there).
  bool add(std::string_view piece);
  // The reply so far, stop string excluded.
  const std::string& text() const { return text_; }
  // The part of text() that is safe to stream and was not returned before.
  std::string_view take_streamable();
  // At the end of generation: the rest of the streamable text (up to a hold marker), not returned before.
  std::string_view take_rest();

 private:
  size_t safe_end() const;
  std::vector<std::string> stops_;
  std::vector<std::string> hold_at_;
  std::string text_;
  size_t streamed_ = 0;
  size_t held_from_ = std::string::npos;  // a hold marker starts here: stream nothing from it on
  size_t scan_from_ = 0;                  // stop strings ending before here were already looked for
  size_t longest_ = 0;                    // longest stop or hold string
};

}  // namespace keel
