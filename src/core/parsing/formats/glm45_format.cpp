// GLM-4.5 / GLM-4.6 (and GLM-4.7, which drops the line breaks): the tool name follows the tag and
// each argument is a key/value tag pair whose value is untyped text,
//   <tool_call>get_weather
//   <arg_key>city</arg_key>
//   <arg_value>Paris</arg_value>
//   </tool_call>
// Values are typed by the tool's JSON Schema (the template writes non-strings as JSON). The tags
// are explicit, so an unknown tool name is still a call; a call cut off before </tool_call> is an
// error (more arguments might have followed).
#include "core/parsing/formats/format_util.hpp"
#include "core/parsing/formats/formats.hpp"
#include "core/parsing/formats/text_scan.hpp"
#include "core/text/text_util.hpp"

namespace keel::detail {
namespace {

constexpr std::string_view kOpen = "<tool_call>";
constexpr std::string_view kClose = "</tool_call>";
constexpr std::string_view kKey = "<arg_key>";
constexpr std::string_view kKeyClose = "</arg_key>";
constexpr std::string_view kValue = "<arg_value>";
constexpr std::string_view kValueClose = "</arg_value>";

// End of the tool name after the tag at `body` when the body is GLM-shaped, else kNpos.
// A name running to the end of the text counts (a call cut off in its name).
size_t glm_name_end(std::string_view text, size_t body) {
  size_t name = name_end(text, body);
  if (name == body) return kNpos;
  size_t after = skip_space(text, name);
  if (after == text.size() || starts_at(text, after, kKey) || starts_at(text, after, kClose)) return name;
  return kNpos;
}

class Glm45Format final : public ToolCallFormat {
 public:
  std::string_view name() const override { return "glm45"; }
  std::string_view description() const override {
    return "GLM-4.5: <tool_call>NAME<arg_key>k</arg_key><arg_value>v</arg_value></tool_call>";
  }

  std::span<const std::string_view> markers() const override {
    static constexpr std::string_view kMarkers[] = {kOpen};
    return kMarkers;
  }
  // A <tool_call> whose body is GLM-shaped.
  bool detect_marked(std::string_view text) const override {
    for (size_t pos = find_literal(text, kOpen); pos != kNpos; pos = find_literal(text, kOpen, pos + kOpen.size())) {
      if (glm_name_end(text, skip_space(text, pos + kOpen.size())) != kNpos) return true;
    }
    return false;
  }

  FormatResult parse(std::string_view text, std::span<const ToolSpec> tools) const override {
    FormatResult out;
    Cuts cuts;
    MarkdownCode code(text);
    Finder key_close(text, kKeyClose);
    Finder value_close(text, kValueClose);
    Finder close(text, kClose);
    size_t pos = 0;
    size_t open;
    while ((open = find_outside_code(text, kOpen, pos, code)) != kNpos) {
      size_t body = skip_space(text, open + kOpen.size());
      size_t name_e = glm_name_end(text, body);
      if (name_e == kNpos) {  // a Hermes or Qwen3-Coder body
        pos = body;
        continue;
      }
      const Label where({"<tool_call>"}, open);
      CallDraft draft;
      JsonObjectWriter args;
      draft.name = std::string(text.substr(body, name_e - body));
      ParameterTypes types(tools, draft.name);
      size_t end = kNpos;
      std::string problem;
      bool cut_off = false;
      size_t p = name_e;
      while (problem.empty()) {
        size_t q = skip_space(text, p);
        if (q == text.size()) {
          problem = "cut off in the call to '" + draft.name + "' before </tool_call>";
          cut_off = true;
        } else if (starts_at(text, q, kClose)) {
          end = q + kClose.size();
          break;
        } else if (!starts_at(text, q, kKey)) {
          problem = "expected <arg_key> or </tool_call> at offset " + std::to_string(q);
        } else {
          size_t key_e = key_close.next(q + kKey.size());
          std::string key =
              key_e == kNpos ? "" : std::string(trim(text.substr(q + kKey.size(), key_e - q - kKey.size())));
          size_t v = key_e == kNpos ? text.size() : skip_space(text, key_e + kKeyClose.size());
          size_t value_e = v < text.size() && starts_at(text, v, kValue) ? value_close.next(v + kValue.size()) : kNpos;
          if (key_e == kNpos || v == text.size() || (value_e == kNpos && starts_at(text, v, kValue))) {
            problem = "cut off inside the argument " + (key.empty() ? std::string("key") : shown(key)) + " of '" +
                      draft.name + "'";
            cut_off = true;
          } else if (value_e == kNpos) {
            problem = "expected <arg_value> after the key " + shown(key) + " at offset " + std::to_string(v);
          } else {
            size_t value_b = v + kValue.size();
            args.key(key);
            write_typed_parameter(args, text.substr(value_b, value_e - value_b), types, key);
            p = value_e + kValueClose.size();
          }
        }
      }
      if (!problem.empty()) {
        fail(out, where + ": " + problem);
        size_t c = cut_off ? kNpos : close.next(p);
        end = c == kNpos ? text.size() : c + kClose.size();
      } else {
        draft.valid_utf8 = args.valid();
        draft.arguments = std::move(args).finish();
        commit(out, std::move(draft), where);
      }
      cuts.emplace_back(open, end);
      code.consumed(end);
      pos = end;
    }
    out.content = text_outside(text, cuts, {"<|observation|>", "<|user|>"});
    return out;
  }
};

}  // namespace

std::unique_ptr<ToolCallFormat> make_glm45_format() {
  return std::make_unique<Glm45Format>();
}

}  // namespace keel::detail
