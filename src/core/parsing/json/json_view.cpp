#include "core/parsing/json/json_view.hpp"

#include <array>
#include <bit>
#include <charconv>
#include <cstdint>
#include <cstring>

#include "core/parsing/json/json_repair_text.hpp"
#include "core/text/text_util.hpp"

namespace keel::detail {
namespace {

constexpr std::size_t kNpos = std::string_view::npos;

inline bool is_space(char c) {
  return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

std::size_t skip_space(std::string_view t, std::size_t i) {
  while (i < t.size() && is_space(t[i])) ++i;
  return i;
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  return (c | 0x20) - 'a' + 10;
}

std::uint32_t hex4(std::string_view t, std::size_t i) {
  std::uint32_t v = 0;
  for (std::size_t k = 0; k < 4; ++k) v = v * 16 + static_cast<std::uint32_t>(hex_value(t[i + k]));
  return v;
}

// The decoded value of the validated string literal `raw` (quotes included).
std::string decode_string(std::string_view raw) {
  std::string out;
  const std::string_view body = raw.substr(1, raw.size() - 2);
  out.reserve(body.size());
  std::size_t i = 0;
  while (i < body.size()) {
    const std::size_t slash = body.find('\\', i);
    if (slash == kNpos) {
      out.append(body.substr(i));
      break;
    }
    out.append(body.substr(i, slash - i));
    const char e = body[slash + 1];
    i = slash + 2;
    switch (e) {
      case 'b':
        out += '\b';
        break;
      case 'f':
        out += '\f';
        break;
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case 't':
        out += '\t';
        break;
      case 'u': {
        std::uint32_t cp = hex4(body, i);
        i += 4;
        if (cp >= 0xD800 && cp <= 0xDBFF) {  // validated: an escaped low surrogate follows
          cp = 0x10000 + ((cp - 0xD800) << 10) + (hex4(body, i + 2) - 0xDC00);
          i += 6;
        }
        append_utf8(out, cp);
        break;
      }
      default:  // '"', '\\', '/'
        out += e;
    }
  }
  return out;
}

template <class T>
inline T load(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

// a == b for the short strings of keys: word compares beat a call to memcmp.
inline bool same_bytes(std::string_view a, std::string_view b) {
  return a.size() == b.size() && same_span(a.data(), b.data(), a.size());
}

// memcpy for the short values of tool calls: (possibly overlapping) word moves, no call.
inline void copy_bytes(char* dst, const char* src, std::size_t n) {
  if (n > 16) {
    std::memcpy(dst, src, n);
  } else if (n >= 8) {
    const auto head = load<std::uint64_t>(src);
    const auto tail = load<std::uint64_t>(src + n - 8);
    std::memcpy(dst, &head, 8);
    std::memcpy(dst + n - 8, &tail, 8);
  } else if (n >= 4) {
    const auto head = load<std::uint32_t>(src);
    const auto tail = load<std::uint32_t>(src + n - 4);
    std::memcpy(dst, &head, 4);
    std::memcpy(dst + n - 4, &tail, 4);
  } else {
    for (std::size_t i = 0; i < n; ++i) dst[i] = src[i];
  }
}

// Whether the key literal `raw` decodes to `want`.
bool key_is(std::string_view raw, std::string_view want) {
  const std::string_view body = raw.substr(1, raw.size() - 2);
  if (body.find('\\') == kNpos) return body == want;
  return decode_string(raw) == want;
}

bool same_key(std::string_view a, std::string_view b) {
  if (a.find('\\') == kNpos && b.find('\\') == kNpos) return a == b;
  return decode_string(a) == decode_string(b);
}

}  // namespace

const char* JsonView::type_name() const {
  static constexpr const char* kNames[] = {"null", "boolean", "number", "string", "array", "object"};
  return kNames[static_cast<std::size_t>(type())];
}

std::string JsonView::str() const {
  if (index_ != nullptr && ((*index_)[node_].flags & JsonIndex::kEscaped) == 0) {
    return std::string(raw_.substr(1, raw_.size() - 2));  // no escape: the text between the quotes
  }
  return decode_string(raw_);
}

namespace {

// Values up to this size are compacted on the stack and appended at once: one allocation of the
// right size, no zero fill of room that is then cut.
constexpr std::size_t kSmallValue = 512;

// The indexed value `node` (its offsets count from `base`) without the whitespace outside its
// strings, written at dst; returns the end of what was written (never more than the value's size).
char* compact_indexed(const JsonIndex& x, std::size_t node, const char* base, char* dst) {
  // Between the strings, numbers and literals inside the value lie only brackets, ':', ',' and
  // whitespace: copy the values whole and the rest without its whitespace.
  std::size_t cursor = x[node].begin;
  auto punctuation_until = [&](std::size_t to) {
    for (; cursor < to; ++cursor) {
      *dst = base[cursor];
      dst += is_space(base[cursor]) ? 0 : 1;
    }
  };
  for (std::size_t i = node + 1; i < x[node].next; ++i) {
    const JsonIndex::Node& n = x[i];
    if (base[n.begin] == '{' || base[n.begin] == '[') continue;  // its brackets are punctuation
    punctuation_until(n.begin);
    copy_bytes(dst, base + n.begin, n.end - n.begin);
    dst += n.end - n.begin;
    cursor = n.end;
  }
  punctuation_until(x[node].end);
  return dst;
}

// As compact_indexed() for validated JSON text read without an index.
char* compact_scanned(std::string_view raw, char* dst) {
  std::size_t i = 0;
  while (i < raw.size()) {
    const char c = raw[i];
    if (c == '"') {
      const std::size_t end = json_string_end(raw, i);
      copy_bytes(dst, raw.data() + i, end - i);
      dst += end - i;
      i = end;
    } else {
      *dst = c;
      dst += is_space(c) ? 0 : 1;
      ++i;
    }
  }
  return dst;
}

// Appends what `compact(dst)` writes (at most `size` bytes) to `out`.
template <class Compact>
void append_compacted(std::string& out, std::size_t size, Compact&& compact) {
  if (size <= kSmallValue) {
    char buf[kSmallValue];
    out.append(buf, static_cast<std::size_t>(compact(buf) - buf));
    return;
  }
  // Room for all of it, then cut to what was written.
  const std::size_t old_size = out.size();
  out.resize(old_size + size);
  char* end = compact(out.data() + old_size);
  out.resize(static_cast<std::size_t>(end - out.data()));
}

}  // namespace

void JsonView::append_compact(std::string& out) const {
  if (index_ == nullptr || (raw_[0] != '{' && raw_[0] != '[')) return append_compact_json(out, raw_);
  const JsonIndex& x = *index_;
  const char* base = raw_.data() - x[node_].begin;
  const std::size_t node = node_;
  append_compacted(out, raw_.size(), [&](char* dst) { return compact_indexed(x, node, base, dst); });
}

bool JsonView::str_equals(std::string_view s) const {
  return is_string() && key_is(raw_, s);
}

bool JsonView::empty() const {
  if (index_ != nullptr) return (*index_)[node_].next == node_ + 1;
  return skip_space(raw_, 1) + 1 == raw_.size();
}

JsonView::Items::Items(const JsonView& container) : text_(container.raw_), index_(container.index_) {
  if (index_ != nullptr) {
    const JsonIndex::Node& n = (*index_)[container.node_];
    pos_ = container.node_ + 1;
    end_ = n.next;
    base_ = container.raw_.data() - n.begin;
  }
}

bool JsonView::Items::next(JsonView& key, JsonView& value) {
  if (index_ != nullptr) {
    if (pos_ >= end_) return false;
    const JsonIndex& x = *index_;
    key = JsonView();
    if (text_[0] == '{') {
      key = JsonView(std::string_view(base_ + x[pos_].begin, x[pos_].end - x[pos_].begin), index_,
                     static_cast<std::uint32_t>(pos_));
      ++pos_;
    }
    value = JsonView(std::string_view(base_ + x[pos_].begin, x[pos_].end - x[pos_].begin), index_,
                     static_cast<std::uint32_t>(pos_));
    pos_ = x[pos_].next;
    return true;
  }
  pos_ = skip_space(text_, pos_);
  if (pos_ < text_.size() && text_[pos_] == ',') pos_ = skip_space(text_, pos_ + 1);
  if (pos_ + 1 >= text_.size()) return false;  // at the closing bracket
  key = JsonView();
  if (text_[0] == '{') {
    const std::size_t key_end = json_string_end(text_, pos_);
    key = JsonView(text_.substr(pos_, key_end - pos_));
    pos_ = skip_space(text_, skip_space(text_, key_end) + 1);  // past ':'
  }
  const std::size_t end = skip_json_value(text_, pos_);
  value = JsonView(text_.substr(pos_, end - pos_));
  pos_ = end;
  return true;
}

bool JsonView::escaped() const {
  if (index_ != nullptr) return ((*index_)[node_].flags & JsonIndex::kEscaped) != 0;
  return raw_.find('\\') != kNpos;
}

void JsonView::find_keys(const std::string_view* keys, std::size_t n, std::optional<JsonView>* found) const {
  if (!is_object()) return;
  if (index_ != nullptr) {  // the members straight from the index: key node, value node, next member
    const JsonIndex& x = *index_;
    const char* base = raw_.data() - x[node_].begin;
    for (std::size_t k = node_ + 1, end = x[node_].next; k < end;) {
      const JsonIndex::Node& key = x[k];
      const std::size_t v = k + 1;
      const std::string_view body(base + key.begin + 1, key.end - key.begin - 2);
      const bool escaped = (key.flags & JsonIndex::kEscaped) != 0;
      for (std::size_t i = 0; i < n; ++i) {
        if (escaped ? key_is(std::string_view(base + key.begin, key.end - key.begin), keys[i])
                    : same_bytes(body, keys[i])) {
          found[i] = JsonView(std::string_view(base + x[v].begin, x[v].end - x[v].begin), index_,
                              static_cast<std::uint32_t>(v));
        }
      }
      k = x[v].next;
    }
    return;
  }
  Items it = items();
  JsonView k, v;
  while (it.next(k, v)) {
    const std::string_view body = k.raw().substr(1, k.raw().size() - 2);
    const bool plain = !k.escaped();
    for (std::size_t i = 0; i < n; ++i) {
      if (plain ? body == keys[i] : key_is(k.raw(), keys[i])) found[i] = v;
    }
  }
}

std::optional<JsonView> JsonView::find(std::string_view key) const {
  std::optional<JsonView> found;
  find_keys(&key, 1, &found);
  return found;
}

std::size_t JsonView::distinct_keys(std::size_t limit) const {
  std::array<std::string_view, 8> seen;
  std::size_t n = 0;
  const std::size_t cap = limit + 1 < seen.size() ? limit + 1 : seen.size();
  Items it = items();
  JsonView k, v;
  while (n < cap && it.next(k, v)) {
    bool repeated = false;
    for (std::size_t i = 0; i < n && !repeated; ++i) repeated = same_key(seen[i], k.raw());
    if (!repeated) seen[n++] = k.raw();
  }
  return n;
}

std::optional<std::int64_t> int64_value(const JsonView& value) {
  if (value.type() != JsonType::kNumber) return std::nullopt;
  const std::string_view raw = value.raw();
  std::int64_t out = 0;
  const auto [end, ec] = std::from_chars(raw.data(), raw.data() + raw.size(), out);
  if (ec != std::errc() || end != raw.data() + raw.size()) return std::nullopt;
  return out;
}

std::size_t skip_json_value(std::string_view text, std::size_t pos) {
  const char c = text[pos];
  if (c == '"') return json_string_end(text, pos);
  if (c != '{' && c != '[') {
    while (pos < text.size() && !is_space(text[pos]) && text[pos] != ',' && text[pos] != ']' && text[pos] != '}' &&
           text[pos] != '\0') {
      ++pos;
    }
    return pos;
  }
  std::size_t depth = 0;
  for (std::size_t i = pos; i < text.size(); ++i) {
    const char b = text[i];
    if (b == '"') {
      i = json_string_end(text, i) - 1;
    } else if (b == '{' || b == '[') {
      ++depth;
    } else if ((b == '}' || b == ']') && --depth == 0) {
      return i + 1;
    }
  }
  return text.size();
}

std::size_t json_string_end(std::string_view t, std::size_t i) {
  constexpr std::uint64_t kOnes = 0x0101010101010101ull;
  constexpr std::uint64_t kHighs = 0x8080808080808080ull;
  const char* p = t.data() + i + 1;
  const char* end = t.data() + t.size();
  for (;;) {
    if constexpr (std::endian::native == std::endian::little) {
      while (end - p >= 8) {
        std::uint64_t w;
        std::memcpy(&w, p, 8);
        const std::uint64_t quote = w ^ (kOnes * '"');
        const std::uint64_t slash = w ^ (kOnes * '\\');
        const std::uint64_t hits = (((quote - kOnes) & ~quote) | ((slash - kOnes) & ~slash)) & kHighs;
        if (hits != 0) {
          p += std::countr_zero(hits) / 8;
          break;
        }
        p += 8;
      }
    }
    while (p < end && *p != '"' && *p != '\\') ++p;
    if (p >= end) return t.size();
    if (*p == '"') return static_cast<std::size_t>(p - t.data()) + 1;
    p += 2;  // an escape; \uXXXX's digits are plain
  }
}

void append_compact_json(std::string& out, std::string_view raw) {
  append_compacted(out, raw.size(), [&](char* dst) { return compact_scanned(raw, dst); });
}

namespace {

// Writes `before`, `s` quoted, then `after` with one append when `s` is short and needs no escape
// (plain ASCII, the usual key or value); false, with nothing written, otherwise.
bool append_plain_quoted(std::string& out, std::string_view before, std::string_view s, std::string_view after) {
  constexpr std::size_t kRoom = 80;
  if (before.size() + s.size() + after.size() + 2 > kRoom) return false;
  char buf[kRoom];
  char* at = buf;
  for (char c : before) *at++ = c;
  *at++ = '"';
  for (char c : s) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (u < 0x20 || u >= 0x80 || u == '"' || u == '\\') return false;
    *at++ = c;
  }
  *at++ = '"';
  for (char c : after) *at++ = c;
  out.append(buf, static_cast<std::size_t>(at - buf));
  return true;
}

}  // namespace

bool append_quoted_json(std::string& out, std::string_view s) {
  if (append_plain_quoted(out, {}, s, {})) return true;
  static constexpr char kHex[] = "0123456789abcdef";
  bool valid = true;
  out += '"';
  std::size_t run = 0;
  std::size_t i = 0;
  while (i < s.size()) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c != '"' && c != '\\' && c < 0x80) {
      ++i;
      continue;
    }
    if (c >= 0x80) {
      const std::size_t n = utf8_sequence_length(s, i);
      if (n == 0) valid = false;
      i += n == 0 ? 1 : n;
      continue;
    }
    out.append(s.substr(run, i - run));
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
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
      default:
        ((out += "\\u00") += kHex[c >> 4]) += kHex[c & 15];
    }
    run = ++i;
  }
  out.append(s.substr(run));
  out += '"';
  return valid;
}

void JsonObjectWriter::key(std::string_view k) {
  const bool first = first_;
  first_ = false;
  if (append_plain_quoted(text_, first ? std::string_view() : std::string_view(","), k, ":")) return;
  if (!first) text_ += ',';
  if (!append_quoted_json(text_, k)) valid_ = false;
  text_ += ':';
}

void JsonObjectWriter::string_value(std::string_view v) {
  if (!append_quoted_json(text_, v)) valid_ = false;
}

std::string JsonObjectWriter::finish() && {
  text_ += '}';
  return std::move(text_);
}

}  // namespace keel::detail
