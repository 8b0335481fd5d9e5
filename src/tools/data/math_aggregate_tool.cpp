// math_aggregate — sum / avg / min / max / count / median over `values` (an array) or over `field`
// of each object in `rows` (seed 003's aggregate helper). With `field`, each item's member of
// that name is read (a dotted name such as "price.net" reaches into nested objects when no member
// has the full name). Numbers and numeric strings (" 12", "-3.5", "1e3", "+4") count; anything
// else (text, booleans, null, a missing field) is skipped and reported in "skipped".
//
// Output: {"op", "value", "count", "skipped"} as compact JSON. sum of integers stays an integer
// (unless it overflows int64); avg and the median of an even count (the mean of the two middle
// values) are floats; min, max and an odd median are the value as it was. No numbers: sum and
// count are 0, the others an error.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>

#include "tools/data/data_factories.hpp"
#include "tools/fs_common.hpp"

namespace keel::detail {
namespace {

using json = nlohmann::json;

constexpr const char* kSchema = R"json({
  "type": "object",
  "properties": {
    "op": {"type": "string", "enum": ["sum", "avg", "min", "max", "count", "median"]},
    "values": {"type": "array", "description": "Numbers (numeric strings count; other items are skipped)"},
    "rows": {"type": "array", "description": "Objects whose `field` is aggregated"},
    "field": {"type": "string", "description": "Member of each row (or of each item of values) to aggregate"}
  },
  "required": ["op"],
  "additionalProperties": false
})json";

constexpr const char* kOutputSchema = R"json({
  "type": "object",
  "properties": {
    "op": {"type": "string", "enum": ["sum", "avg", "min", "max", "count", "median"]},
    "value": {"type": "number", "description": "The result; an integer when every input was one (sum, min, max, median of an odd count)"},
    "count": {"type": "integer", "minimum": 0, "description": "Numbers aggregated"},
    "skipped": {"type": "integer", "minimum": 0, "description": "Items skipped as non-numeric or without the field"}
  },
  "required": ["op", "value", "count", "skipped"],
  "additionalProperties": false
})json";

struct Number {
  double d = 0;
  int64_t i = 0;
  bool is_int = false;
  json as_json() const { return is_int ? json(i) : json(d); }
};

bool less(const Number& a, const Number& b) { return a.is_int && b.is_int ? a.i < b.i : a.d < b.d; }

std::optional<Number> number_from_text(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  if (s.empty()) return std::nullopt;
  const char* end = s.data() + s.size();
  Number n;
  if (auto [p, ec] = std::from_chars(s.data(), end, n.i); ec == std::errc() && p == end) {
    n.is_int = true;
    n.d = static_cast<double>(n.i);
    return n;
  }
  if (auto [p, ec] = std::from_chars(s.data(), end, n.d); ec == std::errc() && p == end && std::isfinite(n.d)) {
    return n;
  }
  return std::nullopt;
}

std::optional<Number> number_of(const json& v) {
  Number n;
  if (v.is_number_integer() && !v.is_number_unsigned()) {
    n.i = v.get<int64_t>();
    n.d = static_cast<double>(n.i);
    n.is_int = true;
    return n;
  }
  if (v.is_number_unsigned()) {
    const uint64_t u = v.get<uint64_t>();
    if (u <= static_cast<uint64_t>(INT64_MAX)) {
      n.i = static_cast<int64_t>(u);
      n.is_int = true;
    }
    n.d = static_cast<double>(u);
    return n;
  }
  if (v.is_number_float()) {
    n.d = v.get<double>();
    if (!std::isfinite(n.d)) return std::nullopt;
    return n;
  }
  if (v.is_string()) return number_from_text(v.get_ref<const std::string&>());
  return std::nullopt;
}

const json* field_of(const json& item, const std::string& field) {
  if (!item.is_object()) return nullptr;
  if (auto it = item.find(field); it != item.end()) return &*it;
  const json* at = &item;
  size_t start = 0;
  while (start <= field.size()) {
    const size_t dot = std::min(field.find('.', start), field.size());
    if (!at->is_object()) return nullptr;
    auto it = at->find(field.substr(start, dot - start));
    if (it == at->end()) return nullptr;
    at = &*it;
    start = dot + 1;
  }
  return at;
}

Result<json> sum_of(const std::vector<Number>& nums) {
  bool ints = std::all_of(nums.begin(), nums.end(), [](const Number& n) { return n.is_int; });
  if (ints) {
    int64_t total = 0;
    for (const Number& n : nums) {
      if (__builtin_add_overflow(total, n.i, &total)) {
        ints = false;
        break;
      }
    }
    if (ints) return json(total);
  }
  // Neumaier's compensated sum: keeps the low bits that plain addition drops.
  double sum = 0;
  double compensation = 0;
  for (const Number& n : nums) {
    const double t = sum + n.d;
    compensation += std::fabs(sum) >= std::fabs(n.d) ? (sum - t) + n.d : (n.d - t) + sum;
    sum = t;
  }
  const double total = sum + compensation;
  if (!std::isfinite(total)) return Status::ResourceExhausted("the sum is too large for a double");
  return json(total);
}

Result<std::string> aggregate(const json& args) {
  const std::string op = string_arg(args, "op", "");
  const bool has_values = args.contains("values");
  const bool has_rows = args.contains("rows");
  const std::string field = string_arg(args, "field", "");
  if (has_values == has_rows) {
    return Status::InvalidArgument(has_values ? "pass either `values` or `rows`, not both"
                                              : "pass `values` (an array of numbers) or `rows` with `field`");
  }
  if (has_rows && field.empty()) return Status::InvalidArgument("`rows` needs `field`: the member to aggregate");
  const json& items = has_values ? args["values"] : args["rows"];

  std::vector<Number> nums;
  size_t skipped = 0;
  size_t with_field = 0;
  for (const json& item : items) {
    const json* v = field.empty() ? &item : field_of(item, field);
    if (v != nullptr) ++with_field;
    std::optional<Number> n = v != nullptr ? number_of(*v) : std::nullopt;
    if (n) {
      nums.push_back(*n);
    } else {
      ++skipped;
    }
  }

  // A field no item has is a wrong name, not a column of blanks: a sum of 0 would be a plausible
  // wrong answer.
  if (!field.empty() && !items.empty() && with_field == 0) {
    std::string names;
    if (items[0].is_object()) {
      for (const auto& [key, member] : items[0].items()) names += (names.empty() ? "" : ", ") + key;
    }
    return Status::InvalidArgument("no item has a field '" + field + "'" +
                                   (names.empty() ? std::string() : "; the first item's fields are (sorted): " + names));
  }

  json value;
  if (op == "count") {
    value = nums.size();
  } else if (op == "sum") {
    KEEL_ASSIGN_OR_RETURN(value, sum_of(nums));
  } else if (nums.empty()) {
    return Status::InvalidArgument("cannot compute " + op + " of no numbers: " + std::to_string(items.size()) +
                                   " items, " + std::to_string(skipped) + " skipped as non-numeric" +
                                   (field.empty() ? "" : " or without field '" + field + "'"));
  } else if (op == "avg") {
    long double total = 0;
    for (const Number& n : nums) total += n.d;
    value = static_cast<double>(total / static_cast<long double>(nums.size()));
  } else if (op == "min") {
    value = std::min_element(nums.begin(), nums.end(), less)->as_json();
  } else if (op == "max") {
    value = std::max_element(nums.begin(), nums.end(), less)->as_json();
  } else if (op == "median") {
    std::sort(nums.begin(), nums.end(), less);
    const size_t mid = nums.size() / 2;
    value = nums.size() % 2 == 1 ? nums[mid].as_json() : json(nums[mid - 1].d / 2 + nums[mid].d / 2);
  } else {
    return Status::InvalidArgument("unknown op '" + op + "'; use sum, avg, min, max, count or median");
  }

  json out = json::object();
  out["op"] = op;
  out["value"] = std::move(value);
  out["count"] = nums.size();
  out["skipped"] = skipped;
  return to_json_text(out);
}

}  // namespace

std::unique_ptr<Tool> make_math_aggregate_tool() {
  ToolSpec spec = data_tool_spec(
      "math_aggregate",
      "Compute sum, avg, min, max, count or median of an array of numbers, or of one field of an array of row "
      "objects (e.g. parse_csv rows). Non-numeric values are skipped and counted.",
      kSchema, /*cacheable=*/true);
  spec.output_schema = kOutputSchema;
  return make_tool(std::move(spec), [](const nlohmann::json& args, const ToolContext&) {
    return aggregate(args);
  });
}

}  // namespace keel::detail
