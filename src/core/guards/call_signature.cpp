#include "core/guards/call_signature.hpp"

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "core/parsing/json/json_view.hpp"

namespace keel::detail {
namespace {

using nlohmann::json;

// The canonical text of the usual arguments, read in place: a flat object whose keys are already
// in order and whose values print as they are written (strings and keys without escapes, integers,
// true, false, null). Nothing when a document must decide (any other shape).
std::optional<std::string> canonical_in_place(std::string_view text) {
  JsonIndex index;
  const StrictJson scanned = scan_strict_json(text, &index);
  if (!scanned.ok) return std::nullopt;
  const JsonView object(text.substr(scanned.begin, scanned.end - scanned.begin), &index);
  if (!object.is_object()) return std::nullopt;
  std::string out;
  out.reserve(scanned.end - scanned.begin);
  out += '{';
  std::string_view previous;
  bool first = true;
  JsonView::Items items = object.items();
  JsonView key, value;
  while (items.next(key, value)) {
    const std::string_view quoted = key.raw();
    const std::string_view name = quoted.substr(1, quoted.size() - 2);
    if (name.find('\\') != std::string_view::npos || (!first && !(previous < name))) return std::nullopt;
    switch (value.type()) {
      case JsonType::kString:
        if (value.raw().find('\\') != std::string_view::npos) return std::nullopt;
        break;
      case JsonType::kNumber:  // an integer prints as written, but for "-0"
        if (value.raw() == "-0" || !int64_value(value)) return std::nullopt;
        break;
      case JsonType::kBoolean:
      case JsonType::kNull:
        break;
      default:
        return std::nullopt;  // a nested object or array
    }
    if (!first) out += ',';
    out.append(quoted);
    out += ':';
    out.append(value.raw());
    previous = name;
    first = false;
  }
  out += '}';
  return out;
}

// Lowercase, collapse whitespace, trim surrounding punctuation and whitespace.
std::string normalize(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  bool space = false;
  for (char ch : s) {
    unsigned char c = static_cast<unsigned char>(ch);
    if (std::isspace(c)) {
      space = !out.empty();
      continue;
    }
    if (space) out.push_back(' ');
    space = false;
    out.push_back(static_cast<char>(std::tolower(c)));
  }
  auto is_trim = [](unsigned char c) { return std::ispunct(c) || std::isspace(c); };
  size_t b = 0, e = out.size();
  while (b < e && is_trim(static_cast<unsigned char>(out[b]))) ++b;
  while (e > b && is_trim(static_cast<unsigned char>(out[e - 1]))) --e;
  return out.substr(b, e - b);
}

bool has_space(std::string_view s) {
  std::string_view t = s;
  size_t b = t.find_first_not_of(" \t\r\n");
  size_t e = t.find_last_not_of(" \t\r\n");
  if (b == std::string_view::npos) return false;
  t = t.substr(b, e - b + 1);
  return t.find_first_of(" \t\r\n") != std::string_view::npos;
}

std::set<std::string> words(std::string_view s) {
  std::set<std::string> out;
  std::string cur;
  for (char ch : s) {
    unsigned char c = static_cast<unsigned char>(ch);
    if (std::isalnum(c) || c >= 0x80) {
      cur.push_back(static_cast<char>(std::tolower(c)));
    } else if (!cur.empty()) {
      out.insert(std::move(cur));
      cur.clear();
    }
  }
  if (!cur.empty()) out.insert(std::move(cur));
  return out;
}

double jaccard(const std::set<std::string>& a, const std::set<std::string>& b) {
  if (a.empty() && b.empty()) return 1.0;
  size_t common = 0;
  for (const auto& w : a) common += b.count(w);
  size_t all = a.size() + b.size() - common;
  return all == 0 ? 1.0 : static_cast<double>(common) / static_cast<double>(all);
}

}  // namespace

Result<std::string> canonical_arguments(std::string_view json_text) {
  size_t first = json_text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return std::string("{}");
  if (std::optional<std::string> canonical = canonical_in_place(json_text)) return std::move(*canonical);
  json parsed = json::parse(json_text, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) return Status::InvalidArgument("arguments are not valid JSON");
  if (!parsed.is_object()) return Status::InvalidArgument("arguments must be a JSON object, got " + std::string(parsed.type_name()));
  return parsed.dump();  // nlohmann objects keep keys sorted
}

std::string call_signature(std::string_view tool, std::string_view canonical_args) {
  std::string sig(tool);
  sig.push_back('\x1f');
  sig.append(canonical_args);
  return sig;
}

double argument_similarity(std::string_view canonical_a, std::string_view canonical_b) {
  if (canonical_a == canonical_b) return 1.0;
  // Canonical JSON has no whitespace outside strings, and a string's tab or line break is escaped:
  // without a space or a backslash `a` holds no phrase, and so differs from `b` as a whole (0)
  // without being parsed. This is most calls (ids, paths, numbers), compared with every earlier one.
  if (canonical_a.find_first_of(" \\") == std::string_view::npos) return 0.0;
  json a = json::parse(canonical_a, nullptr, false);
  json b = json::parse(canonical_b, nullptr, false);
  if (!a.is_object() || !b.is_object() || a.size() != b.size()) return 0.0;
  double lowest = 1.0;
  for (auto it = a.begin(); it != a.end(); ++it) {
    auto other = b.find(it.key());
    if (other == b.end()) return 0.0;
    const json& va = it.value();
    const json& vb = *other;
    if (va.is_string() && vb.is_string()) {
      const auto& sa = va.get_ref<const std::string&>();
      const auto& sb = vb.get_ref<const std::string&>();
      // Single tokens (paths, ids, URLs) differ whenever they are not identical: "../x" is not "x".
      // Phrases (queries, questions) are compared by normalised text, then by their word sets.
      if (!has_space(sa) || !has_space(sb)) return 0.0;
      if (normalize(sa) == normalize(sb)) continue;
      lowest = std::min(lowest, jaccard(words(sa), words(sb)));
    } else if (va != vb) {
      return 0.0;
    }
  }
  return lowest;
}

}  // namespace keel::detail
