// Gemma (2 / 3, prompted function calling): calls are Python in a tool_code fence,
//   ```tool_code
//   get_weather(city="Paris")
//   ```
// one or more calls per block (one per line, separated by ';' or ',', or as a [f(), g()] list;
// print(f(...)) is f(...)). Keyword values are Python literals (python_call.hpp). The fence is
// explicit, so an unknown function is still a call and broken code is an error. ```tool_output
// blocks hold results the runtime gave back: they are never calls.
#include "core/parsing/formats/format_util.hpp"
#include "core/parsing/formats/formats.hpp"
#include "core/parsing/formats/python_call.hpp"
#include "core/parsing/formats/text_scan.hpp"
#include "core/text/text_util.hpp"

namespace keel::detail {
namespace {

constexpr std::string_view kFence = "```tool_code";

// Whether the fence at `pos` opens a tool_code block: at a line start, the tag alone on its line.
bool opens_block(std::string_view text, size_t pos) {
  size_t line = pos;
  while (line > 0 && (text[line - 1] == ' ' || text[line - 1] == '\t')) --line;
  if (line > 0 && text[line - 1] != '\n') return false;
  size_t after = pos + kFence.size();
  while (after < text.size() && (text[after] == ' ' || text[after] == '\t' || text[after] == '\r')) ++after;
  return after == text.size() || text[after] == '\n';
}

class GemmaFormat final : public ToolCallFormat {
 public:
  std::string_view name() const override { return "gemma"; }
  std::string_view description() const override {
    return "Gemma: ```tool_code\\nget_weather(city=\"Paris\")\\n``` blocks of Python calls";
  }
  std::span<const std::string_view> markers() const override {
    static constexpr std::string_view kMarkers[] = {kFence};
    return kMarkers;
  }

  FormatResult parse(std::string_view text, std::span<const ToolSpec> /*tools*/) const override {
    FormatResult out;
    Cuts cuts;
    Finder fences(text, "```");
    size_t pos = 0;
    for (size_t open; (open = text.find(kFence, pos)) != kNpos;) {
      if (!opens_block(text, open)) {
        pos = open + kFence.size();
        continue;
      }
      size_t body = text.find('\n', open + kFence.size());
      body = body == kNpos ? text.size() : body + 1;
      size_t close = fences.next(body);
      size_t body_end = close == kNpos ? text.size() : close;
      size_t end = close == kNpos ? text.size() : close + 3;
      read_block(text.substr(0, body_end), body, open, close == kNpos, out);
      cuts.emplace_back(open, end);
      pos = end;
    }
    out.content = text_outside(text, cuts, {"<end_of_turn>"});
    return out;
  }

 private:
  // The calls of one block, text[body, text.size()).
  static void read_block(std::string_view text, size_t body, size_t open, bool unclosed, FormatResult& out) {
    const Label where({"```tool_code block"}, open);
    std::vector<PyCallText> calls;
    std::vector<std::string> repairs;
    size_t p = body;
    while (true) {
      while (p < text.size() && (is_space(text[p]) || text[p] == ';' || text[p] == ',')) ++p;
      if (p == text.size()) break;
      PyCallsText r;
      bool printed = starts_at(text, p, "print(");
      if (text[p] == '[') {
        r = read_python_call_list_text(text, p);
      } else if (printed) {  // print(f(...)) shows f's result: the call is f(...)
        r = read_python_call_text(text, p + 6);
        size_t close = skip_space(text, r.end);
        if (r.error.empty() && (close == text.size() || text[close] != ')')) {
          r.error = close == text.size() ? "cut off before the ')' closing print("
                                         : "expected ')' closing print( at offset " + std::to_string(close);
          r.cut_off = close == text.size();
        }
        r.end = close + 1;
      } else {
        r = read_python_call_text(text, p);
      }
      if (!r.error.empty()) {
        std::string prefix =
            unclosed && r.cut_off ? ": the block was cut off before its closing ``` (" : ": invalid call (";
        return fail(out, where + prefix + r.error + ")");
      }
      for (auto& c : r.calls) calls.push_back(std::move(c));
      for (auto& fix : r.repairs) repairs.push_back(prefixed(where, std::move(fix)));
      p = r.end;
    }
    if (calls.empty()) return fail(out, where + ": the block holds no function call");
    for (size_t i = 0; i < calls.size(); ++i) {
      // The block's repairs are listed once, with its first call.
      CallDraft d{std::move(calls[i].name), std::move(calls[i].arguments),
                  i == 0 ? repairs : std::vector<std::string>{}, calls[i].valid_utf8};
      commit(out, std::move(d), where);
    }
  }
};

}  // namespace

std::unique_ptr<ToolCallFormat> make_gemma_format() {
  return std::make_unique<GemmaFormat>();
}

}  // namespace keel::detail
