// AllenAI OLMo 3: Python calls, one per line, between tags,
//   <function_calls>get_weather(city='Paris')
//   get_time()</function_calls>
// read by the shared Python call reader (python_call.hpp). A block whose body is XML (<invoke ...>)
// is another family's and left alone. A block the reply ends in after complete calls counts; a
// call cut off inside is an error. Text around the block is content.
#include "core/parsing/formats/formats.hpp"
#include "core/parsing/formats/python_call.hpp"
#include "core/parsing/formats/text_scan.hpp"
#include "core/text/text_util.hpp"

namespace keel::detail {
namespace {
namespace olmo3 {

constexpr std::string_view kOpen = "<function_calls>";
constexpr std::string_view kClose = "</function_calls>";

class Olmo3Format final : public ToolCallFormat {
 public:
  std::string_view name() const override { return "olmo3"; }
  std::string_view description() const override {
    return "OLMo 3: <function_calls>f(a=1)\\ng()</function_calls>";
  }
  std::span<const std::string_view> markers() const override {
    static constexpr std::string_view kMarkers[] = {kOpen};
    return kMarkers;
  }
  // A block whose body starts with a name (a Python call), not with a tag.
  bool detect_marked(std::string_view text) const override {
    for (size_t pos = find_literal(text, kOpen); pos != kNpos; pos = find_literal(text, kOpen, pos + kOpen.size())) {
      size_t body = skip_space(text, pos + kOpen.size());
      if (body < text.size() && name_end(text, body) > body) return true;
    }
    return false;
  }

  FormatResult parse(std::string_view text, std::span<const ToolSpec>) const override {
    FormatResult out;
    Cuts cuts;
    MarkdownCode code(text);
    size_t pos = 0;
    size_t open;
    while (!out.error && (open = find_outside_code(text, kOpen, pos, code)) != kNpos) {
      size_t body = skip_space(text, open + kOpen.size());
      if (body < text.size() && name_end(text, body) == body && !starts_at(text, body, kClose)) {
        pos = body;  // not Python calls (XML <invoke> blocks, prose)
        continue;
      }
      out.framed = true;
      size_t end = block(text, open, out);
      cuts.emplace_back(open, end);
      code.consumed(end);
      pos = end;
    }
    out.content = text_outside(text, cuts);
    return out;
  }

 private:
  // Reads the calls of the block at `open`; returns its end.
  static size_t block(std::string_view text, size_t open, FormatResult& out) {
    const Label where({kOpen}, open);
    size_t p = open + kOpen.size();
    bool any = false;
    while (true) {
      p = skip_space(text, p);
      if (any) {
        while (p < text.size() && text[p] == ',') p = skip_space(text, p + 1);
      }
      if (starts_at(text, p, kClose)) return p + kClose.size();
      if (p == text.size()) {
        if (!any) fail(out, where + ": cut off before the first call");
        return p;
      }
      PyCallsText read = read_python_call_text(text, p);
      if (!commit_python_calls(read, where, out)) {
        if (read.cut_off) return text.size();
        size_t c = text.find(kClose, p);
        return c == kNpos ? text.size() : c + kClose.size();
      }
      any = true;
      p = read.end;
    }
  }
};

}  // namespace olmo3
}  // namespace

std::unique_ptr<ToolCallFormat> make_olmo3_format() {
  return std::make_unique<olmo3::Olmo3Format>();
}

}  // namespace keel::detail
