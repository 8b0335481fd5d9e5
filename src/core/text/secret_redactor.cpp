// SecretRedactor: an Aho-Corasick automaton over the secrets' bytes. Each state knows the longest
// secret that ends there (its own or one of its suffixes'), so one left-to-right pass yields, at
// every position, the longest occurrence ending there; overlapping occurrences are merged into one
// span so that no byte of any secret is left in the output.
#include "keel/core/secret_redactor.hpp"

#include <algorithm>
#include <deque>
#include <unordered_set>

namespace keel {
namespace {

constexpr uint32_t kNone = UINT32_MAX;

size_t code_points(std::string_view s) {
  return static_cast<size_t>(std::count_if(s.begin(), s.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  }));
}

// `value` as it appears inside a JSON string (what nlohmann::json::dump() writes).
std::string json_escaped(std::string_view value) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(value.size() + 8);
  for (char ch : value) {
    const auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          out += "\\u00";
          out.push_back(kHex[c >> 4]);
          out.push_back(kHex[c & 0xf]);
        } else {
          out.push_back(ch);
        }
    }
  }
  return out;
}

}  // namespace

SecretRedactor::SecretRedactor(const std::vector<Secret>& secrets) {
  nodes_.emplace_back();  // the root
  std::unordered_set<std::string> seen;
  for (const Secret& s : secrets) {
    if (code_points(s.value) < kMinChars || !seen.insert(s.value).second) continue;
    auto known = std::find(names_.begin(), names_.end(), s.name);
    const auto name = static_cast<uint32_t>(known - names_.begin());
    if (known == names_.end()) names_.push_back(s.name);
    add_pattern(s.value, name);
    std::string escaped = json_escaped(s.value);
    if (escaped != s.value && seen.insert(escaped).second) add_pattern(escaped, name);
  }
  build();
}

std::vector<std::string> SecretRedactor::names() const { return names_; }

void SecretRedactor::add_pattern(std::string_view bytes, uint32_t name) {
  uint32_t state = 0;
  for (char ch : bytes) {
    const auto c = static_cast<unsigned char>(ch);
    auto& next = nodes_[state].next;
    auto it = std::lower_bound(next.begin(), next.end(), c, [](const auto& e, unsigned char b) { return e.first < b; });
    if (it != next.end() && it->first == c) {
      state = it->second;
      continue;
    }
    const auto created = static_cast<uint32_t>(nodes_.size());
    next.insert(it, {c, created});  // `next` is not used after emplace_back may move the nodes
    nodes_.emplace_back();
    state = created;
  }
  const auto index = static_cast<uint32_t>(patterns_.size());
  patterns_.push_back(Pattern{bytes.size(), name});
  uint32_t& longest = nodes_[state].longest;
  if (longest == kNone) longest = index;  // the same bytes twice: the first one's name
}

void SecretRedactor::build() {
  std::fill(std::begin(root_next_), std::end(root_next_), 0u);
  std::deque<uint32_t> queue;
  for (const auto& [byte, child] : nodes_[0].next) {
    root_next_[byte] = child;
    nodes_[child].fail = 0;
    queue.push_back(child);
  }
  while (!queue.empty()) {
    const uint32_t u = queue.front();
    queue.pop_front();
    for (const auto& [byte, child] : nodes_[u].next) {
      Node& v = nodes_[child];
      v.fail = step(nodes_[u].fail, byte);  // a shallower state: its links are already set
      if (v.longest == kNone) v.longest = nodes_[v.fail].longest;
      queue.push_back(child);
    }
  }
}

uint32_t SecretRedactor::step(uint32_t state, unsigned char byte) const {
  for (;;) {
    if (state == 0) return root_next_[byte];
    const auto& next = nodes_[state].next;
    auto it = std::lower_bound(next.begin(), next.end(), byte, [](const auto& e, unsigned char b) { return e.first < b; });
    if (it != next.end() && it->first == byte) return it->second;
    state = nodes_[state].fail;
  }
}

std::vector<SecretRedactor::Span> SecretRedactor::find(std::string_view text) const {
  std::vector<Span> spans;
  if (patterns_.empty()) return spans;
  uint32_t state = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    state = step(state, static_cast<unsigned char>(text[i]));
    const uint32_t longest = nodes_[state].longest;
    if (longest == kNone) continue;
    const Pattern& p = patterns_[longest];
    Span span{i + 1 - p.length, i + 1, {p.name}};
    // Ends only grow, so an overlap is always with the spans at the back.
    while (!spans.empty() && spans.back().end > span.begin) {
      Span& last = spans.back();
      if (last.begin < span.begin) {  // partial overlap: one marker for both
        span.begin = last.begin;
        std::vector<uint32_t> names = last.names;
        for (uint32_t n : span.names) {
          if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
        }
        span.names = std::move(names);
      }  // else `span` contains `last`: its secret contains the other, and its name says enough
      spans.pop_back();
    }
    spans.push_back(std::move(span));
  }
  return spans;
}

std::string SecretRedactor::redact(std::string_view text) const {
  std::string out(text);
  redact_in_place(out);
  return out;
}

bool SecretRedactor::redact_in_place(std::string& text) const {
  std::vector<Span> spans = find(text);
  if (spans.empty()) return false;
  std::string out;
  out.reserve(text.size());
  size_t at = 0;
  for (const Span& s : spans) {
    out.append(text, at, s.begin - at);
    out += "[REDACTED:";
    for (size_t k = 0; k < s.names.size(); ++k) {
      if (k > 0) out += ',';
      out += names_[s.names[k]];
    }
    out += ']';
    at = s.end;
  }
  out.append(text, at, std::string::npos);
  text = std::move(out);
  return true;
}

}  // namespace keel
