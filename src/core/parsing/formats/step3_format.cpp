// StepFun Step-3: a section of special tokens around XML calls in the steptml namespace,
//   <｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜>get_weather
//   <steptml:invoke name="get_weather"><steptml:parameter name="city">Paris</steptml:parameter>
//   </steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>
// The `function<｜tool_sep｜>NAME` header is optional (the invoke element names the tool);
// <｜tool_sep｜> between calls is skipped. Values are typed by the tool's JSON Schema and
// strings keep their whitespace (xml_invoke.hpp). Text outside the section is content.
#include "core/parsing/formats/formats.hpp"
#include "core/parsing/formats/text_scan.hpp"
#include "core/parsing/formats/xml_invoke.hpp"
#include "core/text/text_util.hpp"

namespace keel::detail {
namespace {
namespace step3 {

constexpr std::string_view kSectionBegin = "<｜tool_calls_begin｜>";
constexpr std::string_view kSectionEnd = "<｜tool_calls_end｜>";
constexpr std::string_view kCallBegin = "<｜tool_call_begin｜>";
constexpr std::string_view kCallEnd = "<｜tool_call_end｜>";
constexpr std::string_view kSep = "<｜tool_sep｜>";
constexpr XmlInvokeTags kTags{"<steptml:invoke", "</steptml:invoke>", "<steptml:parameter", "</steptml:parameter>",
                              false};

// The first section or call token at or after `from`.
size_t next_start(std::string_view text, size_t from) {
  size_t a = find_literal(text, kSectionBegin, from);
  size_t b = find_literal(text, kCallBegin, from);
  return a < b ? a : b;
}

class Step3Format final : public ToolCallFormat {
 public:
  std::string_view name() const override { return "step3"; }
  std::string_view description() const override {
    return "Step-3: <｜tool_calls_begin｜><｜tool_call_begin｜><steptml:invoke name=\"N\">"
           "<steptml:parameter name=\"K\">v</steptml:parameter></steptml:invoke><｜tool_call_end｜>";
  }
  std::span<const std::string_view> markers() const override {
    static constexpr std::string_view kMarkers[] = {"<｜tool_call"};  // the prefix of both begin tokens
    return kMarkers;
  }

  FormatResult parse(std::string_view text, std::span<const ToolSpec> tools) const override {
    FormatResult out;
    Cuts cuts;
    size_t pos = 0;
    size_t open;
    while (!out.error && (open = next_start(text, pos)) != kNpos) {
      out.framed = true;
      size_t p = open;
      size_t end = kNpos;
      bool any = false;
      while (!out.error && end == kNpos) {
        size_t q = skip_space(text, p);
        if (q == text.size()) {
          end = q;
        } else if (starts_at(text, q, kSectionEnd)) {
          end = q + kSectionEnd.size();
        } else if (starts_at(text, q, kSectionBegin) || starts_at(text, q, kCallBegin) ||
                   starts_at(text, q, kCallEnd) || starts_at(text, q, kSep)) {
          p = q + (starts_at(text, q, kSectionBegin) ? kSectionBegin.size()
                   : starts_at(text, q, kCallBegin)  ? kCallBegin.size()
                   : starts_at(text, q, kCallEnd)    ? kCallEnd.size()
                                                     : kSep.size());
        } else if (starts_at(text, q, "function") && starts_at(text, skip_space(text, q + 8), kSep)) {
          size_t name = skip_space(text, q + 8) + kSep.size();
          size_t nl = text.find('\n', name);
          size_t inv = find_literal(text, kTags.invoke, name);
          p = nl < inv ? nl : inv;  // the header names the tool again: the invoke element decides
          if (p == kNpos) {
            fail(out, "the Step-3 call at offset " + std::to_string(q) + " was cut off before <steptml:invoke");
            end = text.size();
          }
        } else if (starts_at(text, q, kTags.invoke)) {
          XmlInvokeRead r = read_xml_invoke(text, q, kTags, tools, out);
          p = r.end;
          any = any || r.ok;
          if (r.cut_off) end = r.end;
        } else if (any) {
          end = q;  // prose after the calls of a section that lost its end token
        } else {
          fail(out, "the Step-3 tool-call section at offset " + std::to_string(open) +
                        ": expected <steptml:invoke at offset " + std::to_string(q) + ", found " + shown_char(text, q));
          size_t e = find_literal(text, kSectionEnd, q);
          end = e == kNpos ? text.size() : e + kSectionEnd.size();
        }
      }
      if (end == kNpos) end = text.size();
      cuts.emplace_back(open, end);
      pos = end;
    }
    out.content = text_outside(text, cuts);
    return out;
  }
};

}  // namespace step3
}  // namespace

std::unique_ptr<ToolCallFormat> make_step3_format() {
  return std::make_unique<step3::Step3Format>();
}

}  // namespace keel::detail
