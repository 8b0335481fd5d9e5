// MiniMax-M3: every tag of a call is preceded by the delimiter ]<]minimax[>[ (shown as D),
//   D<tool_call>
//   D<invoke name="get_weather">D<city>ParisD</city>D</invoke>
//   D</tool_call>
// parameters are elements named by their keys, objects and arrays nested element by element
// (minimax_m3_values.hpp); several invokes share a block (parallel calls). Reasoning comes in
// <mm:think>...</mm:think>, and a turn without it opens with a bare </mm:think>: the format
// separates it (a call written while thinking is no call). Text outside the blocks is content;
// [e~[ (end of turn) is dropped, and call markup in markdown code is an example. A block the reply
// ends in after complete calls counts; a call cut off inside is an error.
#include "core/parsing/formats/format_util.hpp"
#include "core/parsing/formats/formats.hpp"
#include "core/parsing/formats/minimax_m3_values.hpp"
#include "core/parsing/formats/tagged_reasoning.hpp"
#include "core/parsing/formats/text_scan.hpp"
#include "core/parsing/formats/xml_invoke.hpp"
#include "core/text/text_util.hpp"

namespace keel::detail {
namespace {
namespace minimax_m3 {

constexpr std::string_view kDelim = kMinimaxM3Delimiter;
constexpr std::string_view kBlock = "<tool_call>";
constexpr std::string_view kBlockClose = "</tool_call>";
constexpr std::string_view kInvoke = "<invoke";
constexpr std::string_view kInvokeClose = "</invoke>";
constexpr ReasoningTags kThink{"<mm:think>", "</mm:think>"};

// Reads the invoke whose delimiter is at `pos`; returns where reading goes on (text.size() when cut
// off, with the error set).
size_t read_invoke(std::string_view text, size_t pos, std::span<const ToolSpec> tools, FormatResult& out) {
  const Label where({"<invoke>"}, pos);
  size_t p;
  const std::string_view name = xml_name_attribute(text, pos + kDelim.size() + kInvoke.size(), p);
  if (p == kNpos) {
    fail(out, where + ": cut off inside the tool name");
    return text.size();
  }
  if (p == pos + kDelim.size() + kInvoke.size() || name.empty()) {
    fail(out, where + ": expected name=\"TOOL\"> at offset " + std::to_string(pos + kDelim.size() + kInvoke.size()));
    return p;
  }
  CallDraft draft;
  draft.name = std::string(name);
  M3Elements elements;
  std::vector<int> top;
  std::string why;
  bool cut_off = false;
  const size_t close = elements.read(text, p, top, why, cut_off);
  if (close == kNpos) {
    fail(out, where + ": the call to '" + draft.name + "': " + why);
    return cut_off ? text.size() : p;
  }
  const size_t tag = close + kDelim.size();
  if (!starts_at(text, tag, kInvokeClose)) {
    const bool cut = text.size() - tag < kInvokeClose.size() && kInvokeClose.starts_with(text.substr(tag));
    fail(out, where + ": the call to '" + draft.name + "': " + (cut ? "cut off before " : "expected ") +
                  std::string(kDelim) + std::string(kInvokeClose) + " at offset " + std::to_string(close));
    return cut ? text.size() : tag;
  }
  ParameterTypes types(tools, draft.name);
  JsonObjectWriter args;
  for (int i : top) {
    const std::string_view key = elements.at(i).key;
    args.key(key);
    if (!elements.write(text, i, types.schema_of(key), args.text())) args.mark_invalid();
  }
  draft.valid_utf8 = args.valid();
  draft.arguments = std::move(args).finish();
  commit(out, std::move(draft), where);
  return tag + kInvokeClose.size();
}

// Reads the block whose delimiter is at `open`; returns its end.
size_t read_block(std::string_view text, size_t open, std::span<const ToolSpec> tools, FormatResult& out) {
  size_t p = open + kDelim.size() + kBlock.size();
  bool any = false;
  while (!out.error) {
    const size_t q = skip_space(text, p);
    if (q == text.size()) {
      if (!any) fail(out, "<tool_call> at offset " + std::to_string(open) + ": cut off before <invoke");
      return q;
    }
    const size_t tag = q + kDelim.size();
    if (starts_at(text, q, kDelim) && starts_at(text, tag, kBlockClose)) return tag + kBlockClose.size();
    if (starts_at(text, q, kDelim) && starts_at(text, tag, kInvoke)) {
      p = read_invoke(text, q, tools, out);
      any = true;
      continue;
    }
    if (any && !starts_at(text, q, kDelim)) return q;  // prose after the calls of a block that lost its end
    const bool cut = text.size() - q < kDelim.size() + kBlockClose.size() &&
                     (std::string(kDelim) + std::string(kBlockClose)).starts_with(text.substr(q));
    if (cut && any) return text.size();
    fail(out, "<tool_call> at offset " + std::to_string(open) + ": expected " + std::string(kDelim) +
                  "<invoke at offset " + std::to_string(q) + ", found " + shown_char(text, q));
    return text.size();
  }
  return p;
}

class MinimaxM3Format final : public ToolCallFormat {
 public:
  std::string_view name() const override { return "minimax_m3"; }
  std::string_view description() const override {
    return "MiniMax-M3: ]<]minimax[>[<tool_call>]<]minimax[>[<invoke name=\"N\">]<]minimax[>[<K>v]<]minimax[>[</K>"
           "...; <mm:think> reasoning";
  }
  // The delimiter's first bytes (keyed in the shared scan by its '<', a byte other formats' markers
  // already use; its 'x' would add a key byte to every reply's scan), and the reasoning tags.
  std::span<const std::string_view> markers() const override {
    static constexpr std::string_view kMarkers[] = {"]<]minim", "mm:think>"};
    return kMarkers;
  }
  std::span<const std::string_view> stream_markers() const override {
    static constexpr std::string_view kStream[] = {kDelim, kThink.open, kThink.close};
    return kStream;
  }

  FormatResult parse(std::string_view input, std::span<const ToolSpec> tools) const override {
    FormatResult out;
    std::string visible;
    std::string_view text = input;
    if (find_literal(input, "mm:think>") != kNpos) {
      split_tagged_reasoning(input, kThink, visible, out);
      text = visible;
      out.framed = true;  // a bare </mm:think> opens every turn without reasoning
    }
    Cuts cuts;
    MarkdownCode code(text);
    size_t pos = 0;
    size_t at;
    while (!out.error && (at = find_outside_code(text, kDelim, pos, code)) != kNpos) {
      const size_t tag = at + kDelim.size();
      size_t end;
      if (starts_at(text, tag, kBlock)) {
        end = read_block(text, at, tools, out);
      } else if (starts_at(text, tag, kInvoke)) {  // an invoke whose block lost its opening tag
        end = read_invoke(text, at, tools, out);
      } else {  // a delimiter outside a call is text
        pos = tag;
        continue;
      }
      out.framed = true;
      cuts.emplace_back(at, end);
      code.consumed(end);
      pos = end;
    }
    out.content = text_outside(text, cuts, {"[e~["});
    return out;
  }
};

}  // namespace minimax_m3
}  // namespace

std::unique_ptr<ToolCallFormat> make_minimax_m3_format() {
  return std::make_unique<minimax_m3::MinimaxM3Format>();
}

}  // namespace keel::detail
