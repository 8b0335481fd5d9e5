#include "core/parsing/formats/minimax_m3_values.hpp"

#include "core/parsing/formats/format_util.hpp"
#include "core/parsing/formats/text_scan.hpp"
#include "core/text/text_util.hpp"

namespace keel::detail {
namespace {
namespace minimax_m3_values {

constexpr std::string_view kDelim = kMinimaxM3Delimiter;
constexpr int kMaxDepth = 32;  // nesting of object and array values (the reader recurses)

// What a value's JSON Schema allows: the kinds of value, and the schemas of its object and array
// alternatives (a type list or anyOf/oneOf alternatives allow several).
struct Shape {
  bool string = false;
  bool object = false;
  bool array = false;
  bool nullable = false;
  std::string scalar;  // the first of integer, number, boolean (as declared)
  std::optional<JsonView> object_schema;
  std::optional<JsonView> array_schema;

  void add(std::string_view declared, JsonView alternative) {
    const std::string_view t = canonical_type_name(declared);
    if (t == "string") {
      string = true;
    } else if (t == "object") {
      object = true;
      if (!object_schema) object_schema = alternative;
    } else if (t == "array") {
      array = true;
      if (!array_schema) array_schema = alternative;
    } else if (t == "null") {
      nullable = true;
    } else if (scalar.empty()) {
      scalar = std::string(t);
    }
  }

  // Reads `s`; alternatives (anyOf, oneOf) only at the top.
  void visit(JsonView s, bool top) {
    if (!s.is_object()) return;
    if (auto type = s.find("type")) {
      if (type->is_string()) {
        add(type->str(), s);
      } else if (type->is_array()) {
        JsonView::Items it = type->items();
        JsonView key, t;
        while (it.next(key, t)) {
          if (t.is_string()) add(t.str(), s);
        }
      }
      return;
    }
    if (top) {
      for (std::string_view k : {"anyOf", "oneOf"}) {
        auto alts = s.find(k);
        if (!alts || !alts->is_array()) continue;
        JsonView::Items it = alts->items();
        JsonView key, alt;
        while (it.next(key, alt)) visit(alt, false);
        return;
      }
    }
    if (s.contains("properties")) {
      add("object", s);
    } else if (s.contains("items")) {
      add("array", s);
    }
  }
};

Shape shape_of(std::optional<JsonView> schema) {
  Shape s;
  if (schema) s.visit(*schema, true);
  return s;
}

// The member `key` of `schema` when both are objects.
std::optional<JsonView> member(std::optional<JsonView> schema, std::string_view key) {
  if (!schema || !schema->is_object()) return std::nullopt;
  auto v = schema->find(key);
  if (!v || !v->is_object()) return std::nullopt;
  return v;
}

}  // namespace minimax_m3_values
}  // namespace

size_t M3Elements::read(std::string_view text, size_t pos, std::vector<int>& top, std::string& error, bool& cut_off) {
  cut_off = false;
  size_t p = pos;
  while (true) {
    const size_t q = skip_space(text, p);
    const size_t t = q + minimax_m3_values::kDelim.size();
    if (q == text.size() || (starts_at(text, q, minimax_m3_values::kDelim) && t == text.size())) {
      cut_off = true;
      error = "cut off at offset " + std::to_string(q);
      return kNpos;
    }
    if (!starts_at(text, q, minimax_m3_values::kDelim) || text[t] != '<') {
      error = "expected " + std::string(minimax_m3_values::kDelim) + "<KEY> at offset " + std::to_string(q) +
              ", found " + shown_char(text, q);
      return kNpos;
    }
    if (starts_at(text, t, "</")) return q;
    int index = -1;
    p = read_element(text, q, 0, index, error, cut_off);
    if (p == kNpos) return kNpos;
    top.push_back(index);
  }
}

size_t M3Elements::read_element(std::string_view text, size_t pos, int depth, int& index, std::string& error,
                                bool& cut_off) {
  using minimax_m3_values::kDelim;
  if (depth > minimax_m3_values::kMaxDepth) {
    error = "values nested deeper than " + std::to_string(minimax_m3_values::kMaxDepth) + " levels at offset " +
            std::to_string(pos);
    return kNpos;
  }
  const size_t lt = pos + kDelim.size();
  if (lt >= text.size()) {
    cut_off = true;
    error = "cut off after the delimiter at offset " + std::to_string(pos);
    return kNpos;
  }
  if (text[lt] != '<') {
    error = "expected <KEY> after the delimiter at offset " + std::to_string(pos) + ", found " + shown_char(text, lt);
    return kNpos;
  }
  const size_t key_b = lt + 1;
  size_t key_e = key_b;
  while (key_e < text.size() && text[key_e] != '>' && text[key_e] != '<' && !is_space(text[key_e])) ++key_e;
  if (key_e == text.size()) {
    cut_off = true;
    error = "cut off inside the tag at offset " + std::to_string(pos);
    return kNpos;
  }
  if (text[key_e] != '>' || key_e == key_b) {
    error = "malformed tag at offset " + std::to_string(pos);
    return kNpos;
  }
  const std::string_view key = text.substr(key_b, key_e - key_b);
  index = static_cast<int>(elements_.size());
  elements_.push_back({key, key_e + 1, 0, -1, -1});
  const size_t content_b = key_e + 1;
  size_t close;
  const size_t s = skip_space(text, content_b);
  const size_t after = s + kDelim.size();
  if (starts_at(text, s, kDelim) && after + 1 < text.size() && text[after] == '<' && text[after + 1] != '/') {
    int prev = -1;
    size_t p = s;
    while (true) {  // the members, up to the closing tag
      const size_t q = skip_space(text, p);
      if (q == text.size()) {
        cut_off = true;
        error = "cut off inside <" + std::string(key) + "> at offset " + std::to_string(q);
        return kNpos;
      }
      if (!starts_at(text, q, kDelim)) {
        error = "expected " + std::string(kDelim) + " at offset " + std::to_string(q) + " inside <" + std::string(key) +
                ">, found " + shown_char(text, q);
        return kNpos;
      }
      if (starts_at(text, q + kDelim.size(), "</")) {
        close = q;
        break;
      }
      int child = -1;
      p = read_element(text, q, depth + 1, child, error, cut_off);
      if (p == kNpos) return kNpos;
      if (prev < 0) {
        elements_[static_cast<size_t>(index)].first_child = child;
      } else {
        elements_[static_cast<size_t>(prev)].next = child;
      }
      prev = child;
    }
  } else {
    close = find_literal(text, kDelim, content_b);
    if (close == kNpos) {
      cut_off = true;
      error = "cut off inside <" + std::string(key) + "> at offset " + std::to_string(pos);
      return kNpos;
    }
  }
  elements_[static_cast<size_t>(index)].end = close;
  const size_t tag = close + kDelim.size();
  if (starts_at(text, tag, "</") && starts_at(text, tag + 2, key) && starts_at(text, tag + 2 + key.size(), ">")) {
    return tag + 3 + key.size();
  }
  if (text.size() - tag < key.size() + 3 &&
      std::string_view("</" + std::string(key) + ">").starts_with(text.substr(tag))) {
    cut_off = true;
    error = "cut off in the closing tag of <" + std::string(key) + "> at offset " + std::to_string(close);
    return kNpos;
  }
  error = "expected " + std::string(kDelim) + "</" + std::string(key) + "> at offset " + std::to_string(close) +
          ", found " + shown(text.substr(tag, 24));
  return kNpos;
}

bool M3Elements::write(std::string_view text, int i, std::optional<JsonView> schema, std::string& out) const {
  using minimax_m3_values::member;
  const M3Element& e = at(i);
  const std::string_view raw = text.substr(e.begin, e.end - e.begin);
  const minimax_m3_values::Shape shape = minimax_m3_values::shape_of(schema);
  if (e.first_child < 0) {  // text
    if (shape.string) return append_typed_value(out, raw, "string", shape.nullable);
    const std::string_view type = !shape.scalar.empty() ? std::string_view(shape.scalar)
                                  : shape.object        ? std::string_view("object")
                                  : shape.array         ? std::string_view("array")
                                                        : std::string_view();
    if ((type == "object" || type == "array") && trim(raw).empty()) {  // no members
      out.append(type == "object" ? "{}" : "[]");
      return true;
    }
    return append_typed_value(out, raw, type, shape.nullable);
  }
  if (shape.string) return append_quoted_json(out, raw);  // a string holds the markup as written
  bool items = true;
  for (int c = e.first_child; c >= 0; c = at(c).next) items = items && at(c).key == "item";
  const bool as_array = shape.array ? items || !shape.object : items && !shape.object;
  bool ok = true;
  if (as_array) {
    const std::optional<JsonView> item_schema = member(shape.array_schema, "items");
    out += '[';
    for (int c = e.first_child; c >= 0; c = at(c).next) {
      if (c != e.first_child) out += ',';
      ok = write(text, c, item_schema, out) && ok;
    }
    out += ']';
    return ok;
  }
  const std::optional<JsonView> properties = member(shape.object_schema, "properties");
  out += '{';
  for (int c = e.first_child; c >= 0; c = at(c).next) {
    if (c != e.first_child) out += ',';
    ok = append_quoted_json(out, at(c).key) && ok;
    out += ':';
    ok = write(text, c, member(properties, at(c).key), out) && ok;
  }
  out += '}';
  return ok;
}

}  // namespace keel::detail
