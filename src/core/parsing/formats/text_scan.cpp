#include "core/parsing/formats/text_scan.hpp"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <iterator>

#include "core/parsing/formats/format_util.hpp"
#include "core/parsing/json/json_repair.hpp"
#include "core/parsing/json/json_scan.hpp"
#include "core/text/text_util.hpp"

namespace keel::detail {

size_t MarkdownCode::next_tick(size_t from) {
  if (!tick_known_ || (tick_ != kNpos && tick_ < from)) {
    tick_ = text_.find('`', from);
    tick_known_ = true;
  }
  return tick_;
}

// A fence runs to the end of the next line that starts with ``` (or to the end of the text).
size_t MarkdownCode::fence_end(size_t after_ticks) const {
  size_t nl = text_.find('\n', after_ticks);
  while (nl != kNpos) {
    size_t line = nl + 1;
    while (line < text_.size() && (text_[line] == ' ' || text_[line] == '\t')) ++line;
    if (line == text_.size()) break;
    if (text_.compare(line, 3, "```") == 0) {
      size_t end = text_.find('\n', line);
      return end == kNpos ? text_.size() : end;
    }
    nl = text_.find('\n', line);
  }
  return text_.size();
}

// An inline span closes at the next backtick on the same line; kNpos when the line has none.
size_t MarkdownCode::inline_end(size_t after_ticks) const {
  for (size_t i = after_ticks; i < text_.size() && text_[i] != '\n'; ++i) {
    if (text_[i] == '`') {
      while (i < text_.size() && text_[i] == '`') ++i;
      return i;
    }
  }
  return kNpos;
}

size_t MarkdownCode::skip(size_t pos) {
  if (pos >= region_begin_ && pos < region_end_) return region_end_;
  size_t i = std::max(scanned_, region_end_);
  while (i <= pos) {
    size_t tick = next_tick(i);
    if (tick == kNpos || tick > pos) break;
    size_t run = tick;
    while (run < text_.size() && text_[run] == '`') ++run;
    size_t line = tick;
    while (line > 0 && (text_[line - 1] == ' ' || text_[line - 1] == '\t')) --line;
    bool fence = run - tick >= 3 && (line == 0 || text_[line - 1] == '\n');
    size_t end = fence ? fence_end(run) : inline_end(run);
    if (end == kNpos) {  // an unpaired backtick is literal
      i = run;
      continue;
    }
    if (pos < end) {
      region_begin_ = tick;
      region_end_ = end;
      scanned_ = end;
      return end;
    }
    i = end;
  }
  scanned_ = std::max(i, pos);
  return pos;
}

void MarkdownCode::consumed(size_t end) {
  scanned_ = std::max(scanned_, end);
}

size_t find_outside_code(std::string_view text, std::string_view marker, size_t from, MarkdownCode& code) {
  while (from < text.size()) {
    size_t p = find_literal(text, marker, from);
    if (p == kNpos) return kNpos;
    size_t s = code.skip(p);
    if (s == p) return p;
    from = s;
  }
  return kNpos;
}

size_t Finder::next(size_t from) {
  if (!known_ || (hit_ != kNpos && hit_ < from)) {
    hit_ = find_literal(text_, marker_, from);
    known_ = true;
  }
  return hit_;
}

JsonExtent json_extent_until(std::string_view text, size_t pos, std::string_view stop) {
  int depth = 0;
  for (size_t i = pos; i < text.size(); ++i) {
    char c = text[i];
    if (c == '"') {
      i = json_string_end(text, i) - 1;
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if ((c == '}' || c == ']') && --depth == 0) {
      return {i + 1, true};
    } else if (c == stop[0] && starts_at(text, i, stop)) {
      return {i, false};
    }
  }
  return {text.size(), false};
}

TaggedPayload tagged_payload(std::string_view text, size_t pos, std::string_view close_tag, std::string_view open_tag,
                             Finder& closes, JsonIndex* index) {
  // A strictly valid value ends where it balances (no close tag can stand outside its strings);
  // otherwise strings are skipped, so a close tag quoted inside a value is data.
  const size_t valid_end = scan_json_value(text, pos, index);
  const bool valid = valid_end != kNpos;
  const bool refused = !valid;  // then no payload starting at pos is valid JSON either
  JsonExtent ex = valid ? JsonExtent{valid_end, true} : json_extent_until(text, pos, close_tag);
  if (!ex.closed) {
    if (ex.end == text.size()) return {text.size(), text.size(), true, false, refused};  // unbalanced to the end
    return {ex.end, ex.end + close_tag.size(), false, false, refused};  // the tag closed an unbalanced payload
  }
  size_t end = ex.end;
  size_t after = skip_space(text, end);
  if (starts_at(text, after, close_tag)) return {end, after + close_tag.size(), false, valid, refused};
  if (after == text.size() || starts_at(text, after, open_tag) || starts_at(text, after, "<|"))
    return {end, end, false, valid, refused};
  // Something else before the close tag (an extra brace, say): the payload runs to the tag.
  size_t close = closes.next(end);
  if (close != kNpos) return {close, close + close_tag.size(), false, false, refused};
  return {end, end, false, false, refused};
}

std::string shown(std::string_view s, size_t max) {
  std::string out = "'";
  for (size_t i = 0; i < s.size() && i < max;) {
    size_t n = utf8_sequence_length(s, i);
    bool control = n == 1 && static_cast<unsigned char>(s[i]) < 0x20;
    if (n == 0 || control || i + n > max) {
      out += '?';
      i += n == 0 ? 1 : n;
    } else {
      out.append(s.substr(i, n));
      i += n;
    }
  }
  if (s.size() > max) out += "...";
  return out + "'";
}

std::string shown_char(std::string_view text, size_t pos) {
  if (pos >= text.size()) return "the end of the text";
  if (text[pos] == '\n') return "a line break";
  size_t n = utf8_sequence_length(text, pos);
  return shown(text.substr(pos, n == 0 ? 1 : n));
}

bool at_line_start(std::string_view text, size_t pos) {
  while (pos > 0 && (text[pos - 1] == ' ' || text[pos - 1] == '\t')) --pos;
  return pos == 0 || text[pos - 1] == '\n';
}

std::string text_outside(std::string_view text, std::span<const Cut> cuts,
                         std::initializer_list<std::string_view> drop) {
  size_t total = 0;
  size_t cursor = 0;
  for (const auto& [b, e] : cuts) {
    if (b > cursor) total += b - cursor;
    cursor = std::max(cursor, e);
  }
  if (cursor < text.size()) total += text.size() - cursor;
  std::string rest;
  rest.reserve(total);
  cursor = 0;
  for (const auto& [b, e] : cuts) {
    if (b > cursor) rest.append(text.substr(cursor, b - cursor));
    cursor = std::max(cursor, e);
  }
  if (cursor < text.size()) rest.append(text.substr(cursor));
  for (std::string_view token : drop) {
    if (find_literal(rest, token) == std::string::npos) continue;
    std::string kept;
    size_t pos = 0;
    for (size_t hit; (hit = rest.find(token, pos)) != std::string::npos; pos = hit + token.size()) {
      kept.append(rest, pos, hit - pos);
    }
    kept.append(rest, pos, std::string::npos);
    rest = std::move(kept);
  }
  const std::string_view kept = trim(rest);
  if (kept.size() == rest.size()) return rest;  // nothing to trim
  const size_t begin = kept.empty() ? 0 : static_cast<size_t>(kept.data() - rest.data());
  rest.erase(begin + kept.size());
  rest.erase(0, begin);
  return rest;
}

Label::Label(std::initializer_list<std::string_view> parts, size_t offset) : offset_(offset) {
  for (std::string_view p : parts) {
    if (count_ < parts_.size()) parts_[count_++] = p;
  }
}

void Label::make() const {
  constexpr std::string_view kAt = " at offset ";
  char digits[24];
  const auto [end, ec] = std::to_chars(std::begin(digits), std::end(digits), offset_);
  const std::string_view number(digits, static_cast<size_t>(end - digits));
  size_t size = kAt.size() + number.size();
  for (size_t i = 0; i < count_; ++i) size += parts_[i].size();
  char* out = buf_;
  if (size > sizeof(buf_)) {
    long_.resize(size);
    out = long_.data();
  }
  text_ = std::string_view(out, size);
  for (size_t i = 0; i < count_; ++i) {
    std::memcpy(out, parts_[i].data(), parts_[i].size());
    out += parts_[i].size();
  }
  std::memcpy(out, kAt.data(), kAt.size());
  std::memcpy(out + kAt.size(), number.data(), number.size());
  made_ = true;
}

void fail(FormatResult& out, std::string message) {
  if (!out.error) out.error = std::move(message);
}

void commit(FormatResult& out, CallDraft&& draft, const Label& where) {
  if (!draft.valid_utf8) return fail(out, std::string(where) + ": the arguments are not valid UTF-8");
  add_call(out, std::move(draft.name), std::move(draft.arguments));
  for (auto& r : draft.repairs) out.repairs.push_back(std::move(r));
}

LenientText lenient_payload(std::string_view payload, const Label& where, std::vector<std::string>& repairs,
                            Scanned scanned, const JsonIndex* index) {
  // One named result on every path, made in the caller's place (a LenientText holds a JsonIndex:
  // a move of it copies the index).
  LenientText parsed;
  if (scanned == Scanned::kValid) {
    parsed.input = payload;
    parsed.in_input = true;
    parsed.end = payload.size();
    parsed.borrowed = index;
    return parsed;
  }
  parsed = parse_json_lenient_text(payload, scanned == Scanned::kInvalid);
  for (auto& r : parsed.repairs) repairs.push_back(prefixed(where, std::move(r)));
  parsed.repairs.clear();
  return parsed;
}

bool take_arguments(std::optional<JsonView> args, CallDraft& draft, const Label& where, std::string& why) {
  if (!args || args->is_null()) {
    draft.arguments = "{}";
    return true;
  }
  if (!args->is_object() && !args->is_string()) {
    why = "the arguments of '" + draft.name + "' must be a JSON object, got " + std::string(args->type_name());
    return false;
  }
  if (args->is_object()) {  // the usual case: the object as it is, compact
    draft.arguments.clear();
    args->append_compact(draft.arguments);
    return true;
  }
  ArgumentsText inner = unwrap_string_arguments_text(*args);
  if (!inner.error.empty()) {
    why = "the arguments of '" + draft.name + "' are a string that is not a JSON object: " + inner.error;
    return false;
  }
  for (auto& r : inner.repairs) draft.repairs.push_back(prefixed(where, std::move(r)));
  draft.arguments = std::move(inner.text);
  return true;
}

bool call_from_object(JsonView obj, CallDraft& draft, const Label& where, std::string& why) {
  if (!obj.is_object()) {
    why = "expected a JSON object with \"name\" and \"arguments\", got " + std::string(obj.type_name());
    return false;
  }
  auto [wrapped, name, arguments, parameters] = obj.find_each({"function", "name", "arguments", "parameters"});
  if (wrapped && wrapped->is_object()) {
    const auto inner = wrapped->find_each({"name", "arguments", "parameters"});
    name = inner[0];
    arguments = inner[1];
    parameters = inner[2];
  }
  if (!name || !name->is_string() || name->raw().size() == 2) {
    why = "the JSON has no \"name\" string naming the tool";
    return false;
  }
  draft.name = name->str();
  return take_arguments(arguments ? arguments : parameters, draft, where, why);
}

}  // namespace keel::detail
