#include "llm/text_stop_scanner.hpp"

#include <algorithm>

namespace keel {
namespace {

// Bytes at the end of `s` that start a UTF-8 sequence not yet complete.
size_t incomplete_utf8_tail(std::string_view s) {
  size_t n = s.size();
  for (size_t back = 1; back <= 4 && back <= n; ++back) {
    unsigned char c = static_cast<unsigned char>(s[n - back]);
    if ((c & 0xC0) == 0x80) continue;  // continuation byte: keep looking for the lead
    size_t need = (c & 0x80) == 0 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 1;
    return need > back ? back : 0;
  }
  return 0;
}

}  // namespace

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
  end -= incomplete_utf8_tail(std::string_view(text_).substr(0, end));
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
