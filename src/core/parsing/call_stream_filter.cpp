#include "keel/core/call_stream_filter.hpp"

#include <algorithm>
#include <array>

#include "core/parsing/formats/format_util.hpp"
#include "core/parsing/non_call_rule.hpp"
#include "core/text/text_util.hpp"

namespace keel {

namespace {

constexpr std::string_view kThinkOpen = "<think>";
constexpr std::string_view kThinkClose = "</think>";
constexpr std::string_view kFence = "```";

// Every built-in format's markers that are markup by themselves: one-byte markers ("{", "[") and
// quoted keys ("\"parameters\"") only mean something inside JSON, which the candidates cover.
const std::vector<std::string>& call_markers() {
  static const std::vector<std::string> list = [] {
    std::vector<std::string> out;
    for (const auto& f : builtin_tool_call_formats()) {
      for (std::string_view m : f->markers()) {
        if (m.size() < 2 || m.front() == '"' || m.front() == '\'') continue;
        if (std::find(out.begin(), out.end(), m) == out.end()) out.emplace_back(m);
      }
      for (std::string_view m : f->stream_markers()) {
        if (std::find(out.begin(), out.end(), m) == out.end()) out.emplace_back(m);
      }
    }
    // Special tokens are never prose, whichever format they open; harmony's reply may begin
    // with its recipient.
    for (std::string_view m : {std::string_view("<|"), std::string_view("<｜"), std::string_view("to=functions.")}) {
      if (std::find(out.begin(), out.end(), m) == out.end()) out.emplace_back(m);
    }
    return out;
  }();
  return list;
}

// The formats' leading markers (see ToolCallFormat::leading_markers).
const std::vector<std::string>& leading_markers() {
  static const std::vector<std::string> list = [] {
    std::vector<std::string> out;
    for (const auto& f : builtin_tool_call_formats()) {
      for (std::string_view m : f->leading_markers()) out.emplace_back(m);
    }
    return out;
  }();
  return list;
}

bool is_ident_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_ident_char(char c) { return is_ident_start(c) || (c >= '0' && c <= '9') || c == '.' || c == '-'; }

// A fence whose language may hold a call that some format reads.
bool callable_fence(std::string_view info) {
  std::string lang;
  for (char c : detail::trim(info)) {
    if (c == ' ' || c == '\t') break;
    lang.push_back(static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c));
  }
  static constexpr std::array<std::string_view, 12> kCallable = {
      "", "json", "jsonc", "json5", "tool_call", "tool_calls", "tool_code", "xml", "python", "py", "text", "plaintext"};
  return std::find(kCallable.begin(), kCallable.end(), lang) != kCallable.end();
}

// The first `tag` in `text` at or after `from` that is a tag: one right after a backtick is a
// mention in prose (`</think>`), as split_reasoning() reads it.
size_t find_tag(std::string_view text, std::string_view tag, size_t from) {
  for (size_t at = text.find(tag, from); at != std::string_view::npos; at = text.find(tag, at + 1)) {
    if (at == 0 || text[at - 1] != '`') return at;
  }
  return std::string_view::npos;
}

// The longest k < marker.size() such that `text` ends with marker's first k bytes.
size_t partial_tail(std::string_view text, std::string_view marker) {
  for (size_t k = std::min(marker.size() - 1, text.size()); k > 0; --k) {
    if (text.substr(text.size() - k) == marker.substr(0, k)) return k;
  }
  return 0;
}

// Where a call's name is written, in the formats that announce it before the arguments. XML-like
// calls nest when a value quotes one (a file that holds call syntax): only a call at the top
// level is announced, so openers and closers of those count depth.
struct NameIntro {
  std::string_view key;
  bool json_key;     // followed by ':' and a quoted name
  char terminator;   // the byte that must follow the name (0: any non-name byte)
  int depth;         // +1: opens a nesting call; -1: closes one (no name follows)
};
constexpr std::array<NameIntro, 17> kIntros = {{
    {"\"name\"", true, '"', 0},
    {"\"tool_name\"", true, '"', 0},
    {"'name'", true, '\'', 0},
    {"<function=", false, 0, 1},
    {"<function name=\"", false, '"', 1},
    {"</function>", false, 0, -1},
    {"invoke name=\"", false, '"', 1},  // <invoke name=, <steptml:invoke name=, <｜DSML｜invoke name=
    {"invoke>", false, 0, -1},          // their closing tags
    {"to=functions.", false, 0, 0},
    {"functions.", false, 0, 0},
    {"[TOOL_CALLS]", false, '[', 0},
    {">>>", false, 0, 0},
    {"<｜tool▁sep｜>", false, 0, 0},           // DeepSeek R1: function<｜tool▁sep｜>NAME
    {"<｜tool▁call▁begin｜>", false, '<', 0},  // DeepSeek V3: <｜tool▁call▁begin｜>NAME<｜tool▁sep｜>
    {"<tool_call>", false, 0, 0},
    {"[", false, '(', 0},
    {"<|tool_call_start|>[", false, '(', 0},
}};

// Whether the held region text[region, ...) opens with a message header addressed to the user or
// to the model itself (Muse Glimmer's `to=user`, `to=self`): call syntax in that message is an
// example or a thought, so names wait until the reply is read.
bool opens_with_answer_header(std::string_view text, size_t region) {
  size_t i = region;
  while (i < text.size() && detail::is_blank(text[i])) ++i;
  std::string_view rest = text.substr(i);
  if (rest.starts_with("<|start|>")) rest.remove_prefix(9);
  if (rest.starts_with("assistant")) rest.remove_prefix(9);
  while (!rest.empty() && detail::is_blank(rest.front())) rest.remove_prefix(1);
  for (std::string_view to : {std::string_view("to=user"), std::string_view("to=self")}) {
    if (rest.starts_with(to) && (rest.size() == to.size() || !is_ident_char(rest[to.size()]))) return true;
  }
  return false;
}

}  // namespace

CallStreamFilter::CallStreamFilter(const UniversalToolCallParser& parser, std::span<const ToolSpec> tools,
                                   Options options)
    : parser_(parser), tools_(tools), options_(options) {
  reset();
}

void CallStreamFilter::reset() {
  text_.clear();
  shown_.clear();
  blanks_.clear();
  pos_ = 0;
  mode_ = options_.opened_reasoning ? Mode::kReasoning : Mode::kAnswer;
  sniff_ = 0;
  header_checked_ = false;
  announce_ = false;
  announced_ = 0;
  outcome_ = ParseOutcome{};
}

CallStreamFilter::Output CallStreamFilter::feed(std::string_view piece) {
  Output out;
  text_.append(piece);
  advance(out);
  return out;
}

void CallStreamFilter::release(size_t end, Output& out) {
  std::string_view seg = std::string_view(text_).substr(pos_, end - pos_);
  pos_ = end;
  if (shown_.empty()) {  // the answer starts at its first non-blank byte
    size_t b = 0;
    while (b < seg.size() && detail::is_blank(seg[b])) ++b;
    seg.remove_prefix(b);
  }
  size_t core = seg.size();
  while (core > 0 && detail::is_blank(seg[core - 1])) --core;
  if (core == 0) {
    if (!shown_.empty()) blanks_.append(seg);
    return;
  }
  std::string piece = blanks_;
  piece.append(seg.substr(0, core));
  blanks_.assign(seg.substr(core));
  shown_.append(piece);
  out.text.append(piece);
}

void CallStreamFilter::advance(Output& out) {
  for (;;) {
    if (mode_ == Mode::kHeld) {
      sniff_names(out);
      return;
    }
    if (mode_ == Mode::kReasoning) {
      const size_t close = find_tag(text_, kThinkClose, pos_);
      const size_t end = close != std::string::npos ? close : text_.size() - partial_tail(text_, kThinkClose);
      out.reasoning.append(text_, pos_, end - pos_);
      pos_ = end;
      if (close == std::string::npos) return;
      pos_ = close + kThinkClose.size();
      mode_ = Mode::kAnswer;
      continue;
    }
    if (mode_ == Mode::kCandidate) {
      size_t end = 0;
      Verdict v = decide_candidate(end);
      if (v == Verdict::kUndecided) return;
      if (v == Verdict::kCall) {
        hold(false);  // a bare or fenced call may be an example: named once the reply is read
        continue;
      }
      release(end, out);
      mode_ = Mode::kAnswer;
      continue;
    }
    if (!header_checked_) {
      if (!check_header(out)) return;
      if (mode_ != Mode::kAnswer) continue;
    }
    // The answer: the first place from which the text may be markup.
    std::string_view rest = std::string_view(text_).substr(pos_);
    size_t first = std::string_view::npos;
    enum { kNothing, kMarker, kThink, kOrphanClose, kSoft, kPartial } what = kNothing;
    auto consider = [&](size_t at, decltype(what) kind) {
      if (at < first) {
        first = at;
        what = kind;
      }
    };
    std::string_view marker;
    for (const auto& m : call_markers()) {
      const size_t at = rest.find(m);
      if (at < first) marker = m;
      consider(at, kMarker);
    }
    // (Offsets in `rest` count from pos_; a tag right at pos_ follows text already decided.)
    auto tag_in_rest = [&](std::string_view tag) {
      const size_t at = find_tag(text_, tag, pos_);
      return at == std::string::npos ? std::string_view::npos : at - pos_;
    };
    consider(tag_in_rest(kThinkOpen), kThink);
    consider(tag_in_rest(kThinkClose), kOrphanClose);  // before it was reasoning: stop showing
    size_t tail = 0;
    for (const auto& m : call_markers()) tail = std::max(tail, partial_tail(rest, m));
    tail = std::max({tail, partial_tail(rest, kThinkOpen), partial_tail(rest, kThinkClose), partial_tail(rest, kFence)});
    if (tail > 0) consider(rest.size() - tail, kPartial);
    // A bare call may open before any marker (a marker at the same place wins).
    for (size_t i = 0; i < std::min(first, rest.size()); ++i) {
      const char c = rest[i];
      const bool line_start = pos_ + i == 0 || text_[pos_ + i - 1] == '\n';
      // A fence counts anywhere: the JSON format reads one in the middle of a line too ("Action: ```json").
      if (c == '{' || c == '[' || (c == '`' && rest.substr(i, 3) == kFence)) {
        consider(i, kSoft);
        candidate_ = c == '{' ? Candidate::kBrace : c == '[' ? Candidate::kBracket : Candidate::kFence;
        break;
      }
      if (line_start && is_ident_start(c)) {  // a registered tool called at the start of a line
        const BareCall b = bare_call_at(rest, i);
        if (b == BareCall::kYes) {
          consider(i, kSoft);
          candidate_ = Candidate::kBareCall;
          break;
        }
        if (b == BareCall::kMaybe) {
          consider(i, kPartial);
          break;
        }
      }
    }
    if (what == kNothing) {
      release(text_.size(), out);
      return;
    }
    release(pos_ + first, out);
    switch (what) {
      case kMarker:
        hold(announces_at(pos_, marker));
        continue;
      case kOrphanClose:
        hold(false);
        continue;
      case kThink:
        pos_ += kThinkOpen.size();
        mode_ = Mode::kReasoning;
        continue;
      case kSoft:
        mode_ = Mode::kCandidate;
        scan_ = pos_;
        depth_ = 0;
        quote_ = 0;
        escaped_ = false;
        continue;
      default:  // a possible marker start at the end: wait for more
        return;
    }
  }
}

// Whether rest[i] (an identifier at the start of a line) opens a call to a registered tool:
// its name and "(" (kYes), a name the next piece may still make one (kMaybe), or no (kNo).
CallStreamFilter::BareCall CallStreamFilter::bare_call_at(std::string_view rest, size_t i) const {
  size_t j = i;
  while (j < rest.size() && is_ident_char(rest[j])) ++j;
  const std::string_view name = rest.substr(i, j - i);
  if (j == rest.size()) {
    for (const auto& t : tools_) {
      if (t.name.starts_with(name)) return BareCall::kMaybe;
    }
    return BareCall::kNo;
  }
  return rest[j] == '(' && detail::find_tool(tools_, name) != nullptr ? BareCall::kYes : BareCall::kNo;
}

// Scans the bracketed value from scan_ on; true with `end` once it closes.
bool CallStreamFilter::balanced_until_end(size_t from, size_t& end) {
  if (scan_ < from) scan_ = from;
  const bool single_quotes = candidate_ == Candidate::kBracket || candidate_ == Candidate::kBareCall;
  for (; scan_ < text_.size(); ++scan_) {
    const char c = text_[scan_];
    if (quote_ != 0) {
      if (escaped_) {
        escaped_ = false;
      } else if (c == '\\') {
        escaped_ = true;
      } else if (c == quote_) {
        quote_ = 0;
      }
      continue;
    }
    if (c == '"' || (c == '\'' && single_quotes)) {
      quote_ = c;
    } else if (c == '{' || c == '[' || c == '(') {
      ++depth_;
    } else if (c == '}' || c == ']' || c == ')') {
      if (--depth_ == 0) {
        end = ++scan_;
        return true;
      }
    }
  }
  return false;
}

CallStreamFilter::Verdict CallStreamFilter::decide_candidate(size_t& not_call_end) {
  examined_ = 0;
  Verdict v = judge_candidate(not_call_end);
  if (v != Verdict::kNotCall) return v;
  // What is shown must not hold the start of a marker ("[" of "[THINK]"): such a candidate is markup.
  std::string_view from = std::string_view(text_).substr(pos_);
  const size_t looked_at = std::max(not_call_end, examined_);
  auto holds = [&](std::string_view m) {  // 1: m starts in what would be shown, 2: may start there
    for (size_t at = from.find(m.front()); at != std::string_view::npos && pos_ + at < looked_at;
         at = from.find(m.front(), at + 1)) {
      std::string_view here = from.substr(at, m.size());
      if (here == m) return 1;
      if (here.size() < m.size() && m.compare(0, here.size(), here) == 0) return 2;
    }
    return 0;
  };
  for (const auto& m : call_markers()) {
    if (int h = holds(m); h != 0) return h == 1 ? Verdict::kCall : Verdict::kUndecided;
  }
  for (std::string_view m : {kThinkOpen, kThinkClose}) {  // reasoning is never shown as the answer
    if (int h = holds(m); h != 0) return h == 1 ? Verdict::kCall : Verdict::kUndecided;
  }
  return v;
}

CallStreamFilter::Verdict CallStreamFilter::judge_candidate(size_t& not_call_end) {
  const size_t c = pos_;
  size_t end = 0;
  if (candidate_ == Candidate::kBareCall) {
    if (!balanced_until_end(c, end)) return Verdict::kUndecided;
  } else if (candidate_ == Candidate::kFence) {
    const size_t nl = text_.find('\n', c + kFence.size());
    if (nl == std::string::npos) return Verdict::kUndecided;
    if (!callable_fence(std::string_view(text_).substr(c + kFence.size(), nl - c - kFence.size()))) {
      not_call_end = nl + 1;
      return Verdict::kNotCall;
    }
    const size_t from = std::max(scan_, nl + 1);
    const size_t close = text_.find(kFence, from);
    if (close == std::string::npos) {
      scan_ = text_.size() >= 2 ? std::max(from, text_.size() - 2) : from;
      return Verdict::kUndecided;
    }
    end = close + kFence.size();
  } else {
    size_t i = c + 1;
    while (i < text_.size() && detail::is_blank(text_[i])) ++i;
    if (i == text_.size()) return Verdict::kUndecided;
    const char next = text_[i];
    // A brace, or a bracket that does not open a pythonic call, is held until it closes and then
    // parsed: the JSON formats read leniently (a stray byte, a missing quote), so only the parse
    // can tell.
    if (candidate_ == Candidate::kBracket && is_ident_start(next)) {
      size_t j = i;
      while (j < text_.size() && is_ident_char(text_[j])) ++j;
      while (j < text_.size() && detail::is_blank(text_[j])) ++j;
      if (j == text_.size()) return Verdict::kUndecided;
      if (text_[j] != '(') {
        examined_ = j + 1;
        not_call_end = c + 1;  // the rest is scanned again: a marker may start in it
        return Verdict::kNotCall;
      }
    }
    if (!balanced_until_end(c, end)) return Verdict::kUndecided;
  }
  const std::string_view segment = std::string_view(text_).substr(c, end - c);
  for (const auto& m : call_markers()) {
    if (segment.find(m) != std::string_view::npos) return Verdict::kCall;  // markup inside: never shown
  }
  ParseOutcome o = parser_.parse_full(segment, tools_);
  if (!o.calls.empty() || o.error) return Verdict::kCall;
  // Not a call as a whole; a part of it may still be one in the reply (an object on its own line
  // inside a list): only the opening (the bracket, the fence line) is shown, the rest is read again.
  if (candidate_ == Candidate::kFence) {
    not_call_end = text_.find('\n', c + kFence.size()) + 1;
  } else {
    not_call_end = c + 1;
  }
  return Verdict::kNotCall;
}

void CallStreamFilter::sniff_names(Output& out) {
  for (;;) {
    size_t best = std::string::npos;
    const NameIntro* intro = nullptr;
    for (const auto& in : kIntros) {
      const size_t at = text_.find(in.key, sniff_);
      if (at < best) {
        best = at;
        intro = &in;
      }
    }
    if (intro == nullptr) {  // none yet: only the last few bytes may still begin one
      size_t keep = 0;  // the longest introduction, less one byte
      for (const auto& in : kIntros) keep = std::max(keep, in.key.size() - 1);
      if (text_.size() > sniff_ + keep) sniff_ = text_.size() - keep;  // never back over a name read
      return;
    }
    size_t i = best + intro->key.size();
    if (intro->depth < 0) {
      if (depth_open_ > 0) --depth_open_;
      sniff_ = i;
      continue;
    }
    if (intro->json_key) {
      while (i < text_.size() && detail::is_blank(text_[i])) ++i;
      if (i == text_.size()) return;
      if (text_[i] != ':') {
        sniff_ = i;
        continue;
      }
      ++i;
      while (i < text_.size() && detail::is_blank(text_[i])) ++i;
      if (i == text_.size()) return;
      if (text_[i] != intro->terminator) {
        sniff_ = i;
        continue;
      }
      ++i;
    } else if (intro->key == "<tool_call>" || intro->key == "[") {
      while (i < text_.size() && detail::is_blank(text_[i])) ++i;
    }
    size_t j = i;
    while (j < text_.size() && is_ident_char(text_[j])) ++j;
    if (j == text_.size()) return;  // the name may go on: look again with the next piece
    std::string_view name = std::string_view(text_).substr(i, j - i);
    sniff_ = std::max(j, best + 1);
    const bool nested = intro->depth > 0 && depth_open_++ > 0;
    if (name.empty() || !is_ident_start(name.front()) || nested) continue;
    if (intro->terminator != 0 && text_[j] != intro->terminator) continue;
    if (!announce_) continue;
    if (opens_with_reasoning() || opens_with_answer_header(text_, region_)) {  // names wait for the whole reply
      announce_ = false;
      continue;
    }
    if (!tools_.empty() && detail::find_tool(tools_, name) == nullptr) {
      announce_ = false;  // not a tool: the calls after it are named once the reply is read, in order
      continue;
    }
    ++announced_;
    out.announced.emplace_back(name);
  }
}

// Whether the held region opens with reasoning (<seed:think>, [THINK], a thinking channel): the
// word "think" in its first bytes.
bool CallStreamFilter::opens_with_reasoning() const {
  const size_t end = std::min(text_.size(), region_ + 24);
  for (size_t i = region_; i + 5 <= end; ++i) {
    bool match = true;
    for (size_t k = 0; k < 5 && match; ++k) match = static_cast<char>(text_[i + k] | 0x20) == "think"[k];
    if (match) return true;
  }
  return false;
}

void CallStreamFilter::hold(bool announce) {
  region_ = pos_;
  mode_ = Mode::kHeld;
  sniff_ = pos_;
  depth_open_ = 0;
  announce_ = announce;
}

// Names are announced early only for a call that starts a line or opens with a special token;
// markup in the middle of a sentence or in code may be an example, and is named once read.
bool CallStreamFilter::announces_at(size_t at, std::string_view marker) const {
  if (at > 0 && text_[at - 1] == '`') return false;

  // Inside an example (a code fence, a block quote, a log excerpt) call syntax is content.
  for (const detail::TextRegion& r : detail::example_regions(std::string_view(text_).substr(0, at + marker.size()))) {
    if (r.begin <= at && at < r.end) return false;
  }
  if (marker.starts_with("<|") || marker.starts_with("<｜") || marker.starts_with("[TOOL_CALLS]")) return true;
  size_t b = at;
  while (b > 0 && (text_[b - 1] == ' ' || text_[b - 1] == '\t')) --b;
  return b == 0 || text_[b - 1] == '\n';
}

// Functionary v3.2's first header may come without ">>>" (the prompt ended with it): a reply whose
// first line is "all" may start with that header (held to the end), one whose first line is a
// tool's name before a JSON object is a call. False while the first line may still be one.
bool CallStreamFilter::check_header(Output& out) {
  size_t b = pos_;
  while (b < text_.size() && detail::is_blank(text_[b])) ++b;
  const std::string_view opening = std::string_view(text_).substr(b);
  for (const std::string& m : leading_markers()) {  // a wrapper that marks a call only here
    if (opening.starts_with(m)) {
      header_checked_ = true;
      pos_ = b;
      hold(true);
      return true;
    }
    if (std::string_view(m).starts_with(opening)) return false;
  }
  size_t j = b;
  while (j < text_.size() && is_ident_char(text_[j])) ++j;
  if (j == text_.size()) {  // wait only while the first word may still be "all" or a tool's name
    const std::string_view word = std::string_view(text_).substr(b);
    bool may_be = std::string_view("all").starts_with(word);
    for (const ToolSpec& t : tools_) may_be = may_be || std::string_view(t.name).starts_with(word);
    if (may_be) return false;
    header_checked_ = true;
    return true;
  }
  header_checked_ = true;
  if (j == b || !is_ident_start(text_[b])) return true;
  const std::string_view name = std::string_view(text_).substr(b, j - b);
  if (name == "all" && text_[j] == '\n') {  // Functionary's text header: which format decides is
    pos_ = b;                                 // known at the end only (it drops the header, others
    hold(false);                              // keep it), so the reply is shown once read
    return true;
  }
  if (detail::find_tool(tools_, name) == nullptr) return true;
  size_t body = j;  // a header names the tool, and its arguments follow as a JSON object
  while (body < text_.size() && detail::is_blank(text_[body])) ++body;
  if (body == text_.size()) {
    header_checked_ = false;
    return false;
  }
  if (text_[body] == '{' && (text_[j] == '\n' || text_[j] == '{')) {
    pos_ = b;
    hold(true);
    ++announced_;
    out.announced.emplace_back(name);
    sniff_ = j;
  }
  return true;
}

CallStreamFilter::Output CallStreamFilter::finish() {
  Output out;
  outcome_ = parser_.parse_full(text_, tools_);
  const std::string& answer = outcome_.content;
  if (answer.size() >= shown_.size() && answer.compare(0, shown_.size(), shown_) == 0) {
    out.text = answer.substr(shown_.size());
    shown_ = answer;
  }
  for (size_t i = announced_; i < outcome_.calls.size(); ++i) out.announced.push_back(outcome_.calls[i].name);
  return out;
}

}  // namespace keel
