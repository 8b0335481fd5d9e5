#include "core/parsing/formats/special_tokens.hpp"

#include "core/parsing/formats/format_util.hpp"
#include "core/parsing/json/json_repair.hpp"
#include "core/text/text_util.hpp"

namespace keel::detail {

void append_line(std::string& to, std::string_view piece) {
  std::string_view t = trim(piece);
  if (t.empty()) return;
  if (!to.empty()) to += "\n";
  to.append(t);
}

std::optional<std::string> special_call_arguments(std::string_view body, bool terminated, std::string_view name,
                                                  std::string_view end_token, FormatResult& out) {
  std::string_view b = trim(body);
  auto where = [&] { return std::string("the call to '").append(name).append("'"); };  // built only for a message
  if (b.empty()) {
    if (!terminated) {
      out.error = where() + " was cut off before its arguments";
      return std::nullopt;
    }
    out.repairs.push_back(where() + ": empty arguments taken as {}");
    return std::string("{}");
  }
  LenientText parsed = parse_json_lenient_text(b);
  // Strictly valid JSON is closed; only text that needed the repair pass is measured.
  const bool unclosed =
      !terminated && !parsed.in_input && (b[0] == '{' || b[0] == '[') && json_extent(b, 0) == std::string_view::npos;
  if (unclosed) {
    out.error = where() + " was cut off before " + std::string(end_token) + ": its arguments are " +
                (parsed.ok() ? std::string("not closed") : "incomplete (" + parsed.error + ")");
    return std::nullopt;
  }
  if (!parsed.ok()) {
    out.error = where() + ": " + parsed.error;
    return std::nullopt;
  }
  for (auto& r : parsed.repairs) out.repairs.push_back(prefixed(where(), std::move(r)));
  const JsonView v = parsed.view();
  if (v.is_object()) {  // the usual case: the object as it is, compact
    std::string text;
    v.append_compact(text);
    return text;
  }
  if (!v.is_string()) {
    out.error = where() + ": the arguments must be a JSON object, got " + std::string(v.type_name());
    return std::nullopt;
  }
  ArgumentsText args = unwrap_string_arguments_text(v);
  if (!args.error.empty()) {
    out.error = where() + ": " + args.error;
    return std::nullopt;
  }
  for (auto& r : args.repairs) out.repairs.push_back(prefixed(where(), std::move(r)));
  return std::move(args.text);
}

}  // namespace keel::detail
