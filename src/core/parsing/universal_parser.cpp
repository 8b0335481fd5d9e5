#include "keel/core/universal_parser.hpp"

#include <algorithm>
#include <bit>
#include <optional>

#include "core/parsing/marker_scan.hpp"
#include "core/parsing/non_call_rule.hpp"
#include "core/text/text_util.hpp"

namespace keel {

namespace {

// The first `tag` at or after `from` that is not quoted: one right after a backtick is a mention
// in prose (`</think>`), as with the formats' markers.
size_t find_tag(std::string_view text, std::string_view tag, size_t from = 0) {
  for (size_t at = detail::find_literal(text, tag, from); at != std::string_view::npos;
       at = detail::find_literal(text, tag, at + 1)) {
    if (at == 0 || text[at - 1] != '`') return at;
  }
  return std::string_view::npos;
}

}  // namespace

std::pair<std::string, std::string> split_reasoning(std::string_view text) {
  constexpr std::string_view kOpen = "<think>";
  constexpr std::string_view kClose = "</think>";
  std::string content;
  std::string reasoning;
  auto add_reasoning = [&](std::string_view r) {
    std::string_view t = detail::trim(r);
    if (t.empty()) return;
    if (!reasoning.empty()) reasoning += "\n";
    reasoning.append(t);
  };
  size_t pos = 0;
  // Templates that open <think> in the prompt make the reply start inside it: reasoning up to the
  // first </think> when no <think> precedes it.
  size_t first_close = find_tag(text, kClose);
  size_t first_open = find_tag(text, kOpen);
  if (first_close != std::string_view::npos && (first_open == std::string_view::npos || first_open > first_close)) {
    add_reasoning(text.substr(0, first_close));
    pos = first_close + kClose.size();
  }
  while (pos < text.size()) {
    size_t open = find_tag(text, kOpen, pos);
    if (open == std::string_view::npos) {
      content.append(text.substr(pos));
      break;
    }
    content.append(text.substr(pos, open - pos));
    size_t body = open + kOpen.size();
    size_t close = find_tag(text, kClose, body);
    if (close == std::string_view::npos) {  // cut off while thinking: all of it is reasoning
      add_reasoning(text.substr(body));
      break;
    }
    add_reasoning(text.substr(body, close - body));
    pos = close + kClose.size();
  }
  return {std::move(content), std::move(reasoning)};
}

namespace {

// MarkerSet owners of <think> and </think>; formats are owners 0 to 61 (there are 16).
constexpr unsigned kThinkOpen = 62;
constexpr unsigned kThinkClose = 63;
constexpr std::uint64_t kThinkBits = (std::uint64_t{1} << kThinkOpen) | (std::uint64_t{1} << kThinkClose);

// The first of the fallbacks that end the detection order (Llama 3's bare JSON, Functionary
// v3.2's >>>, Gemma's fences, pythonic lists, bare JSON). Their markers are bytes that fill
// ordinary replies ('{', '[', '>', "parameters"), and a reply that an earlier format decides never
// asks for them: the marker scan looks for them in a second pass, only when a reply gets there.
constexpr std::string_view kFirstDeferredFormat = "llama3";

}  // namespace

UniversalToolCallParser::UniversalToolCallParser() : markers_(std::make_unique<detail::MarkerSet>()) {}
UniversalToolCallParser::~UniversalToolCallParser() = default;

void UniversalToolCallParser::index_markers() {
  markers_->add("<think>", kThinkOpen);
  markers_->add("</think>", kThinkClose);
  for (size_t i = 0; i < formats_.size(); ++i) {
    for (std::string_view m : formats_[i]->markers()) {
      markers_->add(m, static_cast<unsigned>(i));
      marked_ |= std::uint64_t{1} << i;
    }
    if (formats_[i]->markers().empty() || formats_[i]->unmarked_detection()) unmarked_ |= std::uint64_t{1} << i;
  }
  std::uint64_t deferred = 0;  // that format and the ones after it (a suffix of the order)
  for (size_t i = 0; i < formats_.size(); ++i) {
    if (deferred != 0 || formats_[i]->name() == kFirstDeferredFormat) deferred |= std::uint64_t{1} << i;
  }
  markers_->build(deferred);
}

Result<std::unique_ptr<UniversalToolCallParser>> UniversalToolCallParser::create(std::string_view format) {
  std::unique_ptr<UniversalToolCallParser> p(new UniversalToolCallParser());
  auto all = builtin_tool_call_formats();
  if (format == "auto") {
    p->formats_ = std::move(all);
    p->index_markers();
    return p;
  }
  std::string names;
  for (auto& f : all) {
    if (f->name() == format) {
      p->formats_.push_back(std::move(f));
      p->auto_detect_ = false;
      p->index_markers();
      return p;
    }
    names += (names.empty() ? "" : ", ") + std::string(f->name());
  }
  return Status::InvalidArgument("unknown tool-call format '" + std::string(format) + "'; known: auto, " + names);
}

namespace {

// The outcome decided by `format`'s result `r`, after the reasoning split off before the formats
// ran. Built member by member in place (the callers return it as it is made).
ParseOutcome decided(std::string_view format, FormatResult&& r, std::string&& reasoning) {
  if (!r.reasoning.empty()) {
    if (reasoning.empty()) {
      reasoning = std::move(r.reasoning);
    } else {
      reasoning += '\n';
      reasoning += r.reasoning;
    }
  }
  // Empty strings are left default-made: moving a short string copies its bytes through a call.
  ParseOutcome out{std::string(format), {}, {}, std::move(r.calls), std::move(r.repairs), std::move(r.error)};
  if (!r.content.empty()) out.content = std::move(r.content);
  if (!reasoning.empty()) out.reasoning = std::move(reasoning);
  return out;
}

// The outcome of a reply that only shows call syntax: no calls, the whole text as content.
ParseOutcome as_content(std::string_view content, std::string&& reasoning) {
  return ParseOutcome{"none", std::string(detail::trim(content)), std::move(reasoning), {}, {}, {}};
}

// Whether the reply has text besides its call syntax: the format kept visible text, or the
// failed call does not take up the whole reply.
bool has_prose(std::string_view content, const ParseOutcome& out) {
  if (!out.content.empty()) return true;
  const std::string_view t = detail::trim(content);
  return !t.empty() && t.front() != '<' && t.front() != '{' && t.front() != '[';
}

// Whether the rule of what is not a call may change `out` (cheap looks only; most replies with
// calls are passed over here): visible text that may open an example region, a failure, syntax
// without a marker naming an unregistered tool, or an argument that may be a placeholder.
bool non_call_rule_may_apply(const ParseOutcome& out, std::span<const ToolSpec> tools) {
  if (out.error) return true;
  if (!out.content.empty() && detail::may_open_region(out.content)) return true;
  if (detail::unmarked_format(out.format) && !detail::all_registered(out.calls, tools)) return true;
  for (const ToolCall& c : out.calls) {
    if (detail::may_hold_placeholder(c.arguments)) return true;
  }
  return false;
}

// Every failure names where it is. A format that knows the exact place says "offset N" itself;
// otherwise the failure is placed at the first of the format's markers, where its call starts.
void locate_error(const ToolCallFormat& f, std::string_view text, std::string& error) {
  if (error.find("offset ") != std::string::npos) return;
  size_t first = std::string_view::npos;
  for (std::string_view m : f.markers()) first = std::min(first, detail::find_literal(text, m));
  if (first == std::string_view::npos) {  // an unmarked format: its call starts at the first non-blank byte
    first = 0;
    while (first < text.size() && detail::is_blank(text[first])) ++first;
  }
  error += " (the call starts at offset " + std::to_string(first) + ")";
}

}  // namespace

ParseOutcome UniversalToolCallParser::parse_full(std::string_view text, std::span<const ToolSpec> tools) const {
  // One scan finds every marker; reasoning is split off only when <think> or </think> is there.
  std::uint64_t found = markers_->scan(text);
  std::string visible;
  std::string reasoning;
  std::string_view content = text;
  if ((found & kThinkBits) != 0) {
    auto [c, r] = split_reasoning(text);
    visible = std::move(c);
    reasoning = std::move(r);
    content = visible;
    if (auto_detect_) found = markers_->scan(content);
  }
  ParseOutcome out = read_formats(content, found, tools, std::move(reasoning));
  if ((!out.calls.empty() || out.error) && non_call_rule_may_apply(out, tools)) apply_non_call_rule(content, tools, out);
  return out;
}

ParseOutcome UniversalToolCallParser::read_formats(std::string_view content, std::uint64_t found,
                                                   std::span<const ToolSpec> tools, std::string&& reasoning) const {
  // A format that separated its own reasoning (harmony's analysis channel, [THINK], ...) or read
  // its own framing but found no call is kept as the answer's format unless a later format finds calls.
  // (Kept on the heap: only a few replies need it, and an empty optional of it is zeroed per reply.)
  const ToolCallFormat* framing = nullptr;
  std::unique_ptr<FormatResult> framed;
  // Auto-detection asks only the formats whose markers occur, and those that may be recognised
  // without them; the others cannot match. `found` leaves out the markers of the deferred formats
  // (the last ones): they are looked for when the formats before them have all passed.
  const std::uint64_t present = formats_.size() >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << formats_.size()) - 1;
  const std::uint64_t deferred = auto_detect_ ? markers_->deferred() & present : 0;
  std::uint64_t left = (auto_detect_ ? (found & marked_) | unmarked_ : ~std::uint64_t{0}) & present & ~deferred;
  bool deferred_read = deferred == 0;
  for (;;) {  // the asked formats, in order
    if (left == 0) {
      if (deferred_read) break;
      found |= markers_->scan_deferred(content);
      deferred_read = true;
      left = ((found & marked_) | unmarked_) & deferred;
      continue;
    }
    const size_t i = static_cast<size_t>(std::countr_zero(left));
    left &= left - 1;
    const std::uint64_t bit = std::uint64_t{1} << i;
    const ToolCallFormat& f = *formats_[i];
    if (auto_detect_) {
      const bool detected = (marked_ & bit) == 0 ? f.detect(content)
                            : (found & bit) != 0 ? f.detect_marked(content)
                                                 : f.detect_unmarked(content);
      if (!detected) continue;
    }
    FormatResult r = f.parse(content, tools);
    if (r.error) locate_error(f, content, *r.error);
    if (!r.calls.empty() || r.error) return decided(f.name(), std::move(r), std::move(reasoning));
    if ((!r.reasoning.empty() || r.framed) && framing == nullptr) {
      framing = &f;
      framed = std::make_unique<FormatResult>(std::move(r));
    }
  }
  if (framing != nullptr) return decided(framing->name(), std::move(*framed), std::move(reasoning));
  return ParseOutcome{"none", std::string(detail::trim(content)), std::move(reasoning), {}, {}, {}};
}

void UniversalToolCallParser::apply_non_call_rule(std::string_view content, std::span<const ToolSpec> tools,
                                                  ParseOutcome& out) const {
  // Rule 1: call syntax in example regions is content. Read again without them; keep that
  // reading unless a call would hold part of a region. A region that holds a call opens outside
  // it (the fence line, the quote marker, the log prefix), so it shows in the visible text the
  // format kept: a reply whose visible text opens none is passed over without a look at the rest.
  const std::vector<detail::TextRegion> regions =
      out.content.empty() || !detail::may_open_region(out.content) || detail::example_regions(out.content).empty()
          ? std::vector<detail::TextRegion>{}
          : detail::example_regions(content);
  if (!regions.empty()) {
    const std::string masked = detail::mask_regions(content, regions);
    ParseOutcome again = read_formats(masked, auto_detect_ ? markers_->scan(masked) : 0, tools, std::string());
    bool in_call = again.error && detail::holds_mask(*again.error);
    for (const ToolCall& c : again.calls) in_call = in_call || detail::holds_mask(c.name) || detail::holds_mask(c.arguments);
    if (!in_call && detail::unmask_content(again.content, content, regions)) {
      again.content = std::string(detail::trim(again.content));
      again.reasoning = std::move(out.reasoning);  // the reasoning split off before, and the formats' own
      out = std::move(again);
      if (out.calls.empty() && !out.error) return;
    }
  }
  // Rule 3: syntax without a marker of intent names registered tools only.
  if (!out.calls.empty() && detail::unmarked_format(out.format) && !detail::all_registered(out.calls, tools) &&
      detail::unmarked_reading(out.format, content)) {
    out = as_content(content, std::move(out.reasoning));
    return;
  }
  // Rule 2: placeholders show a form, not values.
  size_t forms = 0;
  std::optional<detail::PlaceholderArgument> first;
  const ToolCall* first_call = nullptr;
  for (const ToolCall& c : out.calls) {
    auto p = detail::placeholder_argument(c.arguments);
    if (!p) continue;
    ++forms;
    if (!first) {
      first = std::move(p);
      first_call = &c;
    }
  }
  if (out.error && out.calls.empty()) {
    // A failed call holding an unquoted <name> where a value goes: a form, when prose is beside it.
    if (has_prose(content, out) && detail::unquoted_placeholder(content) != std::string_view::npos) {
      out = as_content(content, std::move(out.reasoning));
    }
    return;
  }
  if (forms == 0) return;
  if (forms == out.calls.size() && !out.error && !out.content.empty()) {
    out = as_content(content, std::move(out.reasoning));
    return;
  }
  size_t at = detail::find_literal(content, first->value);
  if (at == std::string_view::npos) at = detail::find_literal(content, first_call->name);
  if (at == std::string_view::npos) at = 0;
  out.error = "the call to '" + first_call->name + "' has a template placeholder for argument '" + first->key +
              "' (" + first->value + ") at offset " + std::to_string(at) + ", not a value";
  out.calls.clear();
}

ParsedReply UniversalToolCallParser::parse(std::string_view text, std::span<const ToolSpec> tools) const {
  ParseOutcome o = parse_full(text, tools);
  ParsedReply r;
  r.calls = std::move(o.calls);
  r.text = std::move(o.content);
  if (o.error) r.errors.push_back(*o.error);
  r.format = std::move(o.format);
  r.reasoning = std::move(o.reasoning);
  r.repairs = std::move(o.repairs);
  return r;
}

std::vector<std::pair<std::string, std::string>> UniversalToolCallParser::formats() {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& f : builtin_tool_call_formats())
    out.emplace_back(std::string(f->name()), std::string(f->description()));
  return out;
}

std::unique_ptr<ToolCallParser> make_default_tool_call_parser() {
  auto p = UniversalToolCallParser::create("auto");
  return std::move(p).value();
}

std::shared_ptr<const ToolCallParser> shared_default_tool_call_parser() {
  static const std::shared_ptr<const ToolCallParser> parser = make_default_tool_call_parser();
  return parser;
}

}  // namespace keel
