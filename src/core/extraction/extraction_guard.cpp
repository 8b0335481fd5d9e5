// check_extraction(): the anti-hallucination guard of the extract skill (seed 004). The source is
// normalized once; each value is normalized, found with string_view::find and accepted at the
// first occurrence whose neighbours do not continue it (the token boundary rules are in
// keel/core/extraction.hpp).
#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "core/extraction/extraction_detail.hpp"
#include "core/extraction/extraction_unicode.hpp"
#include "core/text/text_util.hpp"
#include "keel/core/extraction.hpp"

namespace keel {
namespace detail {

bool continues_token(ExtractionTarget target, char32_t cp) {
  switch (target) {
    case ExtractionTarget::kEmail:
      return is_word_char(cp) || cp == '.' || cp == '%' || cp == '+' || cp == '-' || cp == '@';
    case ExtractionTarget::kUrl:
      if (cp >= 0x80) return is_word_char(cp);
      return cp > 0x20 && cp < 0x7F &&
             std::string_view("<>\"'`()[]{}|\\^").find(static_cast<char>(cp)) == std::string_view::npos;
    case ExtractionTarget::kDate:
    case ExtractionTarget::kEntity:
      return is_word_char(cp);
  }
  return false;
}

bool is_trailing_punctuation(ExtractionTarget target, char32_t cp) {
  switch (target) {
    case ExtractionTarget::kEmail:
      return cp == '.';
    case ExtractionTarget::kUrl:
      return std::string_view(".,;:!?").find(static_cast<char>(cp)) != std::string_view::npos;
    case ExtractionTarget::kDate:
    case ExtractionTarget::kEntity:
      return false;
  }
  return false;
}

namespace {


}  // namespace

bool whole_token(std::string_view src, size_t begin, size_t end, std::string_view value, ExtractionTarget target) {
  size_t p = 0;
  const char32_t first = decode_utf8(value, p);
  size_t v_end = value.size();
  const char32_t last = decode_utf8_before(value, v_end);
  if (begin > 0 && continues_token(target, first)) {
    size_t b = begin;
    const char32_t prev = decode_utf8_before(src, b);
    if (continues_token(target, prev) && !is_unspaced_script(prev) && !is_unspaced_script(first)) {
      return false;
    }
  }
  if (end == src.size() || !continues_token(target, last)) return true;
  size_t q = end;
  char32_t next = decode_utf8(src, q);
  if (!continues_token(target, next)) return true;
  if (is_unspaced_script(next) || is_unspaced_script(last)) return true;
  // A date cut from an ISO date-time ("2024-03-04" of "2024-03-04T10:00"; the source is folded).
  if (target == ExtractionTarget::kDate && next == 't' && is_ascii_digit(last) && q < src.size() &&
      is_ascii_digit(static_cast<unsigned char>(src[q]))) {
    return true;
  }
  if (!is_trailing_punctuation(target, next)) return false;
  // Sentence punctuation after the value counts only if nothing of the token follows it.
  while (q < src.size()) {
    size_t r = q;
    next = decode_utf8(src, r);
    if (!is_trailing_punctuation(target, next)) return !continues_token(target, next);
    q = r;
  }
  return true;
}

}  // namespace detail

namespace {

constexpr size_t kMaxNamed = 8;        // offending values named in one message
constexpr size_t kMaxValueBytes = 80;  // each cut to this many bytes

bool found_as_token(std::string_view source, std::string_view value, ExtractionTarget target) {
  if (value.empty()) return false;
  for (size_t at = source.find(value); at != std::string_view::npos; at = source.find(value, at + 1)) {
    if (detail::whole_token(source, at, at + value.size(), value, target)) return true;
  }
  return false;
}

std::string_view kind_singular(ExtractionTarget target) {
  switch (target) {
    case ExtractionTarget::kEmail:
      return "email address";
    case ExtractionTarget::kUrl:
      return "URL";
    case ExtractionTarget::kDate:
      return "date";
    case ExtractionTarget::kEntity:
      return "entity";
  }
  return "value";
}

std::string_view kind_plural(ExtractionTarget target) {
  switch (target) {
    case ExtractionTarget::kEmail:
      return "email addresses";
    case ExtractionTarget::kUrl:
      return "URLs";
    case ExtractionTarget::kDate:
      return "dates";
    case ExtractionTarget::kEntity:
      return "entities";
  }
  return "values";
}

// "'a', 'b', and 3 more" — at most kMaxNamed values, each cut to kMaxValueBytes.
std::string quoted_list(const std::vector<std::string_view>& values) {
  std::string out;
  for (size_t i = 0; i < values.size() && i < kMaxNamed; ++i) {
    if (i > 0) out.append(", ");
    out.append("'");
    out.append(detail::shorten(values[i], kMaxValueBytes));
    out.append("'");
  }
  if (values.size() > kMaxNamed) {
    out.append(", and ");
    out.append(std::to_string(values.size() - kMaxNamed));
    out.append(" more");
  }
  return out;
}

// "a string", "an array", ... for shape errors.
std::string with_article(const nlohmann::json& j) {
  const std::string_view name = j.type_name();
  std::string out = (name == "array" || name == "object") ? "an " : "a ";
  out.append(name);
  return out;
}

// {"email": [...]}, spelled for the target.
std::string expected_shape(ExtractionTarget target) {
  std::string out = "{\"";
  out.append(extraction_target_name(target));
  out.append("\": [...]}");
  return out;
}

Status check_shape(const nlohmann::json& output, ExtractionTarget target) {
  const std::string key(extraction_target_name(target));
  std::string msg = "extract output must be ";
  msg.append(expected_shape(target));
  if (!output.is_object()) {
    msg.append(", a JSON object; got ");
    msg.append(with_article(output));
    return Status::InvalidArgument(std::move(msg));
  }
  if (output.size() != 1 || !output.contains(key)) {
    msg.append(", an object with the one key \"");
    msg.append(key);
    msg.append("\"; got ");
    if (output.empty()) msg.append("no keys");
    size_t named = 0;
    for (const auto& item : output.items()) {
      if (named == kMaxNamed) {
        msg.append(", ...");
        break;
      }
      msg.append(named++ == 0 ? "keys \"" : ", \"");
      msg.append(item.key());
      msg.append("\"");
    }
    return Status::InvalidArgument(std::move(msg));
  }
  const nlohmann::json& values = output.at(key);
  if (!values.is_array()) {
    msg = "extract output \"";
    msg.append(key);
    msg.append("\" must be an array of strings; got ");
    msg.append(with_article(values));
    msg.append(": put even a single value in an array, ");
    msg.append(expected_shape(target));
    return Status::InvalidArgument(std::move(msg));
  }
  for (size_t i = 0; i < values.size(); ++i) {
    if (values[i].is_string()) continue;
    msg = "extract output \"";
    msg.append(key);
    msg.append("\"[");
    msg.append(std::to_string(i));
    msg.append("] must be a string; got ");
    msg.append(with_article(values[i]));
    return Status::InvalidArgument(std::move(msg));
  }
  return Status::Ok();
}

}  // namespace

Status check_extraction(const nlohmann::json& output, ExtractionTarget target, std::string_view source) {
  KEEL_TRY(check_shape(output, target));
  const nlohmann::json& values = output.at(std::string(extraction_target_name(target)));
  std::vector<std::string_view> invalid;
  std::vector<std::string_view> missing;
  std::string normalized_source;
  bool source_ready = false;
  for (const nlohmann::json& v : values) {
    const std::string_view value = v.get_ref<const std::string&>();
    const std::string normalized = normalize_for_matching(value);
    if (!is_valid_extraction_value(target, normalized)) {
      invalid.push_back(value);
      continue;
    }
    if (!source_ready) {
      normalized_source = normalize_for_matching(source);
      source_ready = true;
    }
    if (!found_as_token(normalized_source, normalized, target)) missing.push_back(value);
  }
  if (invalid.empty() && missing.empty()) return Status::Ok();
  std::string msg;
  if (!invalid.empty()) {
    msg.append("InvalidValue: ");
    msg.append(quoted_list(invalid));
    msg.append(invalid.size() == 1 ? " is not a valid " : " are not valid ");
    msg.append(invalid.size() == 1 ? kind_singular(target) : kind_plural(target));
    msg.append(". ");
  }
  if (!missing.empty()) {
    msg.append("HallucinationDetected: ");
    msg.append(quoted_list(missing));
    msg.append(" not found in source text. ");
  }
  msg.append("Return only ");
  msg.append(kind_plural(target));
  msg.append(" copied verbatim from the text ([] when there are none).");
  return Status::InvalidArgument(std::move(msg));
}

}  // namespace keel
