// ByteDance Seed-OSS: reasoning in <seed:think> and calls in XML blocks with untyped values,
//   <seed:think>...</seed:think>
//   <seed:tool_call>
//   <function=get_weather>
//   <parameter=city>Paris</parameter>
//   </function>
//   </seed:tool_call>
// The format separates its own reasoning (a call written while thinking is no call; a reply
// that ends inside <seed:think> is all reasoning). One leading and one trailing line break of a
// value belong to the template; the value is then typed by the tool's JSON Schema. Several
// functions may share a block. Text outside the blocks and the reasoning is content.
#include "core/parsing/formats/format_util.hpp"
#include "core/parsing/formats/formats.hpp"
#include "core/parsing/formats/special_tokens.hpp"
#include "core/parsing/formats/tagged_reasoning.hpp"
#include "core/parsing/formats/text_scan.hpp"
#include "core/text/text_util.hpp"

namespace keel::detail {
namespace {
namespace seed_oss {

constexpr std::string_view kThink = "<seed:think>";
constexpr std::string_view kThinkClose = "</seed:think>";
constexpr std::string_view kOpen = "<seed:tool_call>";
constexpr std::string_view kClose = "</seed:tool_call>";
constexpr std::string_view kFunction = "<function=";
constexpr std::string_view kFunctionClose = "</function>";
constexpr std::string_view kParam = "<parameter=";
constexpr std::string_view kParamClose = "</parameter>";

// Drops exactly one leading and one trailing line break (the template's).
std::string_view strip_one_newline(std::string_view v) {
  if (v.starts_with('\n')) v.remove_prefix(1);
  if (v.ends_with('\n')) v.remove_suffix(1);
  return v;
}

class SeedOssFormat final : public ToolCallFormat {
 public:
  std::string_view name() const override { return "seed_oss"; }
  std::string_view description() const override {
    return "Seed-OSS: <seed:tool_call><function=N><parameter=K>v</parameter></function></seed:tool_call>";
  }
  std::span<const std::string_view> markers() const override {
    static constexpr std::string_view kMarkers[] = {"<seed:", kThinkClose};  // "<seed:" covers both open tags
    return kMarkers;
  }

  FormatResult parse(std::string_view input, std::span<const ToolSpec> tools) const override {
    FormatResult out;
    std::string visible;
    std::string_view text = input;
    if (find_literal(input, "</seed:think>") != kNpos || find_literal(input, kThink) != kNpos) {
      split_tagged_reasoning(input, {kThink, kThinkClose}, visible, out);
      text = visible;
      out.framed = !out.reasoning.empty();
    }
    Cuts cuts;
    MarkdownCode code(text);
    size_t pos = 0;
    size_t open;
    while (!out.error && (open = find_outside_code(text, kOpen, pos, code)) != kNpos) {
      out.framed = true;
      size_t end = block(text, open, tools, out);
      cuts.emplace_back(open, end);
      code.consumed(end);
      pos = end;
    }
    out.content = text_outside(text, cuts);
    return out;
  }

 private:
  // Reads the block at `open`; returns its end.
  static size_t block(std::string_view text, size_t open, std::span<const ToolSpec> tools, FormatResult& out) {
    const Label where({kOpen}, open);
    size_t p = open + kOpen.size();
    bool any = false;
    while (true) {
      size_t q = skip_space(text, p);
      if (starts_at(text, q, kClose)) return q + kClose.size();
      if (q == text.size()) {
        if (!any) fail(out, where + ": cut off before <function=");
        return q;
      }
      if (!starts_at(text, q, kFunction)) {
        fail(out, where + ": expected <function=NAME> or </seed:tool_call> at offset " + std::to_string(q) +
                      ", found " + shown_char(text, q));
        size_t c = find_literal(text, kClose, q);
        return c == kNpos ? text.size() : c + kClose.size();
      }
      p = function(text, q, where, tools, out);
      if (out.error) {
        size_t c = p >= text.size() ? kNpos : find_literal(text, kClose, p);
        return c == kNpos ? text.size() : c + kClose.size();
      }
      any = true;
    }
  }

  // Reads <function=NAME>...</function> at `fn`; returns its end.
  static size_t function(std::string_view text, size_t fn, const Label& where, std::span<const ToolSpec> tools,
                         FormatResult& out) {
    size_t name_b = fn + kFunction.size();
    size_t name_e = text.find('>', name_b);
    if (name_e == kNpos) {
      fail(out, where + ": cut off inside the function name at offset " + std::to_string(name_b));
      return text.size();
    }
    CallDraft draft;
    draft.name = std::string(trim(text.substr(name_b, name_e - name_b)));
    if (draft.name.empty()) {
      fail(out, where + ": the function at offset " + std::to_string(fn) + " has no name");
      return name_e + 1;
    }
    ParameterTypes types(tools, draft.name);
    JsonObjectWriter args;
    size_t p = name_e + 1;
    while (true) {
      size_t q = skip_space(text, p);
      if (starts_at(text, q, kFunctionClose)) {
        p = q + kFunctionClose.size();
        break;
      }
      if (q == text.size()) {
        fail(out, where + ": the call to '" + draft.name + "' was cut off before </function> at offset " +
                      std::to_string(q));
        return q;
      }
      if (!starts_at(text, q, kParam)) {
        fail(out, where + ": expected <parameter=KEY> or </function> at offset " + std::to_string(q) +
                      " in the call to '" + draft.name + "'");
        return q;
      }
      size_t key_b = q + kParam.size();
      size_t key_e = text.find('>', key_b);
      size_t value_e = key_e == kNpos ? kNpos : find_literal(text, kParamClose, key_e + 1);
      if (value_e == kNpos) {
        fail(out, where + ": the call to '" + draft.name + "' was cut off inside the parameter at offset " +
                      std::to_string(q));
        return text.size();
      }
      std::string_view key = trim(text.substr(key_b, key_e - key_b));
      args.key(key);
      write_typed_parameter(args, strip_one_newline(text.substr(key_e + 1, value_e - key_e - 1)), types, key);
      p = value_e + kParamClose.size();
    }
    draft.valid_utf8 = args.valid();
    draft.arguments = std::move(args).finish();
    commit(out, std::move(draft), where);
    return p;
  }
};

}  // namespace seed_oss
}  // namespace

std::unique_ptr<ToolCallFormat> make_seed_oss_format() {
  return std::make_unique<seed_oss::SeedOssFormat>();
}

}  // namespace keel::detail
