// Reading and writing JSON as text, without a document: JsonView walks a value that
// scan_strict_json() (json_scan.hpp) accepted, and the writers emit compact JSON text. Tool-call
// arguments stay the text the model wrote (only whitespace dropped), so a call costs one
// validation pass instead of a DOM build and a dump.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/parsing/json/json_scan.hpp"

namespace keel::detail {

enum class JsonType : unsigned char { kNull, kBoolean, kNumber, kString, kArray, kObject };

// One value inside validated JSON text (no surrounding whitespace). Cheap to copy. A view made
// with the JsonIndex of its text's scan (and the views it hands out) read members and compact
// through the index instead of scanning; the index must outlive them.
class JsonView {
 public:
  JsonView() = default;
  explicit JsonView(std::string_view raw) : raw_(raw) {}
  // The whole value that `index` recorded (its node 0); `raw` is that value's text. Without a
  // usable index, the same as JsonView(raw).
  JsonView(std::string_view raw, const JsonIndex* index)
      : raw_(raw), index_(index != nullptr && index->usable() ? index : nullptr) {}

  std::string_view raw() const { return raw_; }
  JsonType type() const {
    switch (raw_.empty() ? 'n' : raw_[0]) {
      case '{':
        return JsonType::kObject;
      case '[':
        return JsonType::kArray;
      case '"':
        return JsonType::kString;
      case 't':
      case 'f':
        return JsonType::kBoolean;
      case 'n':
        return JsonType::kNull;
      default:
        return JsonType::kNumber;
    }
  }
  // nlohmann's name of the type ("object", "number", ...), for messages.
  const char* type_name() const;
  bool is_object() const { return type() == JsonType::kObject; }
  bool is_array() const { return type() == JsonType::kArray; }
  bool is_string() const { return type() == JsonType::kString; }
  bool is_null() const { return type() == JsonType::kNull; }

  // A string's decoded value.
  std::string str() const;
  // Appends the value's text without the whitespace outside strings.
  void append_compact(std::string& out) const;
  // Whether this is a string whose decoded value equals `s`.
  bool str_equals(std::string_view s) const;
  // An array or object without elements.
  bool empty() const;

  // An object's value for `key`; the last one when the key repeats (as JSON parsers keep it).
  std::optional<JsonView> find(std::string_view key) const;
  // find() for several keys in one pass over the object: found[k] is the value of keys[k].
  template <std::size_t N>
  std::array<std::optional<JsonView>, N> find_each(const std::string_view (&keys)[N]) const {
    std::array<std::optional<JsonView>, N> found;
    find_keys(keys, N, found.data());
    return found;
  }
  bool contains(std::string_view key) const { return find(key).has_value(); }
  // The number of distinct keys of an object, counted up to `limit` (limit + 1 means more).
  std::size_t distinct_keys(std::size_t limit) const;

  // The elements of an array, or the members of an object, in text order:
  //   JsonView::Items it = v.items(); JsonView key, value; while (it.next(key, value)) ...
  // `key` is the member's key (a JSON string) and is left empty for array elements.
  class Items {
   public:
    explicit Items(const JsonView& container);
    bool next(JsonView& key, JsonView& value);

   private:
    std::string_view text_;  // the container's text
    std::size_t pos_ = 1;    // where the next item starts (indexed: the next item's node)
    const JsonIndex* index_ = nullptr;
    std::size_t end_ = 0;         // indexed: the node after the container
    const char* base_ = nullptr;  // indexed: where the index's offsets count from
  };
  Items items() const { return Items(*this); }

 private:
  JsonView(std::string_view raw, const JsonIndex* index, std::uint32_t node) : raw_(raw), index_(index), node_(node) {}
  void find_keys(const std::string_view* keys, std::size_t n, std::optional<JsonView>* found) const;
  // Whether a key (a string of this text) holds an escape; without an index, looked for.
  bool escaped() const;

  std::string_view raw_;
  const JsonIndex* index_ = nullptr;  // null: read by scanning
  std::uint32_t node_ = 0;            // this value's node in index_
};

// The end of the validated JSON value that starts at text[pos].
std::size_t skip_json_value(std::string_view text, std::size_t pos);

// An integer number's value when it fits 64 bits; nothing for anything else (a fraction, an
// exponent, a larger integer, not a number).
std::optional<std::int64_t> int64_value(const JsonView& value);

// Just past the '"' that closes the string opening at text[quote] (a backslash escapes the byte
// after it), or text.size() when it is not closed. Any text; fast on long strings.
std::size_t json_string_end(std::string_view text, std::size_t quote);

// Appends validated JSON text without the whitespace outside strings.
void append_compact_json(std::string& out, std::string_view raw);

// Appends `s` as a JSON string literal. Ill-formed UTF-8 is copied as it is and makes the result
// false: the caller must not hand that text on as JSON.
bool append_quoted_json(std::string& out, std::string_view s);

// Builds a JSON object's text member by member (keys are not deduplicated: like a parser, readers
// keep the last of repeated keys).
class JsonObjectWriter {
 public:
  JsonObjectWriter() {
    text_.reserve(64);  // room for the usual few arguments: no regrowth as they are added
    text_ += '{';
  }
  void key(std::string_view k);
  void string_value(std::string_view v);
  void raw_value(std::string_view compact_json) { text_.append(compact_json); }
  // The output for writers that append a value themselves (after key()).
  std::string& text() { return text_; }
  void mark_invalid() { valid_ = false; }
  // False when a key or string held ill-formed UTF-8.
  bool valid() const { return valid_; }
  std::string finish() &&;

 private:
  std::string text_;
  bool valid_ = true;
  bool first_ = true;
};

}  // namespace keel::detail
