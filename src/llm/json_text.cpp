#include "llm/json_text.hpp"

#include <cstdint>
#include <functional>
#include <mutex>
#include <nlohmann/json.hpp>
#include <unordered_set>

#include "core/text/utf8_text.hpp"

namespace keel::detail {

void append_json_string(std::string& out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  out.reserve(out.size() + s.size() + 2);
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
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
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

bool is_json_value(std::string_view text) {
  // Tool schemas are checked on every request, and a run sends the same ones each round: texts
  // once accepted are remembered by their hash and length (a bounded set), which costs a pass
  // over the bytes instead of a parse.
  static std::mutex mu;
  static std::unordered_set<std::uint64_t> accepted;
  const std::uint64_t key = std::hash<std::string_view>{}(text) ^ (static_cast<std::uint64_t>(text.size()) << 40);
  {
    std::lock_guard lock(mu);
    if (accepted.count(key) != 0) return true;
  }
  if (!nlohmann::json::accept(text)) return false;
  std::lock_guard lock(mu);
  if (accepted.size() >= 4096) accepted.clear();
  accepted.insert(key);
  return true;
}

}  // namespace keel::detail
