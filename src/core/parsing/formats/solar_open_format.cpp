// Upstage Solar Open: the reply is a run of sections after the prompt's <|begin|>assistant,
//   <|think|>REASONING<|end|><|begin|>assistant<|content|>ANSWER<|end|>
//   <|begin|>assistant<|tool_calls|><|tool_call:begin|>ID<|tool_call:name|>NAME
//   <|tool_call:args|>{json}<|tool_call:end|>...<|calls|>
// The call id (ten random letters and digits, or nothing) is kept as ToolCall::id. <|flush|>,
// which the model writes between an answer and its calls, is dropped. Text in no section is
// content; a reply that ends inside <|think|> is all reasoning. A call without <|tool_call:end|>
// counts when its JSON is complete and is an error when it is not. Tokens right after a backtick
// are a mention in prose.
#include <array>
#include <utility>

#include "core/parsing/formats/format_util.hpp"
#include "core/parsing/formats/formats.hpp"
#include "core/parsing/formats/special_tokens.hpp"
#include "core/parsing/formats/text_scan.hpp"
#include "core/text/text_util.hpp"

namespace keel::detail {
namespace {
namespace solar_open {

enum class Tok {
  kText,
  kBegin,
  kEnd,
  kThink,
  kContent,
  kToolCalls,
  kCallBegin,
  kName,
  kArgs,
  kCallEnd,
  kCalls,
  kFlush
};

constexpr std::string_view kCallEndToken = "<|tool_call:end|>";
constexpr std::array<std::pair<std::string_view, Tok>, 11> kTokens = {{
    {"<|begin|>", Tok::kBegin},
    {"<|end|>", Tok::kEnd},
    {"<|think|>", Tok::kThink},
    {"<|content|>", Tok::kContent},
    {"<|tool_calls|>", Tok::kToolCalls},
    {"<|tool_call:begin|>", Tok::kCallBegin},
    {"<|tool_call:name|>", Tok::kName},
    {"<|tool_call:args|>", Tok::kArgs},
    {kCallEndToken, Tok::kCallEnd},
    {"<|calls|>", Tok::kCalls},
    {"<|flush|>", Tok::kFlush},
}};
constexpr auto kTable = special_tokens("<|", kTokens);

using Pieces = TokenPieces<Tok>;

// Reads the call whose <|tool_call:begin|> is pieces[i], at offset `at`; returns the index after it.
size_t read_call(const Pieces& pieces, size_t i, size_t at, FormatResult& out) {
  const size_t n = pieces.size();
  Gathered id, name, args;
  Gathered* into = &id;
  int part = 0;  // 0: the id, 1: the name, 2: the arguments
  for (++i; i < n; ++i) {
    const Tok t = pieces[i].tok;
    if (t == Tok::kText) {
      into->add(pieces[i].text);
    } else if (t == Tok::kName && part == 0) {
      part = 1;
      into = &name;
    } else if (t == Tok::kArgs && part == 1) {
      part = 2;
      into = &args;
    } else {
      break;
    }
  }
  const bool terminated = i < n && pieces[i].tok == Tok::kCallEnd;
  if (terminated) ++i;
  const std::string call_name(trim(name.view()));
  const Label where({"the Solar Open call"}, at);  // written only for a message
  if (part < 2) {
    const bool cut = i >= n;
    out.error = where + (cut ? " was cut off before " : " has no ") +
                std::string(part == 0 ? "<|tool_call:name|>" : "<|tool_call:args|>");
    return i;
  }
  if (call_name.empty()) {
    out.error = where + " names no tool";
    return i;
  }
  if (auto a = special_call_arguments(args.view(), terminated, call_name, kCallEndToken, out)) {
    add_call(out, std::string(call_name), std::move(*a), std::string(trim(id.view())));
  } else if (out.error) {
    *out.error = where + ": " + *out.error;
  }
  return i;
}

class SolarOpenFormat final : public ToolCallFormat {
 public:
  std::string_view name() const override { return "solar_open"; }
  std::string_view description() const override {
    return "Solar Open: <|tool_calls|><|tool_call:begin|>ID<|tool_call:name|>N<|tool_call:args|>{...}"
           "<|tool_call:end|><|calls|>; <|think|>, <|content|>";
  }
  // "<|tool_call:" opens each part of a call; the section tokens frame the answer and reasoning.
  std::span<const std::string_view> markers() const override {
    static constexpr std::string_view kMarkers[] = {"<|tool_call:", "<|content|>", "<|think|>"};
    return kMarkers;
  }

  FormatResult parse(std::string_view text, std::span<const ToolSpec>) const override {
    FormatResult out;
    const Pieces pieces = split_special_tokens(text, kTable);
    enum class Section { kNone, kThink, kContent, kCalls } section = Section::kNone;
    bool role = false;  // right after <|begin|>: the role's name follows
    size_t at = 0;      // the offset of pieces[i] (the pieces cover the text in order)
    for (size_t i = 0; i < pieces.size() && !out.error;) {
      const Tok t = pieces[i].tok;
      if (t != Tok::kText) out.framed = true;
      switch (t) {
        case Tok::kText:
          if (role) {  // "assistant" (a role written with prose after it keeps the prose)
            std::string_view rest = trim(pieces[i].text);
            if (rest.starts_with("assistant")) rest.remove_prefix(9);
            append_line(section == Section::kThink ? out.reasoning : out.content, rest);
          } else {
            append_line(section == Section::kThink ? out.reasoning : out.content, pieces[i].text);
          }
          break;
        case Tok::kThink:
          section = Section::kThink;
          break;
        case Tok::kContent:
          section = Section::kContent;
          break;
        case Tok::kToolCalls:
          section = Section::kCalls;
          break;
        case Tok::kCallBegin: {  // also read where <|tool_calls|> was left out
          const size_t next = read_call(pieces, i, at, out);
          for (; i < next; ++i) at += pieces[i].text.size();
          section = Section::kCalls;
          role = false;
          continue;
        }
        case Tok::kBegin:
        case Tok::kEnd:
        case Tok::kCalls:
          section = Section::kNone;
          break;
        default:  // <|flush|>, and a stray part of a call
          break;
      }
      role = t == Tok::kBegin;
      at += pieces[i].text.size();
      ++i;
    }
    return out;
  }
};

}  // namespace solar_open
}  // namespace

std::unique_ptr<ToolCallFormat> make_solar_open_format() {
  return std::make_unique<solar_open::SolarOpenFormat>();
}

}  // namespace keel::detail
