// GbnfBuilder: JSON Schema keywords to GBNF expressions.
//
// Structure a model could repeat without end is bounded: whitespace (one space, or a newline and up
// to 16 indentation characters), digits, calls per reply. Free strings are not: a grammar that
// closed a string early would silently cut a file's content; a reply that runs out of tokens
// inside one is reported as cut off instead. Bounded repetitions
// expand to one rule per step inside llama.cpp, so very large schema bounds fall back to the free
// caps instead of producing huge grammars.
#include "core/grammar/gbnf_builder.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>

namespace keel::detail {
namespace {

using ojson = nlohmann::ordered_json;

constexpr int kGbnfMaxDepth = 64;              // schema nesting keel follows
constexpr int64_t kGbnfMaxStringChars = 4096;  // the largest bound written as a repetition
constexpr int64_t kGbnfMaxItemsBound = 256;    // larger maxItems are left unbounded
constexpr size_t kGbnfNoSlot = std::numeric_limits<size_t>::max();

std::string gbnf_json_text(const ojson& j) {
  return j.dump(-1, ' ', false, ojson::error_handler_t::replace);
}

// A non-negative integer keyword, clamped to `cap`; nullopt when absent or not such a number.
std::optional<int64_t> gbnf_count(const ojson& s, const char* key, int64_t cap) {
  auto it = s.find(key);
  if (it == s.end() || !it->is_number()) return std::nullopt;
  double d = it->get<double>();
  if (!(d >= 0)) return std::nullopt;
  if (d > static_cast<double>(cap)) return cap;
  return static_cast<int64_t>(d);
}

// "{m}", "{m,n}", "{m,}" or "*" for a repetition; "" when it repeats nothing.
std::string gbnf_repeat(int64_t min, std::optional<int64_t> max) {
  if (!max) return min == 0 ? std::string("*") : gbnf_cat({"{", std::to_string(min), ",}"});
  if (*max == 0) return {};
  if (*max == min) return gbnf_cat({"{", std::to_string(min), "}"});
  std::string r = "{" + std::to_string(min);
  r.push_back(',');
  r.append(std::to_string(*max));
  r.push_back('}');
  return r;
}

std::string gbnf_at(const std::string& hint) {
  std::string s = " (rule ";
  s.append(hint);
  s.push_back(')');
  return s;
}

}  // namespace

GbnfBuilder::GbnfBuilder(std::string_view primitives) : primitives_(gbnf_name(primitives)) {
  for (const auto& p : gbnf_primitives()) {
    std::string name = primitives_ + "-";
    name.append(p.name);
    index_[name] = kGbnfNoSlot;  // taken, so no schema rule gets a primitive's name
  }
}

std::string GbnfBuilder::reserve(std::string_view hint) {
  std::string base = gbnf_name(hint);
  std::string name = base;
  for (int n = 2; index_.count(name) != 0; ++n) name = gbnf_cat({base, "-", std::to_string(n)});
  index_[name] = rules_.size();
  rules_.emplace_back(name, std::string());
  return name;
}

void GbnfBuilder::define(const std::string& name, std::string body) {
  rules_[index_.at(name)].second = std::move(body);
}

std::string GbnfBuilder::add_rule(std::string_view hint, std::string body) {
  std::string name = reserve(hint);
  define(name, std::move(body));
  return name;
}

std::string GbnfBuilder::prim(std::string_view which) {
  used_.insert(std::string(which));
  std::string name = primitives_ + "-";
  name.append(which);
  return name;
}

std::string GbnfBuilder::ws() {
  return prim("ws");
}

std::string GbnfBuilder::text() const {
  std::string out;
  for (const auto& [name, body] : rules_) {
    out.append(name);
    out.append(" ::= ");
    out.append(body);
    out.push_back('\n');
  }
  std::set<std::string_view> need;
  std::vector<std::string_view> todo(used_.begin(), used_.end());
  while (!todo.empty()) {
    std::string_view p = todo.back();
    todo.pop_back();
    if (p.empty() || !need.insert(p).second) continue;
    for (const auto& prim : gbnf_primitives()) {
      if (prim.name == p) todo.insert(todo.end(), prim.needs.begin(), prim.needs.end());
    }
  }
  for (const auto& prim : gbnf_primitives()) {
    if (need.count(prim.name) == 0) continue;
    out.append(primitives_);
    out.push_back('-');
    out.append(prim.name);
    out.append(" ::= ");
    out.append(gbnf_primitive_body(prim.name, primitives_, string_cap_));
    out.push_back('\n');
  }
  return out;
}

Result<std::string> GbnfBuilder::add_schema(std::string_view schema, std::string_view prefix) {
  ojson j;
  try {
    j = ojson::parse(schema);
  } catch (const ojson::exception& e) {
    std::string m = "the JSON Schema is not valid JSON (";
    m.append(e.what());
    m.append("); fix the schema text");
    return Status::InvalidArgument(std::move(m));
  }
  if (!j.is_object() && !j.is_boolean()) {
    std::string m = "a JSON Schema must be an object or a boolean, not ";
    m.append(j.type_name());
    m.append(": write it as {\"type\": ...}");
    return Status::InvalidArgument(std::move(m));
  }
  root_ = &j;
  root_name_ = reserve(prefix.empty() ? std::string_view("schema") : prefix);
  refs_.clear();
  refs_["#"] = root_name_;
  Result<std::string> b = body(j, root_name_, 0);
  root_ = nullptr;
  if (!b.ok()) return b.status();
  define(root_name_, std::move(b).value());
  return root_name_;
}

Result<std::string> GbnfBuilder::ref(const ojson& s, const std::string& hint, int depth) {
  KEEL_ASSIGN_OR_RETURN(std::string b, body(s, hint, depth));
  if (b.find(' ') == std::string::npos) return b;
  return add_rule(hint, std::move(b));
}

Result<std::string> GbnfBuilder::body(const ojson& s, const std::string& hint, int depth) {
  if (depth > kGbnfMaxDepth) {
    std::string m = "the JSON Schema nests deeper than ";
    m.append(std::to_string(kGbnfMaxDepth));
    m.append(" levels");
    m.append(gbnf_at(hint));
    m.append("; flatten it");
    return Status::InvalidArgument(std::move(m));
  }
  if (s.is_boolean()) {
    if (s.get<bool>()) return prim("value");
    std::string m = "the schema false accepts no value";
    m.append(gbnf_at(hint));
    m.append("; remove it or use true");
    return Status::InvalidArgument(std::move(m));
  }
  if (!s.is_object()) {
    std::string m = "a subschema must be an object or a boolean, not ";
    m.append(s.type_name());
    m.append(gbnf_at(hint));
    return Status::InvalidArgument(std::move(m));
  }
  if (auto r = s.find("$ref"); r != s.end() && r->is_string()) {
    const std::string& pointer = r->get_ref<const std::string&>();
    if (!pointer.empty() && pointer[0] == '#') return resolve(pointer, hint, depth);
    return prim("value");  // remote references are not followed
  }
  if (auto c = s.find("const"); c != s.end()) return gbnf_literal(gbnf_json_text(*c));
  if (auto e = s.find("enum"); e != s.end() && e->is_array()) {
    if (e->empty()) return Status::InvalidArgument(gbnf_cat({"an empty enum accepts no value", gbnf_at(hint)}));
    std::string alts;
    for (const auto& v : *e) {
      if (!alts.empty()) alts.append(" | ");
      alts.append(gbnf_literal(gbnf_json_text(v)));
    }
    return alts;
  }
  for (const char* key : {"anyOf", "oneOf"}) {
    auto any = s.find(key);
    if (any == s.end() || !any->is_array() || any->empty()) continue;
    // Each alternative is the sibling keywords with the alternative's own on top, so
    // {"type": "object", "anyOf": [{"required": ["a"]}, ...]} keeps its type.
    ojson siblings = s;
    siblings.erase("anyOf");
    siblings.erase("oneOf");
    std::string alts;
    for (size_t i = 0; i < any->size(); ++i) {
      const ojson& sub = (*any)[i];
      if (sub.is_boolean() && !sub.get<bool>()) continue;
      ojson merged = siblings;
      if (sub.is_object()) {
        for (auto it = sub.begin(); it != sub.end(); ++it) merged[it.key()] = it.value();
      }
      KEEL_ASSIGN_OR_RETURN(std::string alt, ref(merged, gbnf_cat({hint, "-", std::to_string(i)}), depth + 1));
      if (!alts.empty()) alts.append(" | ");
      alts.append(alt);
    }
    if (alts.empty()) {
      return Status::InvalidArgument(gbnf_cat({key, " has no alternative that accepts a value", gbnf_at(hint)}));
    }
    return alts;
  }
  auto type = s.find("type");
  if (type != s.end() && type->is_array()) {
    std::string alts;
    for (const auto& t : *type) {
      if (!t.is_string()) continue;
      const std::string& name = t.get_ref<const std::string&>();
      const std::string alt_hint = gbnf_cat({hint, "-", name});
      KEEL_ASSIGN_OR_RETURN(std::string b, typed(s, name, alt_hint, depth));
      if (b.find(' ') != std::string::npos) b = add_rule(alt_hint, std::move(b));
      if (!alts.empty()) alts.append(" | ");
      alts.append(b);
    }
    if (!alts.empty()) return alts;
  } else if (type != s.end() && type->is_string()) {
    return typed(s, type->get_ref<const std::string&>(), hint, depth);
  }
  // No usable type: the keywords present tell which it is.
  if (s.contains("properties") || s.contains("additionalProperties") || s.contains("required")) {
    return object(s, hint, depth);
  }
  if (s.contains("items") || s.contains("minItems") || s.contains("maxItems")) return array(s, hint, depth);
  if (s.contains("minLength") || s.contains("maxLength")) return string_body(s);
  return prim("value");
}

Result<std::string> GbnfBuilder::typed(const ojson& s, std::string_view type, const std::string& hint, int depth) {
  if (type == "string") return string_body(s);
  if (type == "number") return prim("number");
  if (type == "integer") return prim("integer");
  if (type == "boolean") return prim("boolean");
  if (type == "null") return prim("null");
  if (type == "object") return object(s, hint, depth);
  if (type == "array") return array(s, hint, depth);
  std::string m = "unknown JSON Schema type '";
  m.append(type);
  m.append("'");
  m.append(gbnf_at(hint));
  m.append("; use string, number, integer, boolean, null, object or array");
  return Status::InvalidArgument(std::move(m));
}

Result<std::string> GbnfBuilder::string_body(const ojson& s) {
  std::optional<int64_t> min = gbnf_count(s, "minLength", kGbnfMaxStringChars);
  std::optional<int64_t> max = gbnf_count(s, "maxLength", kGbnfMaxStringChars);
  if (!min && !max) return prim("string");
  int64_t lo = min.value_or(0);
  int64_t hi = max.value_or(lo);
  if (hi < lo) hi = lo;
  std::string b = "\"\\\"\"";
  // No maxLength: at least lo characters, no upper bound (see the top of the file).
  std::string rep = max             ? gbnf_repeat(lo, hi)
                    : string_cap_ > 0 ? gbnf_repeat(lo, std::max(lo, string_cap_))
                                      : gbnf_cat({"{", std::to_string(lo), ",}"});
  if (!rep.empty()) {
    b.push_back(' ');
    b.append(prim("char"));
    b.append(rep);
  }
  b.append(" \"\\\"\"");
  return b;
}

Result<std::string> GbnfBuilder::object(const ojson& s, const std::string& hint, int depth) {
  const std::string w = ws();
  const std::string comma = gbnf_cat({" ", w, " \",\" ", w, " "});
  auto props = s.find("properties");
  if (props == s.end() || !props->is_object()) {
    auto extra = s.find("additionalProperties");
    if (extra != s.end() && extra->is_boolean() && !extra->get<bool>()) return gbnf_cat({"\"{\" ", w, " \"}\""});
    if (extra == s.end() || !extra->is_object()) return prim("object");
    KEEL_ASSIGN_OR_RETURN(std::string v, ref(*extra, gbnf_cat({hint, "-value"}), depth + 1));
    std::string member = gbnf_cat({prim("string"), " ", w});
    member.append(" \":\" ");
    member.append(w);
    member.push_back(' ');
    member.append(v);
    std::string b = "\"{\" " + w;
    b.append(" ( ");
    b.append(member);
    b.append(" (");
    b.append(comma);
    b.append(member);
    b.append(" )* )? ");
    b.append(w);
    b.append(" \"}\"");
    return b;
  }
  std::set<std::string> required;
  if (auto r = s.find("required"); r != s.end() && r->is_array()) {
    for (const auto& k : *r) {
      if (k.is_string()) required.insert(k.get<std::string>());
    }
  }
  std::vector<std::string> req;
  std::vector<std::pair<std::string, std::string>> opt;  // key, member expression
  for (auto it = props->begin(); it != props->end(); ++it) {
    if (it.value().is_boolean() && !it.value().get<bool>()) continue;  // must be absent
    std::string key_hint = gbnf_cat({hint, "-", it.key()});
    KEEL_ASSIGN_OR_RETURN(std::string v, ref(it.value(), key_hint, depth + 1));
    std::string member = gbnf_literal(gbnf_json_text(ojson(it.key())));
    member.push_back(' ');
    member.append(w);
    member.append(" \":\" ");
    member.append(w);
    member.push_back(' ');
    member.append(v);
    if (required.count(it.key()) != 0) {
      req.push_back(std::move(member));
    } else {
      opt.emplace_back(std::move(key_hint), std::move(member));
    }
  }
  if (req.empty() && opt.empty()) return gbnf_cat({"\"{\" ", w, " \"}\""});
  std::string b = gbnf_cat({"\"{\" ", w, " "});
  if (!req.empty()) {
    for (size_t i = 0; i < req.size(); ++i) {
      if (i > 0) b.append(comma);
      b.append(req[i]);
    }
    for (const auto& [key_hint, member] : opt) {
      b.append(" (");
      b.append(comma);
      b.append(member);
      b.append(" )?");
    }
    b.push_back(' ');
  } else if (!opt.empty()) {
    // No required member: the first one present starts the list, any later ones follow it.
    std::vector<std::string> names;
    for (auto& [key_hint, member] : opt) names.push_back(add_rule(gbnf_cat({key_hint, "-kv"}), std::move(member)));
    b.append("( ");
    for (size_t i = 0; i < names.size(); ++i) {
      if (i > 0) b.append(" | ");
      b.append(names[i]);
      for (size_t k = i + 1; k < names.size(); ++k) {
        b.append(" (");
        b.append(comma);
        b.append(names[k]);
        b.append(" )?");
      }
    }
    b.append(" )? ");
  }
  b.append(w);
  b.append(" \"}\"");
  return b;
}

Result<std::string> GbnfBuilder::array(const ojson& s, const std::string& hint, int depth) {
  const std::string w = ws();
  int64_t min = gbnf_count(s, "minItems", kGbnfMaxItemsBound).value_or(0);
  std::optional<int64_t> max = gbnf_count(s, "maxItems", kGbnfMaxItemsBound + 1);
  if (max && *max > kGbnfMaxItemsBound) max.reset();
  if (max && *max < min) max = min;
  if (max && *max == 0) return gbnf_cat({"\"[\" ", w, " \"]\""});
  std::string item;
  auto items = s.find("items");
  if (items != s.end() && (items->is_object() || items->is_boolean())) {
    KEEL_ASSIGN_OR_RETURN(item, ref(*items, gbnf_cat({hint, "-item"}), depth + 1));
  } else {
    item = prim("value");  // absent, or the tuple form (not followed)
  }
  std::optional<int64_t> more_max;
  if (max) more_max = *max - 1;
  std::string rep = gbnf_repeat(min > 0 ? min - 1 : 0, more_max);
  std::string seq = item;
  if (!rep.empty()) {
    seq.append(" (");
    seq.append(gbnf_cat({" ", w, " \",\" ", w, " "}));
    seq.append(item);
    seq.append(" )");
    seq.append(rep);
  }
  std::string b = gbnf_cat({"\"[\" ", w, " "});
  if (min == 0) {
    b.append("( ");
    b.append(seq);
    b.append(" )? ");
  } else {
    b.append(seq);
    b.push_back(' ');
  }
  b.append(w);
  b.append(" \"]\"");
  return b;
}

Result<std::string> GbnfBuilder::resolve(const std::string& pointer, const std::string& hint, int depth) {
  if (auto it = refs_.find(pointer); it != refs_.end()) return it->second;
  if (pointer.size() < 2 || pointer[1] != '/') return prim("value");  // anchors are not followed
  const ojson* node = root_;
  std::string last;
  size_t pos = 2;
  while (true) {
    size_t slash = pointer.find('/', pos);
    std::string token = pointer.substr(pos, slash == std::string::npos ? std::string::npos : slash - pos);
    std::string key;
    for (size_t i = 0; i < token.size(); ++i) {
      if (token[i] == '~' && i + 1 < token.size() && (token[i + 1] == '0' || token[i + 1] == '1')) {
        key.push_back(token[i + 1] == '0' ? '~' : '/');
        ++i;
      } else {
        key.push_back(token[i]);
      }
    }
    const ojson* next = nullptr;
    if (node->is_object()) {
      if (auto it = node->find(key); it != node->end()) next = &*it;
    }
    if (next == nullptr) {
      std::string m = "$ref '";
      m.append(pointer);
      m.append("' names nothing in the schema");
      m.append(gbnf_at(hint));
      m.append("; define it under #/definitions or #/$defs");
      return Status::InvalidArgument(std::move(m));
    }
    node = next;
    last = std::move(key);
    if (slash == std::string::npos) break;
    pos = slash + 1;
  }
  std::string name = reserve(gbnf_cat({root_name_, "-", last}));
  refs_[pointer] = name;
  KEEL_ASSIGN_OR_RETURN(std::string b, body(*node, name, depth + 1));
  define(name, std::move(b));
  return name;
}

}  // namespace keel::detail
