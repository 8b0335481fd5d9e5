// GPT-OSS "harmony" replies, a sequence of messages:
//   <|start|>assistant<|channel|>analysis<|message|>...<|end|>            reasoning
//   <|start|>assistant<|channel|>commentary to=functions.NAME <|constrain|>json<|message|>{...}<|call|>
//   <|start|>assistant<|channel|>final<|message|>...<|end|> or <|return|>  the answer (content)
// The recipient may stand in the role part (`<|start|>assistant to=functions.NAME<|channel|>...`),
// <|constrain|>json is optional, and generation often begins at <|channel|> (the prompt ends with
// <|start|>assistant). Analysis text is never searched for calls; only a message addressed with
// `to=` is a call (whatever its channel). <|call|> and <|return|> are stop tokens that servers often
// drop: a call that ends the reply without <|call|> counts when its JSON is complete and is an error
// (never completed) when it is not. Tokens right after a backtick are a mention in prose.
#include <array>
#include <utility>

#include "core/parsing/formats/format_util.hpp"
#include "core/parsing/formats/formats.hpp"
#include "core/parsing/formats/special_tokens.hpp"
#include "core/parsing/json/json_repair.hpp"
#include "core/text/text_util.hpp"

namespace keel::detail {
namespace {

enum class Tok { kText, kStart, kChannel, kConstrain, kMessage, kEnd, kCall, kReturn };

constexpr std::array<std::pair<std::string_view, Tok>, 7> kTokens = {{
    {"<|start|>", Tok::kStart},
    {"<|channel|>", Tok::kChannel},
    {"<|constrain|>", Tok::kConstrain},
    {"<|message|>", Tok::kMessage},
    {"<|end|>", Tok::kEnd},
    {"<|call|>", Tok::kCall},
    {"<|return|>", Tok::kReturn},
}};
constexpr auto kTable = special_tokens("<|", kTokens);

using Piece = TokenPiece<Tok>;  // text: the text itself, or the token's spelling

// Splits the reply into text and special tokens in one pass.
TokenPieces<Tok> tokenize(std::string_view s) {
  return split_special_tokens(s, kTable);
}

// The value of the first whitespace-separated word of `header` that starts with `prefix`, or
// false when there is none.
bool word_after(std::string_view header, std::string_view prefix, std::string_view& value) {
  size_t pos = 0;
  while (pos < header.size()) {
    size_t b = skip_blanks(header, pos);
    if (b == header.size()) break;
    size_t e = b;
    while (e < header.size() && !is_blank(header[e])) ++e;
    std::string_view w = header.substr(b, e - b);
    if (w.substr(0, prefix.size()) == prefix) {
      value = w.substr(prefix.size());
      return true;
    }
    pos = e;
  }
  return false;
}

std::string_view first_word(std::string_view s) {
  s = trim(s);
  size_t e = 0;
  while (e < s.size() && !is_blank(s[e])) ++e;
  return s.substr(0, e);
}

std::optional<std::string> call_arguments(std::string_view body, bool terminated, std::string_view name,
                                          FormatResult& out) {
  return special_call_arguments(body, terminated, name, "<|call|>", out);
}

class HarmonyFormat final : public ToolCallFormat {
 public:
  std::string_view name() const override { return "harmony"; }
  std::string_view description() const override {
    return "GPT-OSS harmony: <|channel|>analysis (reasoning), commentary to=functions.NAME<|message|>{...}<|call|>, "
           "final";
  }
  std::span<const std::string_view> markers() const override {
    static constexpr std::string_view kMarkers[] = {"<|channel|>", "<|message|>", "<|start|>"};
    return kMarkers;
  }
  // A reply generated after "<|start|>assistant" may open with its recipient header.
  std::span<const std::string_view> leading_markers() const override {
    static constexpr std::string_view kLeading[] = {"to="};
    return kLeading;
  }

  FormatResult parse(std::string_view text, std::span<const ToolSpec>) const override {
    FormatResult out;
    TokenPieces<Tok> pieces = tokenize(text);
    size_t i = 0;
    while (i < pieces.size() && !out.error) {
      const Piece& p = pieces[i];
      bool header = p.tok == Tok::kText ? role_part(pieces, i)
                                        : p.tok != Tok::kEnd && p.tok != Tok::kCall && p.tok != Tok::kReturn;
      if (header) {
        i = message(pieces, i, out);
      } else {  // text outside any message is visible; a stray end token drops
        if (p.tok == Tok::kText) append_line(out.content, p.text);
        ++i;
      }
    }
    return out;
  }

 private:
  // Whether text pieces[i] is the role part of a header whose <|start|>assistant was in the prompt:
  // ` to=functions.NAME` (or `assistant`) right before <|channel|>, <|constrain|> or <|message|>.
  static bool role_part(const TokenPieces<Tok>& pieces, size_t i) {
    if (i + 1 >= pieces.size()) return false;
    Tok next = pieces[i + 1].tok;
    if (next != Tok::kChannel && next != Tok::kConstrain && next != Tok::kMessage) return false;
    std::string_view w = first_word(pieces[i].text);
    return w.substr(0, 3) == "to=" || w == "assistant";
  }

  // Reads the message whose header starts at pieces[i]; returns the index after it.
  static size_t message(const TokenPieces<Tok>& pieces, size_t i, FormatResult& out) {
    // The header's words are read piece by piece: tokens stand between text pieces (never two
    // text pieces in a row), so no word spans two pieces.
    std::string_view recipient;
    bool has_recipient = false;
    Gathered channel;
    bool in_channel = false;
    size_t read = 0;  // header pieces read
    size_t n = pieces.size();
    // Header: role text, <|channel|> text, <|constrain|> text, up to <|message|>.
    for (; i < n && pieces[i].tok != Tok::kMessage; ++i, ++read) {
      Tok t = pieces[i].tok;
      if (t == Tok::kEnd || t == Tok::kCall || t == Tok::kReturn) break;
      if (t == Tok::kStart && read != 0) break;  // the next message begins
      if (t == Tok::kText) {
        if (!has_recipient) has_recipient = word_after(pieces[i].text, "to=", recipient);
        if (in_channel) channel.add(pieces[i].text);
      } else {
        in_channel = t == Tok::kChannel;
      }
    }
    std::string_view name = recipient.substr(0, 10) == "functions." ? recipient.substr(10) : recipient;
    // (`to=self` is Muse Glimmer's reasoning, read by its own format first; it is no call here either.)
    bool is_call = !recipient.empty() && recipient != "assistant" && recipient != "user" && recipient != "all" &&
                   recipient != "self";
    if (i >= n || pieces[i].tok != Tok::kMessage) {
      if (is_call) out.error = "the call to '" + std::string(name) + "' was cut off in its header (no <|message|>)";
      return i;
    }
    out.framed = true;  // a whole header: the reply is in harmony's framing, calls or not
    // Body: up to an end token, or (end token dropped) the next message's header, or the end.
    Gathered body;
    bool terminated = false;
    for (++i; i < n; ++i) {
      Tok t = pieces[i].tok;
      if (t == Tok::kEnd || t == Tok::kCall || t == Tok::kReturn) {
        terminated = true;
        ++i;
        break;
      }
      if (t == Tok::kStart || t == Tok::kChannel) break;
      body.add(pieces[i].text);
    }
    if (is_call) {
      if (name.empty()) {
        out.error = "a harmony call names no function (to=functions. is empty)";
        return i;
      }
      if (auto args = call_arguments(body.view(), terminated, name, out))
        add_call(out, std::string(name), std::move(*args));
    } else if (first_word(channel.view()) == "analysis") {
      append_line(out.reasoning, body.view());
    } else {
      append_line(out.content, body.view());  // final, a commentary preamble, or no channel
    }
    return i;
  }
};

}  // namespace

std::unique_ptr<ToolCallFormat> make_harmony_format() {
  return std::make_unique<HarmonyFormat>();
}

}  // namespace keel::detail
