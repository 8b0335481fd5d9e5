// Kimi-K2 tool-call sections:
//   <|tool_calls_section_begin|><|tool_call_begin|>functions.NAME:0<|tool_call_argument_begin|>{...}
//   <|tool_call_end|>...<|tool_calls_section_end|>
// The call id `functions.NAME:IDX` names the tool NAME and is kept whole as ToolCall::id. An id
// that is a bare counter ("0") names no tool: the call is to the one registered tool whose
// parameters hold every argument given (a repair), and an error when no single tool does. The
// singular section tokens (<|tool_call_section_begin|>) that the model also emits are accepted.
// Text outside the section is content; <|im_end|> is dropped. A call without <|tool_call_end|>
// counts when its JSON is complete and is an error when it is not. Tokens right after a backtick
// are a mention in prose.
#include <array>
#include <utility>

#include "core/parsing/formats/format_util.hpp"
#include "core/parsing/formats/formats.hpp"
#include "core/parsing/formats/special_tokens.hpp"
#include "core/parsing/json/json_view.hpp"
#include "core/parsing/json/json_repair.hpp"
#include "core/text/text_util.hpp"

namespace keel::detail {
namespace {

constexpr size_t npos = std::string_view::npos;

enum class Tok { kText, kSection, kCallBegin, kArgBegin, kCallEnd, kOther };

constexpr std::array<std::pair<std::string_view, Tok>, 8> kTokens = {{
    {"<|tool_calls_section_begin|>", Tok::kSection},
    {"<|tool_call_section_begin|>", Tok::kSection},
    {"<|tool_calls_section_end|>", Tok::kSection},
    {"<|tool_call_section_end|>", Tok::kSection},
    {"<|tool_call_begin|>", Tok::kCallBegin},
    {"<|tool_call_argument_begin|>", Tok::kArgBegin},
    {"<|tool_call_end|>", Tok::kCallEnd},
    {"<|im_end|>", Tok::kOther},
}};
constexpr auto kTable = special_tokens("<|", kTokens);

using Piece = TokenPiece<Tok>;

// Splits the reply into text and special tokens in one pass.
TokenPieces<Tok> tokenize(std::string_view s) {
  return split_special_tokens(s, kTable);
}

std::optional<std::string> call_arguments(std::string_view body, bool terminated, std::string_view name,
                                          FormatResult& out) {
  return special_call_arguments(body, terminated, name, "<|tool_call_end|>", out);
}

// NAME from a call id `functions.NAME:IDX` (either part may be missing).
std::string name_from_id(std::string_view id) {
  if (id.substr(0, 10) == "functions.") id.remove_prefix(10);
  size_t colon = id.rfind(':');
  if (colon != npos && colon + 1 < id.size() && id.find_first_not_of("0123456789", colon + 1) == npos) {
    id = id.substr(0, colon);
  }
  return std::string(id);
}

// The registered tool a bare-counter call is to: the only one whose declared parameters hold every
// key of `args` (a JSON object); empty when none or several do.
std::string tool_for_arguments(std::span<const ToolSpec> tools, std::string_view args) {
  const LenientText parsed = parse_json_lenient_text(args);
  if (!parsed.ok() || !parsed.view().is_object()) return {};
  const JsonView object = parsed.view();
  std::string found;
  for (const ToolSpec& t : tools) {
    ParameterTypes types(tools, t.name);
    bool holds = true;
    JsonView::Items it = object.items();
    JsonView key, value;
    while (holds && it.next(key, value)) holds = types.declared(key.str());
    if (!holds) continue;
    if (!found.empty()) return {};  // several fit: not ours to pick
    found = t.name;
  }
  return found;
}

class KimiK2Format final : public ToolCallFormat {
 public:
  std::string_view name() const override { return "kimi_k2"; }
  std::string_view description() const override {
    return "Kimi-K2: <|tool_calls_section_begin|><|tool_call_begin|>functions.NAME:0<|tool_call_argument_begin|>{...}"
           "<|tool_call_end|>";
  }
  std::span<const std::string_view> markers() const override {
    static constexpr std::string_view kMarkers[] = {"<|tool_call_begin|>", "<|tool_calls_section_begin|>",
                                                    "<|tool_call_section_begin|>"};
    return kMarkers;
  }

  FormatResult parse(std::string_view text, std::span<const ToolSpec> tools) const override {
    FormatResult out;
    TokenPieces<Tok> pieces = tokenize(text);
    size_t i = 0;
    while (i < pieces.size() && !out.error) {
      Tok t = pieces[i].tok;
      if (t == Tok::kCallBegin) {  // also accepted without the section token
        i = call(pieces, i + 1, tools, out);
        continue;
      }
      // Prose (inside the section too: it is no call); section tokens and <|im_end|> drop.
      if (t == Tok::kText) append_line(out.content, pieces[i].text);
      if (t == Tok::kSection) out.framed = true;
      ++i;
    }
    return out;
  }

 private:
  // Reads the call after <|tool_call_begin|> at pieces[i]; returns the index after it.
  static size_t call(const TokenPieces<Tok>& pieces, size_t i, std::span<const ToolSpec> tools, FormatResult& out) {
    Gathered head;
    Gathered body;
    bool arg = false;
    for (; i < pieces.size(); ++i) {
      Tok t = pieces[i].tok;
      if (t == Tok::kText) {
        (arg ? body : head).add(pieces[i].text);
      } else if (t == Tok::kArgBegin && !arg) {
        arg = true;
      } else {
        break;
      }
    }
    bool cut_off = i >= pieces.size();  // the reply ended inside the call
    bool terminated = !cut_off && pieces[i].tok == Tok::kCallEnd;
    if (terminated) ++i;
    std::string id(trim(head.view()));
    if (!arg) {
      out.error = "the Kimi-K2 call '" + id + "' " + (cut_off ? "was cut off before" : "has no") +
                  " <|tool_call_argument_begin|>";
      return i;
    }
    std::string name = name_from_id(id);
    const bool counter = !name.empty() && name.find_first_not_of("0123456789") == npos;
    if (name.empty() || counter) {
      std::optional<std::string> args = call_arguments(body.view(), terminated, "call " + id, out);
      if (!args) return i;
      name = tool_for_arguments(tools, *args);
      if (name.empty()) {
        out.error = "the Kimi-K2 call '" + id + "' names no function, and no single registered tool takes its arguments";
        return i;
      }
      out.repairs.push_back("the Kimi-K2 call '" + id + "' names no function: it is to '" + name +
                            "', the one registered tool that takes its arguments");
      add_call(out, std::move(name), std::move(*args), std::move(id));
      return i;
    }
    if (auto args = call_arguments(body.view(), terminated, name, out)) {
      add_call(out, std::move(name), std::move(*args), std::move(id));
    }
    return i;
  }
};

}  // namespace

std::unique_ptr<ToolCallFormat> make_kimi_k2_format() {
  return std::make_unique<KimiK2Format>();
}

}  // namespace keel::detail
