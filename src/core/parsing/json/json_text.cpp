#include "core/parsing/json/json_text.hpp"

#include <algorithm>
#include <charconv>
#include <nlohmann/json.hpp>

#include "core/text/utf8_text.hpp"

namespace keel::detail {

void append_json_string(std::string& out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  out.push_back('"');
  size_t run = 0;  // start of the pending run of bytes that need no escaping
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
      ++i;
      continue;
    }
    if (c >= 0x80) {
      if (size_t len = utf8_sequence_length(s, i)) {
        i += len;
        continue;
      }
    }
    out.append(s.data() + run, i - run);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      default:
        if (c < 0x20) {
          out += "\\u00";
          out.push_back(kHex[c >> 4]);
          out.push_back(kHex[c & 0xF]);
        } else {
          out += "\\ufffd";  // a byte that does not start a valid UTF-8 sequence
        }
    }
    run = ++i;
  }
  out.append(s.data() + run, s.size() - run);
  out.push_back('"');
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
