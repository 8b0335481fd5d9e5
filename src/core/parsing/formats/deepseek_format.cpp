// DeepSeek tool-call sections, with the tokens exactly as the chat templates print them
// (fullwidth bar U+FF5C, lower one-eighth block U+2581):
//   R1 / V3-0324:  <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME
//                  ```json\n{...}\n```<｜tool▁call▁end｜>...<｜tool▁calls▁end｜>
//   V3.1:          <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{...}<｜tool▁call▁end｜>...
// Text outside the section is content; <｜end▁of▁sentence｜> is dropped. A call without
// <｜tool▁call▁end｜> counts when its JSON is complete (the reply stopped after it) and is an
// error when it is not. Tokens right after a backtick are a mention in prose.
#include <array>
#include <utility>

#include "core/parsing/formats/format_util.hpp"
#include "core/parsing/formats/formats.hpp"
#include "core/parsing/formats/special_tokens.hpp"
#include "core/parsing/json/json_repair.hpp"
#include "core/text/text_util.hpp"

namespace keel::detail {
namespace {

constexpr size_t npos = std::string_view::npos;

enum class Tok { kText, kCallsBegin, kCallBegin, kSep, kCallEnd, kCallsEnd, kEos };

constexpr std::string_view kCallEndToken = "<｜tool▁call▁end｜>";
constexpr std::array<std::pair<std::string_view, Tok>, 6> kTokens = {{
    {"<｜tool▁calls▁begin｜>", Tok::kCallsBegin},
    {"<｜tool▁call▁begin｜>", Tok::kCallBegin},
    {"<｜tool▁sep｜>", Tok::kSep},
    {kCallEndToken, Tok::kCallEnd},
    {"<｜tool▁calls▁end｜>", Tok::kCallsEnd},
    {"<｜end▁of▁sentence｜>", Tok::kEos},
}};
constexpr std::string_view kPrefix = "<｜";
constexpr auto kTable = special_tokens(kPrefix, kTokens);

using Piece = TokenPiece<Tok>;

// Splits the reply into text and special tokens in one pass.
TokenPieces<Tok> tokenize(std::string_view s) {
  return split_special_tokens(s, kTable);
}

std::optional<std::string> call_arguments(std::string_view body, bool terminated, std::string_view name,
                                          FormatResult& out) {
  return special_call_arguments(body, terminated, name, kCallEndToken, out);
}

// R1's arguments: an optional ```json fence around the JSON.
std::string_view unfence(std::string_view s) {
  s = trim(s);
  if (s.substr(0, 3) != "```") return s;
  size_t nl = s.find('\n');
  if (nl == npos) return {};  // cut off inside the fence line
  s = trim(s.substr(nl + 1));
  if (s.size() >= 3 && s.substr(s.size() - 3) == "```") s = trim(s.substr(0, s.size() - 3));
  return s;
}

class DeepSeekFormat final : public ToolCallFormat {
 public:
  std::string_view name() const override { return "deepseek"; }
  std::string_view description() const override {
    return "DeepSeek R1/V3/V3.1: "
           "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>[function<｜tool▁sep｜>]NAME...<｜tool▁call▁end｜>";
  }
  std::span<const std::string_view> markers() const override {
    static constexpr std::string_view kMarkers[] = {"<｜tool▁call"};
    return kMarkers;
  }

  FormatResult parse(std::string_view text, std::span<const ToolSpec>) const override {
    FormatResult out;
    TokenPieces<Tok> pieces = tokenize(text);
    size_t i = 0;
    while (i < pieces.size() && !out.error) {
      Tok t = pieces[i].tok;
      if (t == Tok::kCallBegin) {  // also accepted without <｜tool▁calls▁begin｜>
        i = call(pieces, i + 1, out);
        continue;
      }
      // Prose (inside the section too: it is no call); section tokens and <｜end▁of▁sentence｜> drop.
      if (t == Tok::kText) append_line(out.content, pieces[i].text);
      ++i;
    }
    return out;
  }

 private:
  // Reads the call after <｜tool▁call▁begin｜> at pieces[i]; returns the index after it.
  static size_t call(const TokenPieces<Tok>& pieces, size_t i, FormatResult& out) {
    Gathered head;
    Gathered body;
    bool sep = false;
    for (; i < pieces.size(); ++i) {
      Tok t = pieces[i].tok;
      if (t == Tok::kText) {
        (sep ? body : head).add(pieces[i].text);
      } else if (t == Tok::kSep && !sep) {
        sep = true;
      } else {
        break;
      }
    }
    bool cut_off = i >= pieces.size();  // the reply ended inside the call
    bool terminated = !cut_off && pieces[i].tok == Tok::kCallEnd;
    if (terminated) ++i;
    if (!sep) {
      out.error = cut_off ? "a DeepSeek tool call was cut off before <｜tool▁sep｜>"
                          : "a DeepSeek tool call has no <｜tool▁sep｜>";
      return i;
    }
    std::string_view h = trim(head.view());
    std::string_view b = trim(body.view());
    std::string name;
    std::string_view json_text;
    if (h != "function" || (!b.empty() && b[0] == '{')) {  // V3.1: NAME<｜tool▁sep｜>{...}
      name = std::string(h);
      json_text = b;
    } else {  // R1 / V3: function<｜tool▁sep｜>NAME\n```json\n{...}\n```
      size_t nl = b.find('\n');
      name = std::string(trim(b.substr(0, nl)));
      json_text = nl == npos ? std::string_view() : unfence(b.substr(nl + 1));
    }
    if (name.empty()) {
      out.error = "a DeepSeek tool call names no function";
      return i;
    }
    if (auto args = call_arguments(json_text, terminated, name, out)) add_call(out, std::move(name), std::move(*args));
    return i;
  }
};

}  // namespace

std::unique_ptr<ToolCallFormat> make_deepseek_format() {
  return std::make_unique<DeepSeekFormat>();
}

}  // namespace keel::detail
