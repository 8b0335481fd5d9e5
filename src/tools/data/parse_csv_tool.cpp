// parse_csv — CSV text → {"columns", "rows", "row_count", "delimiter"} as compact JSON, plus
// "truncated"/"total_rows" when rows were cut at max_rows and "ragged_rows"/"ragged_row_count"
// when records have a different number of fields than the header (or, without a header, the
// first record). Reading and typing rules: csv_reader.hpp.
//
// With a header (the default) each row is an object keyed by column name: an empty name becomes
// "column_N" and a repeated one "name_2", "name_3"...; fields missing from a short row are null,
// extra fields of a long row are kept as "column_N" (N its 1-based position). Without a header
// each row is an array of its values and the columns are "column_1".."column_M" (M the widest
// row).
#include <nlohmann/json.hpp>
#include <set>

#include "tools/data/csv_reader.hpp"
#include "tools/data/data_factories.hpp"
#include "tools/fs_common.hpp"

namespace keel::detail {
namespace {

using json = nlohmann::json;

constexpr size_t kMaxRaggedShown = 20;

constexpr const char* kSchema = R"json({
  "type": "object",
  "properties": {
    "text": {"type": "string", "description": "CSV text"},
    "delimiter": {"type": "string", "description": "\"auto\" (default: detects , ; tab |), a single character, or \"tab\""},
    "header": {"type": "boolean", "description": "First row holds column names (default true); rows are then objects"},
    "max_rows": {"type": "integer", "minimum": 1, "description": "Most rows to return"}
  },
  "required": ["text"],
  "additionalProperties": false
})json";

Result<char> delimiter_arg(const std::string& text, const json& args) {
  const std::string d = string_arg(args, "delimiter", "auto");
  if (d == "auto" || d.empty()) return detect_csv_delimiter(text);
  if (d == "tab" || d == "\\t") return '\t';
  if (d == "comma") return ',';
  if (d == "semicolon") return ';';
  if (d == "pipe") return '|';
  if (d.size() != 1 || d[0] == '"' || d[0] == '\r' || d[0] == '\n') {
    return Status::InvalidArgument("delimiter must be \"auto\", \"tab\" or one character other than a quote or "
                                   "line break; got \"" + d + "\"");
  }
  return d[0];
}

std::string delimiter_name(char d) { return d == '\t' ? "tab" : std::string(1, d); }

// Column names from the header record: blanks named by position, repeats numbered.
std::vector<std::string> column_names(const CsvRecord& header) {
  std::vector<std::string> names;
  std::set<std::string> taken;
  for (size_t i = 0; i < header.fields.size(); ++i) {
    std::string base = header.fields[i].text;
    if (base.find_first_not_of(" \t") == std::string::npos) base = "column_" + std::to_string(i + 1);
    std::string name = base;
    for (int n = 2; taken.count(name) != 0; ++n) name = base + "_" + std::to_string(n);
    taken.insert(name);
    names.push_back(std::move(name));
  }
  return names;
}

json row_object(const CsvRecord& record, const std::vector<std::string>& columns) {
  json row = json::object();
  for (size_t i = 0; i < columns.size(); ++i) {
    row[columns[i]] = i < record.fields.size() ? csv_field_value(record.fields[i]) : json(nullptr);
  }
  for (size_t i = columns.size(); i < record.fields.size(); ++i) {
    std::string key = "column_" + std::to_string(i + 1);
    if (row.contains(key)) key += "_extra";
    row[key] = csv_field_value(record.fields[i]);
  }
  return row;
}

json row_array(const CsvRecord& record) {
  json row = json::array();
  for (const CsvField& f : record.fields) row.push_back(csv_field_value(f));
  return row;
}

Result<std::string> parse_csv_text(const DataToolOptions& options, const json& args) {
  const std::string text = string_arg(args, "text", "");
  if (text.size() > options.max_text_bytes) {
    return Status::ResourceExhausted("text is " + std::to_string(text.size()) + " bytes, over the limit of " +
                                     std::to_string(options.max_text_bytes) + " bytes");
  }
  const int64_t max_rows = int_arg(args, "max_rows").value_or(options.csv_max_rows);
  if (max_rows > options.csv_max_rows_limit) {
    return Status::InvalidArgument("max_rows may be at most " + std::to_string(options.csv_max_rows_limit));
  }
  const bool header = bool_arg(args, "header", true);
  KEEL_ASSIGN_OR_RETURN(const char delimiter, delimiter_arg(text, args));
  KEEL_ASSIGN_OR_RETURN(std::vector<CsvRecord> records, read_csv_records(text, delimiter));
  if (records.empty()) return Status::InvalidArgument("text contains no CSV records");

  json columns = json::array();
  std::vector<std::string> names;
  size_t first_row = 0;
  size_t expected = records[0].fields.size();
  if (header) {
    names = column_names(records[0]);
    for (const std::string& n : names) columns.push_back(n);
    first_row = 1;
  } else {
    size_t widest = 0;
    for (const CsvRecord& r : records) widest = std::max(widest, r.fields.size());
    for (size_t i = 1; i <= widest; ++i) columns.push_back("column_" + std::to_string(i));
  }

  json rows = json::array();
  json ragged = json::array();
  size_t ragged_count = 0;
  const size_t total = records.size() - first_row;
  for (size_t i = first_row; i < records.size(); ++i) {
    const CsvRecord& r = records[i];
    if (r.fields.size() != expected) {
      if (++ragged_count <= kMaxRaggedShown) {
        json entry = json::object();
        entry["row"] = i - first_row + 1;
        entry["line"] = r.line;
        entry["fields"] = r.fields.size();
        entry["expected"] = expected;
        ragged.push_back(std::move(entry));
      }
    }
    if (rows.size() < static_cast<size_t>(max_rows)) rows.push_back(header ? row_object(r, names) : row_array(r));
  }

  json out = json::object();
  out["columns"] = std::move(columns);
  out["row_count"] = rows.size();
  out["delimiter"] = delimiter_name(delimiter);
  if (rows.size() < total) {
    out["truncated"] = true;
    out["total_rows"] = total;
  }
  if (ragged_count > 0) {
    out["ragged_row_count"] = ragged_count;
    out["ragged_rows"] = std::move(ragged);
  }
  out["rows"] = std::move(rows);
  return to_json_text(out);
}

constexpr const char* kCsvOutputSchema = R"json({
  "type": "object",
  "properties": {
    "columns": {"type": "array", "items": {"type": "string"}},
    "rows": {"type": "array", "items": {"type": ["object", "array"]}, "description": "Objects by column with a header row, else arrays"},
    "row_count": {"type": "integer", "minimum": 0, "description": "Rows returned"},
    "delimiter": {"type": "string"},
    "truncated": {"type": "boolean", "description": "Present when max_rows cut the rows"},
    "total_rows": {"type": "integer", "minimum": 0},
    "ragged_row_count": {"type": "integer", "minimum": 0, "description": "Rows with another number of fields than the header"},
    "ragged_rows": {"type": "array", "items": {"type": "object"}}
  },
  "required": ["columns", "rows", "row_count", "delimiter"],
  "additionalProperties": false
})json";

}  // namespace

std::unique_ptr<Tool> make_parse_csv_tool(const DataToolOptions& options) {
  ToolSpec spec = data_tool_spec(
      "parse_csv",
      "Parse CSV text (quotes, any of , ; tab | detected) into rows; with a header row each row is an object. "
      "Numbers and true/false are typed, empty fields are null.",
      kSchema, /*cacheable=*/true);
  spec.output_schema = kCsvOutputSchema;
  return make_tool(std::move(spec), [options](const nlohmann::json& args, const ToolContext&) {
    return parse_csv_text(options, args);
  });
}

}  // namespace keel::detail
