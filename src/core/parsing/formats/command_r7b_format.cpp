// Cohere Command R7B and Command A (<|START_TEXT|>...<|END_TEXT|> for the response; with reasoning
// on, the reply starts inside the thinking block, so text before a first <|END_THINKING|> is
// reasoning):
//   <|START_THINKING|>...<|END_THINKING|>                                  reasoning
//   <|START_ACTION|>[{"tool_call_id": "0", "tool_name": NAME, "parameters": {...}}, ...]<|END_ACTION|>
//   <|START_RESPONSE|>...<|END_RESPONSE|>                                  the answer (content)
// Citation tags in the thinking and the response (<co>span</co: 0:[1]>) are dropped, the spans kept.
// tool_call_id is kept as ToolCall::id; a single action object instead of a list is accepted.
// An action block without <|END_ACTION|> counts when its JSON is complete and is an error when it
// is not. <|END_OF_TURN_TOKEN|> and Command R+'s <|CHATBOT_TOKEN|> are dropped; tokens right after
// a backtick, and an action block that holds no JSON, are a mention in prose.
#include <array>
#include <deque>
#include <nlohmann/json.hpp>
#include <utility>

#include "core/parsing/formats/format_util.hpp"
#include "core/parsing/formats/formats.hpp"
#include "core/parsing/formats/special_tokens.hpp"
#include "core/parsing/json/json_repair.hpp"
#include "core/text/text_util.hpp"

namespace keel::detail {
namespace {

constexpr size_t npos = std::string_view::npos;

enum class Tok { kText, kThink, kThinkEnd, kAction, kActionEnd, kResponse, kResponseEnd, kEot, kChatbot };

constexpr std::array<std::pair<std::string_view, Tok>, 10> kTokens = {{
    {"<|START_THINKING|>", Tok::kThink},
    {"<|END_THINKING|>", Tok::kThinkEnd},
    {"<|START_ACTION|>", Tok::kAction},
    {"<|END_ACTION|>", Tok::kActionEnd},
    {"<|START_RESPONSE|>", Tok::kResponse},
    {"<|END_RESPONSE|>", Tok::kResponseEnd},
    {"<|END_OF_TURN_TOKEN|>", Tok::kEot},
    {"<|CHATBOT_TOKEN|>", Tok::kChatbot},
    {"<|START_TEXT|>", Tok::kResponse},  // Command A's names for the response block
    {"<|END_TEXT|>", Tok::kResponseEnd},
}};
constexpr auto kTable = special_tokens("<|", kTokens);

using Piece = TokenPiece<Tok>;

// Splits the reply into text and special tokens in one pass.
TokenPieces<Tok> tokenize(std::string_view s) {
  return split_special_tokens(s, kTable);
}

// A tool_call_id as text: a string's value, any other JSON value as nlohmann writes it.
std::string call_id(JsonView v) {
  if (v.is_string()) return v.str();
  return nlohmann::json::parse(v.raw()).dump();
}

// `text` without Command's grounding citation tags, which wrap cited spans in the thinking and
// the response: <co>span</co: 0:[1,2]> (also <co: 0:[1]>span</co>). Nothing but those tags is
// dropped; text without "<co" is returned as it is.
std::string_view without_citations(std::string_view text, std::string& buf) {
  size_t at = text.find("<co");
  if (at == npos && text.find("</co") == npos) return text;
  buf.clear();
  size_t from = 0;
  for (at = text.find('<'); at != npos; at = text.find('<', at + 1)) {
    const size_t name = at + (at + 1 < text.size() && text[at + 1] == '/' ? 2 : 1);
    if (text.compare(name, 2, "co") != 0 || name + 2 >= text.size()) continue;
    if (text[name + 2] != '>' && text[name + 2] != ':') continue;
    const size_t end = text.find('>', name + 2);
    if (end == npos) break;
    buf.append(text.substr(from, at - from));
    from = end + 1;
    at = end;
  }
  buf.append(text.substr(from));
  return buf;
}

// Adds action number `n` ({"tool_call_id", "tool_name", "parameters"}); false with out.error set
// when it is unusable.
bool add_action(JsonView a, size_t n, FormatResult& out) {
  const auto [name, params, id] = a.find_each({"tool_name", "parameters", "tool_call_id"});
  if (!name || !name->is_string() || name->raw().size() == 2) {
    out.error = "action " + std::to_string(n) + " has no \"tool_name\"";
    return false;
  }
  return add_view_call(out, name->str(), params, id ? call_id(*id) : std::string());
}

// A list of action objects missing the commas between them, [{...}{...}]; true when every
// element is an action object (the calls are then added).
bool spaced_actions(std::string_view list, FormatResult& out) {
  std::deque<LenientText> elements;  // a LenientText must not move once its view is read
  for (size_t pos = 1;;) {
    const size_t at = skip_blanks(list, pos);
    if (at >= list.size()) return false;
    if (list[at] == ']') break;
    if (list[at] == ',' && !elements.empty()) {
      pos = at + 1;
      continue;
    }
    if (list[at] != '{') return false;
    LenientText& e = elements.emplace_back();
    bool open = false;
    pos = lenient_json_at(list, at, e, open);
    if (open || !e.ok() || !e.view().is_object()) return false;
  }
  if (elements.empty()) return false;
  out.repairs.push_back("the action block: read a list of actions without commas");
  size_t n = 0;
  for (const auto& e : elements) {
    if (!add_action(e.view(), ++n, out)) break;
  }
  return true;
}

// The calls of one action block's JSON text; false when the block holds prose, not JSON.
bool actions(std::string_view body, bool terminated, FormatResult& out) {
  std::string_view b = trim(body);
  if (!b.empty() && b[0] != '[' && b[0] != '{') return false;
  if (b.empty()) {
    out.error = terminated ? "an empty <|START_ACTION|> block" : "the action block was cut off before its JSON";
    return true;
  }
  LenientText parsed;
  if (!terminated && json_extent(b, 0) == npos) {
    parsed = parse_json_lenient_text(b);
    out.error = "the action block was cut off before <|END_ACTION|>: its JSON is " +
                (parsed.ok() ? std::string("not closed") : "incomplete (" + parsed.error + ")");
    return true;
  }
  parsed = parse_json_lenient_text(b);
  if (!parsed.ok()) {
    if (b[0] == '[' && spaced_actions(b, out)) return true;
    out.error = "the action block: " + parsed.error;
    return true;
  }
  for (auto& r : parsed.repairs) out.repairs.push_back(prefixed("the action block", std::move(r)));
  const JsonView v = parsed.view();
  if (!v.is_object() && (!v.is_array() || v.empty())) {
    out.error = "the action block must be a list of actions";
    return true;
  }
  size_t n = 0;
  if (v.is_object()) {
    add_action(v, ++n, out);
    return true;
  }
  JsonView::Items it = v.items();
  JsonView key, a;
  while (it.next(key, a) && add_action(a, ++n, out)) {
  }
  return true;
}

class CommandR7bFormat final : public ToolCallFormat {
 public:
  std::string_view name() const override { return "command_r7b"; }
  std::string_view description() const override {
    return "Command R7B: <|START_THINKING|>, <|START_ACTION|>[{\"tool_name\", \"parameters\"}]<|END_ACTION|>, "
           "<|START_RESPONSE|>";
  }
  std::span<const std::string_view> markers() const override {
    // "<|START_T" and "<|END_T" stand for <|START_THINKING|>, <|START_TEXT|>, <|END_THINKING|> and
    // <|END_TEXT|>: no marker holds an 'X', which would cost the shared scan one more key byte.
    static constexpr std::string_view kMarkers[] = {"<|START_ACTION|>", "<|START_RESPONSE|>", "<|CHATBOT_TOKEN|>",
                                                    "<|START_T", "<|END_T"};
    return kMarkers;
  }

  FormatResult parse(std::string_view text, std::span<const ToolSpec>) const override {
    FormatResult out;
    TokenPieces<Tok> pieces = tokenize(text);
    size_t i = 0;
    // With reasoning on, the prompt opens <|START_THINKING|>: the reply starts inside it.
    for (size_t k = 0; k < pieces.size() && pieces[k].tok != Tok::kThink; ++k) {
      if (pieces[k].tok != Tok::kThinkEnd) continue;
      for (size_t r = 0; r < k; ++r) {
        if (pieces[r].tok == Tok::kText) append_line(out.reasoning, pieces[r].text);
      }
      out.framed = true;
      i = k + 1;
      break;
    }
    while (i < pieces.size() && !out.error) {
      Tok t = pieces[i].tok;
      if (t == Tok::kText) append_line(out.content, pieces[i].text);
      // Command's own tokens other than the action block's: the reply is in this format.
      if (t != Tok::kText && t != Tok::kAction && t != Tok::kActionEnd) out.framed = true;
      if (t != Tok::kThink && t != Tok::kAction && t != Tok::kResponse) {
        ++i;  // text done above; stray end tokens and <|END_OF_TURN_TOKEN|> drop
        continue;
      }
      // A block: text up to its end token, another block's start, or the end of the reply.
      Tok end = t == Tok::kThink ? Tok::kThinkEnd : t == Tok::kAction ? Tok::kActionEnd : Tok::kResponseEnd;
      Gathered gathered;  // a view of the reply unless the block's text comes in several pieces
      for (++i; i < pieces.size() && pieces[i].tok != end; ++i) {
        Tok b = pieces[i].tok;
        if (b == Tok::kThink || b == Tok::kAction || b == Tok::kResponse) break;
        if (b == Tok::kText) gathered.add(pieces[i].text);
      }
      const std::string_view body = gathered.view();
      bool terminated = i < pieces.size() && pieces[i].tok == end;
      if (terminated) ++i;
      std::string plain;
      if (t == Tok::kThink) {
        append_line(out.reasoning, without_citations(body, plain));
      } else if (t == Tok::kResponse) {
        append_line(out.content, without_citations(body, plain));
      } else if (!actions(body, terminated, out)) {  // prose between the tokens: keep it as written
        append_line(out.content, concat({"<|START_ACTION|>", body, terminated ? "<|END_ACTION|>" : ""}));
      }
    }
    return out;
  }
};

}  // namespace

std::unique_ptr<ToolCallFormat> make_command_r7b_format() {
  return std::make_unique<CommandR7bFormat>();
}

}  // namespace keel::detail
