// Gemma 4: each call between its own tokens, arguments in Gemma's object syntax,
//   <|tool_call>call:get_weather{location:<|"|>Paris, France<|"|>,days:3}<tool_call|>
// Keys are bare (or quoted with <|"|>), strings are delimited by <|"|>, and numbers, true, false,
// null, nested {...} objects and [...] lists are written bare; a key with nothing after its colon
// is the empty string, a string in JSON's double quotes is read as JSON, and any other bare word
// is a string; a string whose opening delimiter was left out runs to its closing one (a repair).
// Reasoning in the <|channel>thought ... <channel|>
// channel is separated. The model's slips are read as repairs: a call closed by <turn|>, a stray
// ':' after the token, the token split as <call>, or a bare call:NAME{...} at the start of a line
// (found where the string delimiter or the channel marks the reply as Gemma's). A call the reply
// ends in after its closing brace counts; one cut off inside is an error. Text outside the calls
// is content.
#include <algorithm>

#include "core/parsing/formats/formats.hpp"
#include "core/parsing/formats/special_tokens.hpp"
#include "core/parsing/formats/text_scan.hpp"
#include "core/parsing/json/json_scan.hpp"
#include "core/parsing/json/json_view.hpp"
#include "core/text/text_util.hpp"

namespace keel::detail {
namespace {
namespace gemma4 {

constexpr std::string_view kOpen = "<|tool_call>";
constexpr std::string_view kClose = "<tool_call|>";
constexpr std::string_view kQuote = "<|\"|>";
constexpr std::string_view kCall = "call:";

// Reads Gemma's argument syntax into JSON text; stops at the first problem (`error`, `cut_off`).
class ValueReader {
 public:
  explicit ValueReader(std::string_view text) : text_(text) {}
  std::string error;
  bool cut_off = false;
  bool valid_utf8 = true;

  // The object at text[p] == '{' into `out`; returns its end.
  size_t object(size_t p, std::string& out) {
    out += '{';
    p = skip_space(text_, p + 1);
    bool first = true;
    while (error.empty()) {
      if (p == text_.size()) return cut(p);
      if (text_[p] == '}') {
        out += '}';
        return p + 1;
      }
      if (!first) out += ',';
      first = false;
      // The key: quoted, or bare up to the colon.
      std::string_view key;
      if (starts_at(text_, p, kQuote)) {
        size_t e = find_literal(text_, kQuote, p + kQuote.size());
        if (e == kNpos) return cut(text_.size());
        key = text_.substr(p + kQuote.size(), e - p - kQuote.size());
        p = e + kQuote.size();
      } else {
        size_t e = p;
        while (e < text_.size() && text_[e] != ':' && text_[e] != '}' && text_[e] != ',' && text_[e] != '{') ++e;
        key = trim(text_.substr(p, e - p));
        p = e;
      }
      p = skip_space(text_, p);
      if (p == text_.size()) return cut(p);
      if (text_[p] != ':' || key.empty()) return bad(p, "expected KEY: in the arguments");
      valid_utf8 &= append_quoted_json(out, key);
      out += ':';
      p = value(skip_space(text_, p + 1), out);
      if (!error.empty()) return p;
      p = skip_space(text_, p);
      if (p < text_.size() && text_[p] == ',') p = skip_space(text_, p + 1);
    }
    return p;
  }

 private:
  size_t cut(size_t p) {
    if (error.empty()) error = "cut off inside the arguments at offset " + std::to_string(p);
    cut_off = true;
    return text_.size();
  }
  size_t bad(size_t p, std::string_view what) {
    if (error.empty()) {
      error.assign(what);
      error.append(" at offset ").append(std::to_string(p)).append(", found ").append(shown_char(text_, p));
    }
    return p;
  }

  size_t value(size_t p, std::string& out) {
    if (p == text_.size()) return cut(p);
    if (starts_at(text_, p, kQuote)) {
      size_t e = find_literal(text_, kQuote, p + kQuote.size());
      if (e == kNpos) return cut(text_.size());
      valid_utf8 &= append_quoted_json(out, text_.substr(p + kQuote.size(), e - p - kQuote.size()));
      return e + kQuote.size();
    }
    if (text_[p] == '{') return object(p, out);
    if (text_[p] == '[') return list(p, out);
    if (text_[p] == '"') {  // a string in JSON's quotes, as some servers' templates print them
      const size_t e = json_string_end(text_, p);
      if (e == text_.size() && (e - p < 2 || text_.back() != '"')) return cut(text_.size());  // not closed
      const std::string_view quoted = text_.substr(p, e - p);
      const StrictJson v = scan_strict_json(quoted);
      if (v.ok) {
        out.append(quoted);
        return e;
      }
    }
    // A bare value up to the next separator.
    size_t e = p;
    while (e < text_.size() && text_[e] != ',' && text_[e] != '}' && text_[e] != ']' && !starts_at(text_, e, kClose)) {
      ++e;
    }
    if (e == text_.size()) return cut(e);
    std::string_view raw = trim(text_.substr(p, e - p));
    const StrictJson v = scan_strict_json(raw);
    if (v.ok && raw.size() == v.end - v.begin && raw[0] != '{' && raw[0] != '[') {
      out.append(raw);  // a number, true, false, null, or a string written in JSON's quotes
      return e;
    }
    // A string whose opening delimiter was left out ("query:Paris, France<|"|>,limit:5"): it runs to
    // the next delimiter when a separator follows that.
    const size_t q = next_quote(p);
    if (q != kNpos) {
      const size_t after = skip_space(text_, q + kQuote.size());
      if (after < text_.size() && (text_[after] == ',' || text_[after] == '}' || text_[after] == ']')) {
        valid_utf8 &= append_quoted_json(out, text_.substr(p, q - p));
        added_opening_quote = true;
        return q + kQuote.size();
      }
    }
    valid_utf8 &= append_quoted_json(out, raw);
    return e;
  }

  // The first string delimiter at or after `from` (positions asked for only grow: one scan).
  size_t next_quote(size_t from) {
    if (!quote_known_ || (quote_ != kNpos && quote_ < from)) {
      quote_ = find_literal(text_, kQuote, from);
      quote_known_ = true;
    }
    return quote_;
  }
  size_t quote_ = 0;
  bool quote_known_ = false;

 public:
  bool added_opening_quote = false;  // a string's missing opening delimiter was supplied

 private:

  size_t list(size_t p, std::string& out) {
    out += '[';
    p = skip_space(text_, p + 1);
    bool first = true;
    while (error.empty()) {
      if (p == text_.size()) return cut(p);
      if (text_[p] == ']') {
        out += ']';
        return p + 1;
      }
      if (!first) out += ',';
      first = false;
      p = skip_space(text_, value(p, out));
      if (!error.empty()) return p;
      if (p < text_.size() && text_[p] != ',' && text_[p] != ']') return bad(p, "expected ',' or ']' in a list");
      if (p < text_.size() && text_[p] == ',') p = skip_space(text_, p + 1);
    }
    return p;
  }

  std::string_view text_;
};

constexpr std::string_view kTurnEnd = "<turn|>";
constexpr std::string_view kChannel = "<|channel>";
constexpr std::string_view kChannelEnd = "<channel|>";
constexpr std::string_view kBareCall = "<call>";

// Splits the <|channel>thought ... <channel|> reasoning from `text` into out.reasoning; the
// visible rest goes to `visible` (a reply that ends inside the channel is all reasoning).
void split_channel(std::string_view text, std::string& visible, FormatResult& out) {
  size_t pos = 0;
  while (pos < text.size()) {
    size_t open = find_literal(text, kChannel, pos);
    if (open == kNpos) break;
    visible.append(text.substr(pos, open - pos));
    size_t body = open + kChannel.size();
    size_t label = name_end(text, body);  // the channel's name ("thought")
    size_t close = find_literal(text, kChannelEnd, label);
    append_line(out.reasoning, text.substr(label, (close == kNpos ? text.size() : close) - label));
    pos = close == kNpos ? text.size() : close + kChannelEnd.size();
    if (close != kNpos) visible += '\n';  // what follows the channel starts a line
  }
  if (pos < text.size()) visible.append(text.substr(pos));
}

// Where a call starts at `p` in the text, and how: the token, <call> (a split token), or a bare
// call:NAME{ at the start of a line or right after <channel|> (the model left the token out).
enum class Start { kNone, kToken, kSplitToken, kBare };
Start call_start(std::string_view text, size_t p) {
  if (starts_at(text, p, kOpen)) return Start::kToken;
  if (starts_at(text, p, kBareCall)) return Start::kSplitToken;
  const bool after_channel = p >= kChannelEnd.size() && text.substr(p - kChannelEnd.size(), kChannelEnd.size()) == kChannelEnd;
  if (starts_at(text, p, kCall) && (at_line_start(text, p) || after_channel)) {
    size_t name_e = name_end(text, p + kCall.size());
    if (name_e > p + kCall.size() && name_e < text.size() && text[name_e] == '{') return Start::kBare;
  }
  return Start::kNone;
}

class Gemma4Format final : public ToolCallFormat {
 public:
  std::string_view name() const override { return "gemma4"; }
  std::string_view description() const override {
    return "Gemma 4: <|tool_call>call:NAME{key:<|\"|>text<|\"|>,n:1}<tool_call|>";
  }
  // The call token (by its prefix "<|tool", one entry of the shared scan with LFM2's and Apertus'
  // tokens), the string delimiter (calls that lost their token still quote strings with it) and
  // the reasoning channel.
  std::span<const std::string_view> markers() const override {
    static constexpr std::string_view kMarkers[] = {"<|tool", kQuote, kChannel};
    return kMarkers;
  }
  // The slips it reads (a bare call:NAME{ line, a split <call> token, a closed channel) open a
  // call before any marker does.
  std::span<const std::string_view> stream_markers() const override {
    static constexpr std::string_view kStream[] = {"\ncall:", "<call>", "<channel|>"};
    return kStream;
  }
  std::span<const std::string_view> leading_markers() const override {
    static constexpr std::string_view kLeading[] = {"call:"};
    return kLeading;
  }
  bool detect_marked(std::string_view text) const override {
    return find_literal(text, kOpen) != kNpos || find_literal(text, kQuote) != kNpos ||
           find_literal(text, kChannel) != kNpos;
  }

  FormatResult parse(std::string_view input, std::span<const ToolSpec>) const override {
    FormatResult out;
    std::string visible;
    std::string_view text = input;
    if (find_literal(input, kChannel) != kNpos) {
      split_channel(input, visible, out);
      text = visible;
      out.framed = !out.reasoning.empty();
    }
    Cuts cuts;
    Finder tokens(text, kOpen);
    Finder bare(text, kCall);
    Finder split(text, kBareCall);
    size_t pos = 0;
    while (!out.error) {
      // The next call start: the earliest token, split token or bare call at a line start.
      size_t t = tokens.next(pos);
      size_t s = split.next(pos);
      size_t b = bare.next(pos);
      while (b != kNpos && b < t && b < s && call_start(text, b) != Start::kBare) b = bare.next(b + 1);
      size_t open = std::min({t, s, b});
      if (open == kNpos) break;
      out.framed = true;
      size_t end = call(text, open, call_start(text, open), out);
      cuts.emplace_back(open, end);
      pos = end;
    }
    out.content = text_outside(text, cuts, {kChannelEnd, kTurnEnd});
    return out;
  }

 private:
  // Reads the call at `open`; returns its end.
  static size_t call(std::string_view text, size_t open, Start how, FormatResult& out) {
    const Label where({how == Start::kToken ? kOpen : how == Start::kSplitToken ? kBareCall : kCall}, open);
    auto skip_past_end = [&](size_t from) {
      size_t c = find_literal(text, kClose, from);
      return c == kNpos ? text.size() : c + kClose.size();
    };
    size_t name_b;
    if (how == Start::kSplitToken) {
      name_b = open + kBareCall.size();
    } else if (how == Start::kBare) {
      name_b = open + kCall.size();
    } else {
      size_t p = skip_space(text, open + kOpen.size());
      if (p == text.size()) {
        fail(out, where + ": cut off before the call");
        return p;
      }
      if (text[p] == ':' && starts_at(text, p + 1, kCall)) {  // "<|tool_call>:call:..."
        out.repairs.push_back(where + ": dropped a stray ':' before call:");
        ++p;
      }
      if (!starts_at(text, p, kCall)) {
        fail(out, where + ": expected call:NAME{...} at offset " + std::to_string(p) + ", found " +
                      shown_char(text, p));
        return skip_past_end(p);
      }
      name_b = p + kCall.size();
    }
    size_t name_e = name_end(text, name_b);
    if (name_e == text.size()) {
      fail(out, where + ": cut off inside the tool name at offset " + std::to_string(name_b));
      return name_e;
    }
    if (name_e == name_b || text[name_e] != '{') {
      fail(out, where + ": expected call:NAME{...} at offset " + std::to_string(name_b));
      return skip_past_end(name_e);
    }
    CallDraft draft;
    draft.name = std::string(text.substr(name_b, name_e - name_b));
    ValueReader reader(text);
    std::string args;
    size_t end = reader.object(name_e, args);
    if (!reader.error.empty()) {
      fail(out, where + ": the call to '" + draft.name + "' " + (reader.cut_off ? "was " : "") + reader.error);
      return reader.cut_off ? text.size() : skip_past_end(end);
    }
    if (how == Start::kSplitToken) draft.repairs.push_back(where + ": read <call> as the call token");
    if (how == Start::kBare) draft.repairs.push_back(where + ": a call without its <|tool_call> token");
    if (reader.added_opening_quote) draft.repairs.push_back(where + ": supplied a missing opening <|\"|> of a string");
    draft.arguments = std::move(args);
    draft.valid_utf8 = reader.valid_utf8;
    commit(out, std::move(draft), where);
    size_t q = skip_space(text, end);
    if (starts_at(text, q, kClose)) return q + kClose.size();
    if (starts_at(text, q, kTurnEnd)) return q + kTurnEnd.size();  // the turn's end closed the call
    return end;  // the end token left out (the reply ended, or text follows)
  }
};

}  // namespace gemma4
}  // namespace

std::unique_ptr<ToolCallFormat> make_gemma4_format() {
  return std::make_unique<gemma4::Gemma4Format>();
}

}  // namespace keel::detail
