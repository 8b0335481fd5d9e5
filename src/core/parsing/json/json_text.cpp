#include "core/parsing/json/json_text.hpp"

#include <algorithm>
#include <charconv>
#include <nlohmann/json.hpp>

#include "core/parsing/json/json_view.hpp"
#include "core/text/utf8_text.hpp"

namespace keel::detail {

void append_json_string(std::string& out, std::string_view s) {
  const std::size_t before = out.size();
  if (append_quoted_json(out, s)) return;
  out.resize(before);  // ill-formed UTF-8: written again from a copy with U+FFFD in its place
  append_quoted_json(out, sanitize_utf8(s));
}

void append_json_int(std::string& out, std::int64_t v) {
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  (void)ec;  // 24 bytes hold any 64-bit integer
  out.append(buf, end);
}

void append_json_double(std::string& out, double v) {
  // Rare in what crosses the boundary (sampling settings, a budget): nlohmann's own form keeps
  // the text identical to its dump().
  out += nlohmann::json(v).dump();
}

void append_json_key(std::string& out, std::string_view key) {
  append_json_string(out, key);
  out += ':';
}

void append_string_members(std::string& out,
                           std::initializer_list<std::pair<std::string_view, std::string_view>> members) {
  bool first = true;
  for (const auto& [key, value] : members) {
    if (!first) out += ',';
    first = false;
    append_json_key(out, key);
    append_json_string(out, value);
  }
}

bool is_json_value(std::string_view text) {
  return nlohmann::json::accept(text);
}

std::string& SortedJsonObject::member(std::string_view key) {
  members_.push_back(Member{key, values_.size()});
  return values_;
}

void SortedJsonObject::append_to(std::string& out) const {
  std::vector<std::size_t> order(members_.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return members_[a].key < members_[b].key; });
  out += '{';
  bool first = true;
  for (std::size_t i : order) {
    if (!first) out += ',';
    first = false;
    append_json_key(out, members_[i].key);
    const std::size_t end = i + 1 < members_.size() ? members_[i + 1].begin : values_.size();
    out.append(values_, members_[i].begin, end - members_[i].begin);
  }
  out += '}';
}

}  // namespace keel::detail
