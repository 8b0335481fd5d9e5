// Helpers shared by the formats whose calls are framed by special tokens (harmony, DeepSeek,
// Kimi-K2, Command R7B): one-pass splitting into text and tokens, and the arguments of a call
// that may have lost its end token.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/small_vector.hpp"
#include "keel/core/tool_call_format.hpp"

namespace keel::detail {

template <class Tok>
struct TokenPiece {
  Tok tok;
  std::string_view text;
};

// A reply's pieces; the usual few need no allocation.
template <class Tok>
using TokenPieces = SmallVector<TokenPiece<Tok>, 24>;

// Splits `s` into text pieces (Tok::kText) and the special tokens of `tokens`, which all start
// with `prefix` and none of which is a prefix of another. A token right after a single backtick
// is a mention in prose, not a token. Linear in the input.
template <class Tok, size_t N>
TokenPieces<Tok> split_special_tokens(std::string_view s, std::string_view prefix,
                                      const std::array<std::pair<std::string_view, Tok>, N>& tokens) {
  constexpr size_t npos = std::string_view::npos;
  TokenPieces<Tok> out;
  size_t pos = 0;
  size_t text_begin = 0;
  while ((pos = s.find(prefix, pos)) != npos) {
    if (pos > 0 && s[pos - 1] == '`' && (pos == 1 || s[pos - 2] != '`')) {  // quoted in prose (not a ``` fence)
      size_t close = s.find('`', pos);
      pos = close == npos ? s.size() : close + 1;
      continue;
    }
    const std::pair<std::string_view, Tok>* hit = nullptr;
    const char third = pos + prefix.size() < s.size() ? s[pos + prefix.size()] : '\0';
    for (const auto& t : tokens) {
      // The byte after the shared prefix tells most tokens apart without a full compare.
      if (t.first.size() > prefix.size() && t.first[prefix.size()] != third) continue;
      if (s.substr(pos, t.first.size()) == t.first) {
        hit = &t;
        break;
      }
    }
    if (hit == nullptr) {
      pos += prefix.size();
      continue;
    }
    if (pos > text_begin) out.push_back({Tok::kText, s.substr(text_begin, pos - text_begin)});
    out.push_back({hit->second, hit->first});
    pos += hit->first.size();
    text_begin = pos;
  }
  if (text_begin < s.size()) out.push_back({Tok::kText, s.substr(text_begin)});
  return out;
}

// Text gathered from several pieces: a view of the first piece while there is one, a copy once
// a second one is added (usually there is one). Not thread-safe; a local value.
class Gathered {
 public:
  void add(std::string_view piece) {
    if (pieces_++ == 0) {
      view_ = piece;
      return;
    }
    if (pieces_ == 2) joined_.assign(view_);
    joined_.append(piece);
    view_ = joined_;
  }
  std::string_view view() const { return view_; }

 private:
  std::string_view view_;
  std::string joined_;
  size_t pieces_ = 0;
};

// Appends the trimmed `piece` to `to` as a new line; nothing when it is blank.
void append_line(std::string& to, std::string_view piece);

// The arguments object (JSON text) of a call to `name` whose JSON is `body`. `terminated` says
// whether its end token (`end_token`, for messages) was seen: without it, JSON that is not
// complete is an error (cut off), never completed. Arguments sent as a JSON string are unwrapped.
std::optional<std::string> special_call_arguments(std::string_view body, bool terminated, std::string_view name,
                                                  std::string_view end_token, FormatResult& out);

}  // namespace keel::detail
