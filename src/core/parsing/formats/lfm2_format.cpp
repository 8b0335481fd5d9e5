// Liquid LFM2 / LFM2.5: a Python list of calls between special tokens,
//   <|tool_call_start|>[get_weather(city='Paris'), get_time()]<|tool_call_end|>
// read by the shared Python call reader (python_call.hpp): keyword arguments with Python literal
// values, dotted names kept whole; a list of JSON {"name", "arguments"} objects is read as JSON.
// An empty list is no call. A list the reply ends in after its
// closing bracket counts; one cut off inside is an error. A copy of the list repeated right after
// the end token (with its own end token) is an echo and dropped. Text outside the blocks is content.
#include "core/parsing/formats/format_util.hpp"
#include "core/parsing/formats/formats.hpp"
#include "core/parsing/formats/python_call.hpp"
#include "core/parsing/formats/text_scan.hpp"
#include "core/text/text_util.hpp"

namespace keel::detail {
namespace {
namespace lfm2 {

constexpr std::string_view kOpen = "<|tool_call_start|>";
constexpr std::string_view kClose = "<|tool_call_end|>";

class Lfm2Format final : public ToolCallFormat {
 public:
  std::string_view name() const override { return "lfm2"; }
  std::string_view description() const override {
    return "LFM2: <|tool_call_start|>[f(a=1), g()]<|tool_call_end|>";
  }
  std::span<const std::string_view> markers() const override {
    static constexpr std::string_view kMarkers[] = {"<|tool"};  // shared with Gemma 4's and Apertus' tokens
    return kMarkers;
  }
  bool detect_marked(std::string_view text) const override { return find_literal(text, kOpen) != kNpos; }

  FormatResult parse(std::string_view text, std::span<const ToolSpec>) const override {
    FormatResult out;
    Cuts cuts;
    size_t pos = 0;
    size_t open;
    while (!out.error && (open = find_literal(text, kOpen, pos)) != kNpos) {
      out.framed = true;
      size_t end = block(text, open, out);
      cuts.emplace_back(open, end);
      pos = end;
    }
    out.content = text_outside(text, cuts, {"<|im_end|>"});
    return out;
  }

 private:
  // Reads the block at `open`; returns its end.
  static size_t block(std::string_view text, size_t open, FormatResult& out) {
    const Label where({kOpen}, open);
    size_t p = skip_space(text, open + kOpen.size());
    auto closed_at = [&](size_t q) {
      q = skip_space(text, q);
      return starts_at(text, q, kClose) ? q + kClose.size() : q;
    };
    if (p == text.size()) {
      fail(out, where + ": cut off before the list of calls");
      return p;
    }
    if (text[p] != '[') {
      fail(out, where + ": expected a list of calls [f(...)] at offset " + std::to_string(p) + ", found " +
                    shown_char(text, p));
      size_t c = text.find(kClose, p);
      return c == kNpos ? text.size() : c + kClose.size();
    }
    size_t inner = skip_space(text, p + 1);
    if (inner < text.size() && text[inner] == ']') return closed_at(inner + 1);  // no call
    if (inner < text.size() && text[inner] == '{') return json_list(text, p, where, out, closed_at);
    PyCallsText read = read_python_call_list_text(text, p);
    if (!commit_python_calls(read, where, out)) {
      if (read.cut_off) return text.size();
      size_t c = text.find(kClose, p);
      return c == kNpos ? text.size() : c + kClose.size();
    }
    size_t end = closed_at(read.end);
    // The model sometimes repeats the list it just wrote, closed by a second end token: an echo.
    const std::string_view list = text.substr(p, read.end - p);
    if (end > read.end && starts_at(text, end, list) && starts_at(text, end + list.size(), kClose)) {
      out.repairs.push_back(where + ": dropped a repeated copy of the calls");
      end += list.size() + kClose.size();
    }
    return end;
  }

  // The list at `p` written as JSON objects {"name", "arguments"}; returns the block's end.
  template <class ClosedAt>
  static size_t json_list(std::string_view text, size_t p, const Label& where, FormatResult& out, ClosedAt closed_at) {
    LenientText parsed;
    bool open = false;
    const size_t end = lenient_json_at(text, p, parsed, open);
    if (!parsed.ok()) {
      fail(out, where + (open ? ": cut off inside the JSON list at offset " : ": invalid JSON list at offset ") +
                    std::to_string(p) + " (" + parsed.error + ")");
      return open ? text.size() : closed_at(end);
    }
    for (auto& r : parsed.repairs) out.repairs.push_back(where + ": " + r);
    JsonView::Items it = parsed.view().items();
    JsonView key, element;
    std::string why;
    while (it.next(key, element)) {
      CallDraft d;
      if (!call_from_object(element, d, where, why)) {
        fail(out, where + ": " + why);
        break;
      }
      commit(out, std::move(d), where);
    }
    return closed_at(end);
  }
};

}  // namespace lfm2
}  // namespace

std::unique_ptr<ToolCallFormat> make_lfm2_format() {
  return std::make_unique<lfm2::Lfm2Format>();
}

}  // namespace keel::detail
