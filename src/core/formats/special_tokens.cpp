#include "core/formats/special_tokens.hpp"

#include "core/formats/format_util.hpp"
#include "core/json_repair.hpp"
#include "core/text_util.hpp"

namespace keel::detail {

void append_line(std::string& to, std::string_view piece) {
  std::string_view t = trim(piece);
  if (t.empty()) return;
  if (!to.empty()) to += "\n";
  to.append(t);
}

std::optional<nlohmann::json> special_call_arguments(std::string_view body, bool terminated, const std::string& name,
                                                     std::string_view end_token, FormatResult& out) {
  std::string_view b = trim(body);
  std::string where = "the call to '" + name + "'";
  if (b.empty()) {
    if (!terminated) {
      out.error = where + " was cut off before its arguments";
      return std::nullopt;
    }
    out.repairs.push_back(where + ": empty arguments taken as {}");
    return nlohmann::json::object();
  }
  if (!terminated && (b[0] == '{' || b[0] == '[') && json_extent(b, 0) == std::string_view::npos) {
    LenientJson p = parse_json_lenient(b);
    out.error = where + " was cut off before " + std::string(end_token) + ": its arguments are " +
                (p.value ? std::string("not closed") : "incomplete (" + p.error + ")");
    return std::nullopt;
  }
  auto v = parse_payload(b, out, where);
  if (!v) return std::nullopt;
  if (v->is_string()) {
    LenientJson inner = unwrap_string_arguments(*v);
    if (!inner.value) {
      out.error = where + ": " + inner.error;
      return std::nullopt;
    }
    for (auto& r : inner.repairs) out.repairs.push_back(std::move(r.insert(0, where + ": ")));
    v = std::move(inner.value);
  }
  if (!v->is_object()) {
    out.error = where + ": the arguments must be a JSON object, got " + std::string(v->type_name());
    return std::nullopt;
  }
  return v;
}

}  // namespace keel::detail
