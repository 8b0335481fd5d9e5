#include "tools/data/csv_reader.hpp"

#include <algorithm>
#include <charconv>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <map>

namespace keel::detail {
namespace {

constexpr std::string_view kBom = "\xEF\xBB\xBF";
constexpr size_t kSampleRecords = 20;

bool is_break(char c) { return c == '\n' || c == '\r'; }

// Skips one line break at text[i] ("\r\n" counts as one) and returns the index after it.
size_t skip_break(std::string_view text, size_t i) {
  if (text[i] == '\r' && i + 1 < text.size() && text[i + 1] == '\n') return i + 2;
  return i + 1;
}

// A line with nothing but spaces or tabs.
bool is_blank(const CsvRecord& r) {
  return r.fields.size() == 1 && !r.fields[0].quoted &&
         r.fields[0].text.find_first_not_of(" \t") == std::string::npos;
}

// Whether `s` is a JSON-style number; `integral` tells whether it has no fraction or exponent.
bool is_number_text(std::string_view s, bool& integral) {
  size_t i = 0;
  if (i < s.size() && s[i] == '-') ++i;
  if (i >= s.size() || s[i] < '0' || s[i] > '9') return false;
  if (s[i] == '0') {
    ++i;
  } else {
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
  }
  integral = true;
  if (i < s.size() && s[i] == '.') {
    ++i;
    const size_t digits = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    if (i == digits) return false;
    integral = false;
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    const size_t digits = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    if (i == digits) return false;
    integral = false;
  }
  return i == s.size();
}

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

}  // namespace

Result<std::vector<CsvRecord>> read_csv_records(std::string_view text, char delimiter, size_t max_records) {
  if (text.substr(0, kBom.size()) == kBom) text.remove_prefix(kBom.size());
  std::vector<CsvRecord> records;
  size_t i = 0;
  size_t line = 1;
  while (i < text.size()) {
    if (max_records != 0 && records.size() >= max_records) break;
    CsvRecord record;
    record.line = line;
    for (;;) {  // one field per pass
      CsvField field;
      if (i < text.size() && text[i] == '"') {
        field.quoted = true;
        const size_t opened_line = line;
        ++i;
        bool closed = false;
        while (i < text.size()) {
          const char c = text[i];
          if (c == '"') {
            if (i + 1 < text.size() && text[i + 1] == '"') {
              field.text += '"';
              i += 2;
              continue;
            }
            ++i;
            closed = true;
            break;
          }
          if (c == '\n' || (c == '\r' && (i + 1 >= text.size() || text[i + 1] != '\n'))) ++line;
          field.text += c;
          ++i;
        }
        if (!closed) {
          return Status::InvalidArgument("unterminated quoted field: the '\"' that opens a field on line " +
                                         std::to_string(opened_line) + " is never closed");
        }
      }
      while (i < text.size() && text[i] != delimiter && !is_break(text[i])) field.text += text[i++];
      record.fields.push_back(std::move(field));
      if (i < text.size() && text[i] == delimiter) {
        ++i;
        continue;
      }
      break;
    }
    if (i < text.size()) {
      i = skip_break(text, i);
      ++line;
    }
    if (!is_blank(record)) records.push_back(std::move(record));
  }
  return records;
}

char detect_csv_delimiter(std::string_view text) {
  char best = ',';
  size_t best_consistent = 0;
  size_t best_fields = 0;
  for (const char candidate : {',', ';', '\t', '|'}) {
    auto records = read_csv_records(text, candidate, kSampleRecords);
    if (!records.ok() || records->empty()) continue;
    std::map<size_t, size_t> frequency;  // field count → records with it
    for (const CsvRecord& r : *records) ++frequency[r.fields.size()];
    size_t fields = 0;
    size_t consistent = 0;
    for (const auto& [count, times] : frequency) {
      if (times > consistent || (times == consistent && count > fields)) {
        fields = count;
        consistent = times;
      }
    }
    if (fields < 2) continue;
    if (consistent > best_consistent || (consistent == best_consistent && fields > best_fields)) {
      best = candidate;
      best_consistent = consistent;
      best_fields = fields;
    }
  }
  return best;
}

nlohmann::json csv_field_value(const CsvField& field) {
  if (field.quoted) return field.text;
  if (field.text.empty()) return nullptr;
  std::string_view s = field.text;
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  if (iequals(s, "true")) return true;
  if (iequals(s, "false")) return false;
  bool integral = false;
  if (!is_number_text(s, integral)) return field.text;
  if (integral) {
    int64_t v = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec == std::errc() && end == s.data() + s.size()) return v;
    return field.text;  // beyond int64: a float would lose digits (IDs, account numbers)
  }
  double d = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), d);  // locale-independent
  if (ec != std::errc() || end != s.data() + s.size() || !std::isfinite(d)) return field.text;
  return d;
}

}  // namespace keel::detail
