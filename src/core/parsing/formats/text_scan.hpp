// Scanning helpers shared by the text tool-call formats (hermes, qwen3_coder, glm45, llama3,
// functionary, gemma, pythonic): skipping markdown code, cutting call segments out of the
// visible text, and turning JSON payloads into calls with their repairs.
#pragma once

#include <array>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/parsing/json/json_repair.hpp"
#include "core/parsing/json/json_view.hpp"
#include "core/text/small_vector.hpp"
#include "core/text/text_util.hpp"
#include "keel/core/tool_call_format.hpp"

namespace keel::detail {

inline constexpr size_t kNpos = std::string_view::npos;

// What the caller's own strict scan said of a JSON payload (see lenient_payload()).
enum class Scanned { kNo, kValid, kInvalid };

// Markdown code (``` fenced blocks and `inline` spans) met while scanning a reply forward. Call
// syntax inside code is an example shown to the user, never a call. Positions passed to skip()
// must not decrease; all the work together is linear in the text.
class MarkdownCode {
 public:
  explicit MarkdownCode(std::string_view text) : text_(text) {}
  // `pos` when it lies outside code, else the end of the code region that holds it.
  size_t skip(size_t pos);
  // The text before `end` belonged to a call: it is not scanned for code.
  void consumed(size_t end);

 private:
  size_t next_tick(size_t from);
  size_t fence_end(size_t after_ticks) const;
  size_t inline_end(size_t after_ticks) const;

  std::string_view text_;
  size_t scanned_ = 0;  // text before this is classified
  size_t region_begin_ = 0;
  size_t region_end_ = 0;
  size_t tick_ = 0;  // cached position of the next backtick
  bool tick_known_ = false;
};

// The first `marker` at or after `from` outside markdown code; kNpos when none.
size_t find_outside_code(std::string_view text, std::string_view marker, size_t from, MarkdownCode& code);

// Repeated forward searches for one marker; each character is scanned once as long as the
// positions passed to next() do not decrease.
class Finder {
 public:
  Finder(std::string_view text, std::string_view marker) : text_(text), marker_(marker) {}
  // The first occurrence at or after `from`; kNpos when none.
  size_t next(size_t from);

 private:
  std::string_view text_;
  std::string_view marker_;
  size_t hit_ = 0;
  bool known_ = false;
};

// Whether `text` has `prefix` at `pos`.
// (Inline: the first byte settles most looks; the rest is compared a word at a time, no call.)
inline bool starts_at(std::string_view text, size_t pos, std::string_view prefix) {
  if (pos > text.size() || text.size() - pos < prefix.size()) return false;
  if (prefix.empty()) return true;
  return text[pos] == prefix[0] && same_span(text.data() + pos + 1, prefix.data() + 1, prefix.size() - 1);
}

// The JSON value starting at text[pos] ('{' or '['), skipping strings: `closed` with its end when
// it balances, else where `stop` first appears outside strings (or text.size()).
struct JsonExtent {
  size_t end = 0;
  bool closed = false;
};
JsonExtent json_extent_until(std::string_view text, size_t pos, std::string_view stop);

// Where a JSON payload starting at `pos` (just after an opening tag) ends, for formats that close
// it with `close_tag`. A missing close tag is accepted when the JSON is complete and the text ends,
// the next `open_tag` follows, or a special token (<|...|>) follows. Linear overall when the
// Finder's positions do not decrease.
struct TaggedPayload {
  size_t payload_end = 0;  // the payload is [pos, payload_end)
  size_t segment_end = 0;  // end of the call's text (past the close tag when there is one)
  bool cut_off = false;    // the text ended before the payload or the tag closed
  bool valid = false;      // the payload is exactly one strictly valid JSON value (no repair needed)
  bool refused = false;    // no strictly valid JSON value starts at the payload (nor is the payload one)
  // What the scan says of the payload, for lenient_payload().
  Scanned scanned() const { return valid ? Scanned::kValid : refused ? Scanned::kInvalid : Scanned::kNo; }
};
// `index`, when given, records a valid payload (as scan_json_value()).
TaggedPayload tagged_payload(std::string_view text, size_t pos, std::string_view close_tag, std::string_view open_tag,
                             Finder& closes, JsonIndex* index = nullptr);

// ASCII classes, independent of the C locale.
inline bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}
constexpr bool is_alpha(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
constexpr bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

// Position of the first non-whitespace character at or after `pos` (text.size() when none).
// (Inline: it is called at every tag, and mostly finds no space or one line break.)
inline size_t skip_space(std::string_view text, size_t pos) {
  while (pos < text.size() && is_space(text[pos])) ++pos;
  return pos;
}

// `s` quoted for an error message: at most `max` bytes, ill-formed UTF-8 and control characters
// shown as '?' (messages travel inside JSON, which needs well-formed UTF-8).
std::string shown(std::string_view s, size_t max = 40);
// The character at text[pos] quoted for "found ..." in an error message.
std::string shown_char(std::string_view text, size_t pos);

// Whether only spaces or tabs stand between the start of `pos`'s line and `pos`.
bool at_line_start(std::string_view text, size_t pos);

// Characters of a tool name: letters, digits, '_', '-', '.', and the bytes of non-ASCII UTF-8
// characters (tools may be named in any script: 获取天气).
inline bool is_name_char(char c) {
  static constexpr auto kName = [] {
    std::array<bool, 256> t{};
    for (int b = 0; b < 256; ++b) {
      const char x = static_cast<char>(b);
      t[static_cast<size_t>(b)] = is_alpha(x) || is_digit(x) || x == '_' || x == '-' || x == '.' || b >= 0x80;
    }
    return t;
  }();
  return kName[static_cast<unsigned char>(c)];
}
// End of the tool name starting at `pos` (== pos when there is none).
inline size_t name_end(std::string_view text, size_t pos) {
  while (pos < text.size() && is_name_char(text[pos])) ++pos;
  return pos;
}

// A call's segment of the reply, [begin, end).
struct Cut {
  size_t begin;
  size_t end;
};
// The call segments of one reply, in order (replies hold a few calls: no allocation for them).
using Cuts = SmallVector<Cut, 8>;

// The text outside the ordered, non-overlapping `cuts`, without the `drop` tokens (end-of-turn
// markers), trimmed.
std::string text_outside(std::string_view text, std::span<const Cut> cuts,
                         std::initializer_list<std::string_view> drop = {});

// A call's place in the reply for messages, such as "<tool_call> at offset 12". Most calls need
// no message: the text is written (into an inline buffer, no allocation for the usual short names)
// the first time it is read. Not copyable (the view points into it); not thread-safe.
class Label {
 public:
  // `parts` (at most three, views that outlive the label) in order, then " at offset " and `offset`.
  Label(std::initializer_list<std::string_view> parts, size_t offset);
  // A label whose text is `text` (which outlives it).
  explicit Label(std::string_view text) : text_(text), made_(true) {}
  Label(const Label&) = delete;
  Label& operator=(const Label&) = delete;
  operator std::string_view() const {
    if (!made_) make();
    return text_;
  }
  // The label followed by `s`, for a message.
  friend std::string operator+(const Label& l, std::string_view s) {
    const std::string_view text = l;
    std::string out;
    out.reserve(text.size() + s.size());
    out.append(text);
    out.append(s);
    return out;
  }

 private:
  void make() const;

  std::array<std::string_view, 3> parts_;
  size_t count_ = 0;
  size_t offset_ = 0;
  mutable char buf_[64];
  mutable std::string long_;  // the text when it does not fit buf_
  mutable std::string_view text_;
  mutable bool made_ = false;
};

// Sets the result's error unless an earlier one is there: the first failure is the one to report.
void fail(FormatResult& out, std::string message);

// A call being assembled; its repairs count only when it is committed.
struct CallDraft {
  std::string name;
  std::string arguments = "{}";  // a JSON object, as text
  std::vector<std::string> repairs;
  bool valid_utf8 = true;  // false: a string in the arguments holds ill-formed UTF-8
};

// Appends the draft as a call and its repairs to `out`; arguments holding ill-formed UTF-8
// become an error naming `where`.
void commit(FormatResult& out, CallDraft&& draft, const Label& where);

// Parses a JSON payload leniently (json_repair.hpp); on success its fixes go to `repairs` as
// "<where>: <fix>". Check ok() and read the value with view(). `scanned` kValid: the payload is
// one strictly valid value, which is then taken as it is (with `index`, its scan's index, when
// there is one; it must outlive the result); kInvalid: it goes straight to the repair pass.
LenientText lenient_payload(std::string_view payload, const Label& where, std::vector<std::string>& repairs,
                            Scanned scanned = Scanned::kNo, const JsonIndex* index = nullptr);

// Normalises a call's arguments into draft.arguments: an object as it is, a string holding a JSON
// object unwrapped (a repair), null or absent as {}. False with `why` for anything else.
bool take_arguments(std::optional<JsonView> args, CallDraft& draft, const Label& where, std::string& why);

// Reads {"name": N, "arguments"|"parameters": A} (optionally wrapped as {"function": {...}})
// into `draft`. False with `why` when the object is not shaped like a call.
bool call_from_object(JsonView obj, CallDraft& draft, const Label& where, std::string& why);

}  // namespace keel::detail
