// Helpers shared by the formats whose calls are framed by special tokens (harmony, DeepSeek,
// Kimi-K2, Command R7B): one-pass splitting into text and tokens, and the arguments of a call
// that may have lost its end token.
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/text/small_vector.hpp"
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

// A format's special tokens, all starting with `prefix` and none a prefix of another, with what
// the splitter compares (made at compile time by special_tokens()).
template <class Tok, size_t N>
struct SpecialTokens {
  static_assert(N <= 16);
  std::string_view prefix;
  std::array<std::pair<std::string_view, Tok>, N> tokens;
  std::array<std::array<std::uint64_t, 2>, N> head{};  // each token's first sixteen bytes, little-endian
  std::array<std::array<std::uint64_t, 2>, N> mask{};  // which bytes of `head` are the token's
  std::array<std::uint16_t, 256> by_next{};            // bit k: tokens[k] has this byte after the prefix
};

template <class Tok, size_t N>
constexpr SpecialTokens<Tok, N> special_tokens(std::string_view prefix,
                                               const std::array<std::pair<std::string_view, Tok>, N>& tokens) {
  SpecialTokens<Tok, N> t;
  t.prefix = prefix;
  t.tokens = tokens;
  for (size_t k = 0; k < N; ++k) {
    const std::string_view tok = tokens[k].first;
    for (size_t b = 0; b < 16 && b < tok.size(); ++b) {
      t.head[k][b / 8] |= std::uint64_t{static_cast<unsigned char>(tok[b])} << (8 * (b % 8));
      t.mask[k][b / 8] |= std::uint64_t{0xFF} << (8 * (b % 8));
    }
    t.by_next[static_cast<unsigned char>(tok[prefix.size()])] |= static_cast<std::uint16_t>(1u << k);
  }
  return t;
}

// Splits `s` into text pieces (Tok::kText) and the special tokens of `table`. A token right after
// a single backtick is a mention in prose, not a token. Linear in the input.
template <class Tok, size_t N>
TokenPieces<Tok> split_special_tokens(std::string_view s, const SpecialTokens<Tok, N>& table) {
  constexpr size_t npos = std::string_view::npos;
  const std::string_view prefix = table.prefix;
  TokenPieces<Tok> out;
  size_t pos = 0;
  size_t text_begin = 0;
  while ((pos = s.find(prefix, pos)) != npos) {
    if (pos > 0 && s[pos - 1] == '`' && (pos == 1 || s[pos - 2] != '`')) {  // quoted in prose (not a ``` fence)
      size_t close = s.find('`', pos);
      pos = close == npos ? s.size() : close + 1;
      continue;
    }
    // The byte after the prefix picks the candidates; their first sixteen bytes are compared at once.
    const size_t left = s.size() - pos;
    unsigned candidates = left > prefix.size() ? table.by_next[static_cast<unsigned char>(s[pos + prefix.size()])] : 0;
    size_t hit = N;
    if (left >= 16 && std::endian::native == std::endian::little) {
      std::uint64_t w[2];
      std::memcpy(w, s.data() + pos, 16);
      for (; candidates != 0; candidates &= candidates - 1) {
        const size_t k = static_cast<size_t>(std::countr_zero(candidates));
        const std::string_view tok = table.tokens[k].first;
        if ((w[0] & table.mask[k][0]) == table.head[k][0] && (w[1] & table.mask[k][1]) == table.head[k][1] &&
            (tok.size() <= 16 ||
             (tok.size() <= left && std::memcmp(s.data() + pos + 16, tok.data() + 16, tok.size() - 16) == 0))) {
          hit = k;
          break;
        }
      }
    } else {
      for (; candidates != 0; candidates &= candidates - 1) {
        const size_t k = static_cast<size_t>(std::countr_zero(candidates));
        if (s.substr(pos, table.tokens[k].first.size()) == table.tokens[k].first) {
          hit = k;
          break;
        }
      }
    }
    if (hit == N) {
      pos += prefix.size();
      continue;
    }
    const auto& [spelling, tok] = table.tokens[hit];
    if (pos > text_begin) out.push_back({Tok::kText, s.substr(text_begin, pos - text_begin)});
    out.push_back({tok, spelling});
    pos += spelling.size();
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
