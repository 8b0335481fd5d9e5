// Strict JSON validation without building a document. It accepts exactly what nlohmann::json::parse
// accepts (RFC 8259 values; strings with the JSON escapes, \u surrogate pairs and well-formed
// UTF-8; numbers whose value fits a double; a leading UTF-8 byte-order mark; a NUL byte after the
// value, which nlohmann reads as the end of the text), refusing nesting deeper than
// kLenientJsonMaxDepth. Model output is mostly valid JSON: validating it in place lets the parser
// keep the text as it is instead of building and serialising a DOM. Linear, no allocation.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace keel::detail {

// Deepest nesting of arrays/objects accepted (deeper input is an error, never a stack overflow).
inline constexpr std::size_t kLenientJsonMaxDepth = 512;

// Where the values of validated JSON text lie, recorded by the validating scan so that readers
// (JsonView, json_view.hpp) find members, skip values and compact text without reading it again.
// One node per value, object keys included, in text order; offsets count from the first byte of
// the scanned value. A text with more than kCapacity values is not indexed (usable() is false) and
// is read by scanning instead. Fixed size, no allocation; a plain value, not thread-safe.
//
//   JsonIndex index;
//   StrictJson v = scan_strict_json(text, &index);
//   JsonView view(text.substr(v.begin, v.end - v.begin), &index);
class JsonIndex {
 public:
  static constexpr std::size_t kCapacity = 128;
  static constexpr std::uint16_t kEscaped = 1;  // Node::flags: a string holding a backslash escape

  struct Node {
    std::uint32_t begin;  // offset of the value's first byte (a string's opening quote)
    std::uint32_t end;    // offset just past its last byte
    std::uint16_t next;   // index of the node after this value and every value inside it
    std::uint16_t flags;  // kEscaped or 0
  };

  JsonIndex() = default;
  JsonIndex(const JsonIndex& o) : size_(o.size_), usable_(o.usable_) { std::copy_n(o.nodes_, size_, nodes_); }
  JsonIndex& operator=(const JsonIndex& o) {
    size_ = o.size_;
    usable_ = o.usable_;
    std::copy_n(o.nodes_, size_, nodes_);
    return *this;
  }

  // Whether the last scan that filled this index succeeded with every value recorded.
  bool usable() const { return usable_; }
  // Empties the index (unusable until a scan fills it).
  void reset() {
    size_ = 0;
    usable_ = false;
  }
  const Node& operator[](std::size_t i) const { return nodes_[i]; }

 private:
  friend class JsonIndexWriter;  // the scanner's side (json_scan.cpp)
  Node nodes_[kCapacity + 1];    // [0, size_) are set; the last one takes writes past capacity
  std::uint16_t size_ = 0;
  bool usable_ = false;
};

// The span [begin, end) of the value inside the text that scan_strict_json() validated.
struct StrictJson {
  bool ok = false;
  std::size_t begin = 0;
  std::size_t end = 0;
};

// Validates the single JSON value that makes up `text` (whitespace around it allowed). With
// `index`, also records where its values lie (usable() when it is valid and small enough).
StrictJson scan_strict_json(std::string_view text, JsonIndex* index = nullptr);

// Validates the JSON value that starts at text[pos] (whitespace before it skipped); returns its
// end, or npos when no valid value starts there. Text after the value is not looked at. `index`
// as for scan_strict_json().
std::size_t scan_json_value(std::string_view text, std::size_t pos, JsonIndex* index = nullptr);

// Whether `number` (a JSON number token, already validated) is an integer as nlohmann reads it:
// no fraction or exponent, and within int64 (negative) or uint64 (otherwise).
bool json_number_is_integer(std::string_view number);

}  // namespace keel::detail
