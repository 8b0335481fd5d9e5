#include "tools/data/json_path.hpp"

#include <cctype>
#include <cstdint>
#include <string>
#include <vector>

namespace keel::detail {
namespace {

using json = nlohmann::json;

enum class Selector { kKey, kIndex, kWildcard };

struct Segment {
  bool descendant = false;  // ".." before the selector
  Selector selector = Selector::kKey;
  std::string key;
  int64_t index = 0;
  size_t start = 0;  // offset of the segment in the path text, for messages
};

// "unexpected 'c' <context>", built by appending (GCC 12 misreads the bounds of chained
// operator+ on short strings at -O2 and fails the build with -Werror=array-bounds).
std::string unexpected(char c, std::string_view context) {
  std::string s = "unexpected '";
  s.push_back(c);
  s.push_back('\'');
  if (!context.starts_with(';')) s.push_back(' ');
  s.append(context);
  return s;
}

Status syntax_error(std::string_view path, size_t pos, const std::string& what) {
  return Status::InvalidArgument("invalid path '" + std::string(path) + "' at position " + std::to_string(pos + 1) +
                                 ": " + what + " (use $.key, ['key'], [0], [-1], [*], .* or ..key)");
}

// Parses "[...]" at p[i] == '['; sets the selector of `seg` and returns the index after ']'.
Result<size_t> parse_bracket(std::string_view p, size_t i, Segment& seg) {
  size_t j = i + 1;
  while (j < p.size() && p[j] == ' ') ++j;
  if (j >= p.size()) return syntax_error(p, i, "unclosed '['");
  if (p[j] == '*') {
    seg.selector = Selector::kWildcard;
    ++j;
  } else if (p[j] == '\'' || p[j] == '"') {
    const char quote = p[j++];
    seg.selector = Selector::kKey;
    bool closed = false;
    while (j < p.size()) {
      char c = p[j++];
      if (c == quote) {
        closed = true;
        break;
      }
      if (c == '\\' && j < p.size()) c = p[j++];
      seg.key += c;
    }
    if (!closed) return syntax_error(p, i, "unclosed quoted key");
  } else if (p[j] == '-' || std::isdigit(static_cast<unsigned char>(p[j]))) {
    const size_t begin = j;
    if (p[j] == '-') ++j;
    while (j < p.size() && std::isdigit(static_cast<unsigned char>(p[j]))) ++j;
    const std::string digits(p.substr(begin, j - begin));
    if (digits == "-" || digits.size() > 18) return syntax_error(p, begin, "bad array index '" + digits + "'");
    seg.selector = Selector::kIndex;
    seg.index = std::stoll(digits);
  } else {
    return syntax_error(p, j, unexpected(p[j], "inside []"));
  }
  while (j < p.size() && p[j] == ' ') ++j;
  if (j >= p.size() || p[j] != ']') return syntax_error(p, j, "expected ']'");
  return j + 1;
}

Result<std::vector<Segment>> parse_path(std::string_view p) {
  std::vector<Segment> segments;
  size_t i = 0;
  if (i < p.size() && p[i] == '$') ++i;
  const bool implicit_dot = i == 0 && !p.empty() && p[0] != '.' && p[0] != '[';
  while (i < p.size()) {
    Segment seg;
    seg.start = i;
    bool dotted = implicit_dot && i == 0;
    if (p.compare(i, 2, "..") == 0) {
      seg.descendant = true;
      i += 2;
      dotted = true;
    } else if (p[i] == '.') {
      ++i;
      dotted = true;
    }
    if (i < p.size() && p[i] == '[') {
      KEEL_ASSIGN_OR_RETURN(i, parse_bracket(p, i, seg));
    } else if (!dotted) {
      return syntax_error(p, i, unexpected(p[i], "; expected '.' or '['"));
    } else if (i < p.size() && p[i] == '*') {
      seg.selector = Selector::kWildcard;
      ++i;
    } else {
      const size_t begin = i;
      while (i < p.size() && p[i] != '.' && p[i] != '[') ++i;
      if (i == begin) return syntax_error(p, begin, "expected a key name");
      seg.key = std::string(p.substr(begin, i - begin));
    }
    segments.push_back(std::move(seg));
  }
  return segments;
}

// Appends `node` and every value below it, in document order.
void collect_descendants(const json* node, std::vector<const json*>& out) {
  std::vector<const json*> stack{node};
  while (!stack.empty()) {
    const json* n = stack.back();
    stack.pop_back();
    out.push_back(n);
    if (n->is_structured()) {
      // Reverse, so the stack pops children in order.
      std::vector<const json*> children;
      for (const json& child : *n) children.push_back(&child);
      for (auto it = children.rbegin(); it != children.rend(); ++it) stack.push_back(*it);
    }
  }
}

void apply(const Segment& seg, const json& node, std::vector<const json*>& out) {
  switch (seg.selector) {
    case Selector::kKey:
      if (node.is_object()) {
        auto it = node.find(seg.key);
        if (it != node.end()) out.push_back(&*it);
      }
      return;
    case Selector::kIndex:
      if (node.is_array()) {
        const int64_t size = static_cast<int64_t>(node.size());
        const int64_t at = seg.index < 0 ? size + seg.index : seg.index;
        if (at >= 0 && at < size) out.push_back(&node[static_cast<size_t>(at)]);
      }
      return;
    case Selector::kWildcard:
      if (node.is_structured()) {
        for (const json& child : node) out.push_back(&child);
      }
      return;
  }
}

std::string type_phrase(const json& v) {
  switch (v.type()) {
    case json::value_t::object: return "an object";
    case json::value_t::array: return "an array of " + std::to_string(v.size()) + " items";
    case json::value_t::string: return "a string";
    case json::value_t::boolean: return "a boolean";
    case json::value_t::null: return "null";
    default: return "a number";
  }
}

// Why `seg` matched nothing in `nodes` (reached by the path text before it, `where`).
Status no_match(std::string_view path, const Segment& seg, const std::vector<const json*>& nodes,
                std::string where) {
  std::string why;
  if (nodes.size() == 1 && !seg.descendant) {
    const json& n = *nodes[0];
    if (seg.selector == Selector::kKey && n.is_object()) {
      std::string keys;
      size_t shown = 0;
      for (auto it = n.begin(); it != n.end() && shown < 20; ++it, ++shown) keys += (shown ? ", " : "") + it.key();
      if (n.size() > shown) keys += ", ...";
      why = "no key '" + seg.key + "' in the object at " + where + (n.empty() ? " (it is empty)" : "; its keys: " + keys);
    } else if (seg.selector == Selector::kIndex && n.is_array()) {
      why = "index " + std::to_string(seg.index) + " is out of range for the array at " + where + " (" +
            std::to_string(n.size()) + " items)";
    } else {
      why = "the value at " + where + " is " + type_phrase(n);
    }
  } else if (seg.descendant) {
    why = "nothing below " + where + " matches";
  } else {
    why = "none of the " + std::to_string(nodes.size()) + " values at " + where + " has it";
  }
  return Status::NotFound("path '" + std::string(path) + "' matched nothing: " + why);
}

}  // namespace

Result<json> json_path_select(const json& doc, std::string_view raw_path) {
  std::string_view path = raw_path;
  while (!path.empty() && std::isspace(static_cast<unsigned char>(path.front()))) path.remove_prefix(1);
  while (!path.empty() && std::isspace(static_cast<unsigned char>(path.back()))) path.remove_suffix(1);
  if (path.empty()) return Status::InvalidArgument("path is empty; use $ for the whole document");
  KEEL_ASSIGN_OR_RETURN(std::vector<Segment> segments, parse_path(path));

  bool definite = true;
  std::vector<const json*> current{&doc};
  for (const Segment& seg : segments) {
    if (seg.descendant || seg.selector == Selector::kWildcard) definite = false;
    std::vector<const json*> next;
    for (const json* node : current) {
      if (seg.descendant) {
        std::vector<const json*> all;
        collect_descendants(node, all);
        for (const json* n : all) apply(seg, *n, next);
      } else {
        apply(seg, *node, next);
      }
    }
    if (next.empty()) {
      std::string where = seg.start == 0 ? "$" : std::string(path.substr(0, seg.start));
      if (where[0] != '$') where = "$" + std::string(where[0] == '.' || where[0] == '[' ? "" : ".") + where;
      return no_match(raw_path, seg, current, where);
    }
    current = std::move(next);
  }
  if (definite) return *current.front();
  json out = json::array();
  for (const json* v : current) out.push_back(*v);
  return out;
}

}  // namespace keel::detail
