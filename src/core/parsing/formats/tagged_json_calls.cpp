#include "core/parsing/formats/tagged_json_calls.hpp"

#include "core/parsing/formats/format_util.hpp"
#include "core/parsing/formats/text_scan.hpp"
#include "core/text/text_util.hpp"

namespace keel::detail {
namespace {
namespace tagged_json {

// Reads one call object into `d`: {"name", "arguments"}, or {"NAME": {arguments}} when
// `name_as_key`.
bool one_call(JsonView obj, bool name_as_key, CallDraft& d, const Label& where, std::string& why) {
  if (!name_as_key) return call_from_object(obj, d, where, why);
  JsonView key, args, more_key, more;
  if (obj.is_object()) {
    JsonView::Items it = obj.items();
    if (!it.next(key, args) || it.next(more_key, more)) obj = JsonView();
  }
  if (!obj.is_object()) {
    why = "expected an object {\"TOOL\": {arguments}} with one member";
    return false;
  }
  d.name = key.str();
  if (d.name.empty()) {
    why = "the call names no tool";
    return false;
  }
  return take_arguments(args, d, where, why);
}

// Adds the call(s) of one JSON value: a call object or a list of them.
bool take_value(JsonView value, bool name_as_key, const Label& where, FormatResult& out) {
  std::string why;
  if (!value.is_array()) {
    CallDraft d;
    if (!one_call(value, name_as_key, d, where, why)) {
      fail(out, where + ": " + why);
      return false;
    }
    commit(out, std::move(d), where);
    return true;
  }
  JsonView::Items it = value.items();
  JsonView key, element;
  while (it.next(key, element)) {
    CallDraft d;
    if (!one_call(element, name_as_key, d, where, why)) {
      fail(out, where + ": " + why);
      return false;
    }
    commit(out, std::move(d), where);
  }
  return true;
}

// Reads the values of the block whose body starts at `body`; returns the end of the block.
size_t read_block(std::string_view text, size_t body, const TaggedJsonFraming& f, const Label& where,
                  FormatResult& out) {
  size_t p = body;
  bool any = false;
  while (true) {
    p = skip_space(text, p);
    if (any) {
      while (p < text.size() && text[p] == ',') p = skip_space(text, p + 1);
    }
    if (starts_at(text, p, f.close)) return p + f.close.size();
    if (p == text.size()) {
      if (!any) fail(out, where + ": cut off before the JSON call");
      return p;  // complete JSON and the reply ended: the close tag was left out
    }
    if (text[p] != '{' && text[p] != '[') {
      fail(out, where + ": expected a JSON call or " + std::string(f.close) + " at offset " + std::to_string(p) +
                    ", found " + shown_char(text, p));
      size_t close = find_literal(text, f.close, p);
      return close == kNpos ? text.size() : close + f.close.size();
    }
    LenientText parsed;
    size_t end = valid_json_at(text, p, parsed);
    if (end == kNpos) {
      const JsonExtent e = json_extent_until(text, p, f.close);
      if (!e.closed) {
        fail(out, where + (e.end == text.size() ? ": cut off inside the JSON that starts at offset "
                                                : ": the JSON that starts at offset ") +
                      std::to_string(p) +
                      (e.end == text.size() ? "" : " is not closed before " + std::string(f.close)));
        size_t close = e.end == text.size() ? kNpos : e.end;
        return close == kNpos ? text.size() : close + f.close.size();
      }
      end = e.end;
      parsed = parse_json_lenient_text(text.substr(p, end - p), /*known_invalid=*/true);
      if (!parsed.ok()) {
        fail(out, where + ": invalid JSON at offset " + std::to_string(p) + " (" + parsed.error + ")");
        size_t close = find_literal(text, f.close, end);
        return close == kNpos ? text.size() : close + f.close.size();
      }
      for (auto& r : parsed.repairs) out.repairs.push_back(where + ": " + r);
    }
    if (!take_value(parsed.view(), f.name_as_key, where, out)) {
      size_t close = find_literal(text, f.close, end);
      return close == kNpos ? text.size() : close + f.close.size();
    }
    any = true;
    p = end;
  }
}

}  // namespace tagged_json
}  // namespace

void parse_tagged_json_calls(std::string_view text, const TaggedJsonFraming& f, FormatResult& out,
                             std::initializer_list<std::string_view> drop) {
  Cuts cuts;
  MarkdownCode code(text);
  size_t pos = 0;
  size_t open;
  while (!out.error && (open = find_outside_code(text, f.open, pos, code)) != kNpos) {
    const Label where({f.open}, open);
    size_t body = skip_space(text, open + f.open.size());
    if (!f.second_open.empty()) {
      if (!starts_at(text, body, f.second_open)) {
        fail(out, where + (body == text.size() ? ": cut off before " + std::string(f.second_open)
                                               : ": expected " + std::string(f.second_open) + " at offset " +
                                                     std::to_string(body)));
        break;
      }
      body = skip_space(text, body + f.second_open.size());
    }
    if (!f.other_body.empty() && starts_at(text, body, f.other_body)) {
      pos = body;  // another family's block
      continue;
    }
    if (body < text.size() && text[body] != '{' && text[body] != '[' && !starts_at(text, body, f.close) &&
        !f.tokens && !at_line_start(text, open)) {
      pos = body;  // the tag mentioned in prose
      continue;
    }
    out.framed = true;
    size_t end = tagged_json::read_block(text, body, f, where, out);
    cuts.emplace_back(open, end);
    code.consumed(end);
    pos = end;
  }
  out.content = text_outside(text, cuts, drop);
}

}  // namespace keel::detail
