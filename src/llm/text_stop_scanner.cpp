#include "llm/text_stop_scanner.hpp"

#include <algorithm>

#include "core/text/utf8_text.hpp"

namespace keel {

TextStopScanner::TextStopScanner(std::vector<std::string> stops, std::vector<std::string> hold_at)
    : stops_(std::move(stops)), hold_at_(std::move(hold_at)) {
  std::erase_if(stops_, [](const std::string& s) { return s.empty(); });
  std::erase_if(hold_at_, [](const std::string& s) { return s.empty(); });
  for (const auto& s : stops_) longest_ = std::max(longest_, s.size());
  for (const auto& s : hold_at_) longest_ = std::max(longest_, s.size());
}

bool TextStopScanner::add(std::string_view piece) {
  text_ += piece;
  // Only windows that include new bytes can hold a new match: start longest_-1 bytes back.
  size_t from = scan_from_ >= longest_ ? scan_from_ - longest_ + 1 : 0;
  scan_from_ = text_.size();
  size_t cut = std::string::npos;
  for (const auto& s : stops_) {
    size_t at = text_.find(s, from);
    if (at != std::string::npos) cut = std::min(cut, at);
  }
  if (held_from_ == std::string::npos) {
    for (const auto& s : hold_at_) {
      size_t at = text_.find(s, from);
      if (at != std::string::npos) held_from_ = std::min(held_from_, at);
    }
  }
  if (cut == std::string::npos) return false;
  text_.resize(cut);
  if (held_from_ != std::string::npos && held_from_ > cut) held_from_ = std::string::npos;
  return true;
}

size_t TextStopScanner::safe_end() const {
  if (held_from_ != std::string::npos) return held_from_;
  size_t end = text_.size();
  // Hold back a tail that is a proper prefix of a stop or hold string.
  size_t hold = 0;
  auto check = [&](const std::string& s) {
    for (size_t k = std::min(s.size() - 1, text_.size()); k > hold; --k) {
      if (std::string_view(text_).substr(text_.size() - k) == std::string_view(s).substr(0, k)) {
        hold = k;
        break;
      }
    }
  };
  for (const auto& s : stops_) check(s);
  for (const auto& s : hold_at_) check(s);
  end -= hold;
  end = detail::utf8_complete_prefix(std::string_view(text_).substr(0, end));  // no character cut in two
  return end;
}

std::string_view TextStopScanner::take_streamable() {
  size_t end = safe_end();
  if (end <= streamed_) return {};
  std::string_view out = std::string_view(text_).substr(streamed_, end - streamed_);
  streamed_ = end;
  return out;
}

std::string_view TextStopScanner::take_rest() {
  size_t end = held_from_ != std::string::npos ? held_from_ : text_.size();
  if (end <= streamed_) return {};
  std::string_view out = std::string_view(text_).substr(streamed_, end - streamed_);
  streamed_ = end;
  return out;
}

}  // namespace keel
