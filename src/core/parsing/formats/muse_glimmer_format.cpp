// Muse Glimmer (ATEM): a reply is a run of messages, each addressed to a recipient,
//   [<|start|>assistant] to=RECIPIENT<|message|>BODY<|eom|> (more follow) or <|eot|> (end of turn)
// The first message's <|start|>assistant is the prompt's, so a reply opens with " to=" (or with the
// recipient's name, where the prompt ended with "to="). A message to `user` is the answer
// (content), one to `self` the reasoning; any other recipient is a tool, and the body is its call:
//   <atem:function_calls>
//   <atem:invoke name="get_weather">
//   <atem:parameter name="city">Paris</atem:parameter>
//   </atem:invoke>
//   </atem:function_calls>
// Values are typed by the tool's JSON Schema (lists and objects are written as JSON; see
// xml_invoke.hpp). Call markup in a message to the user or to self is what it says there (an
// example, a thought), never a call. A reply with <|message|> but no header (the recipient was in
// the prompt) is read for the blocks themselves, outside markdown code. The end tokens are stop
// tokens that servers may drop.
#include "core/parsing/formats/formats.hpp"
#include "core/parsing/formats/special_tokens.hpp"
#include "core/parsing/formats/text_scan.hpp"
#include "core/parsing/formats/xml_invoke.hpp"
#include "core/text/text_util.hpp"

namespace keel::detail {
namespace {
namespace muse_glimmer {

constexpr std::string_view kMessage = "<|message|>";
constexpr std::string_view kStart = "<|start|>";
constexpr std::string_view kEom = "<|eom|>";
constexpr std::string_view kEot = "<|eot|>";
constexpr std::string_view kBlock = "<atem:function_calls>";
constexpr std::string_view kBlockClose = "</atem:function_calls>";
constexpr XmlInvokeTags kTags{"<atem:invoke", "</atem:invoke>", "<atem:parameter", "</atem:parameter>", false};

// A message header found before <|message|>: [begin, the body) and its recipient.
struct Header {
  size_t begin = kNpos;  // where " to=" (or <|start|>) starts; kNpos when the text is no header
  std::string_view recipient;
};

// The header that ends at the <|message|> at `message`, within text[from, message).
Header header_before(std::string_view text, size_t from, size_t message) {
  Header h;
  size_t e = message;
  while (e > from && is_blank(text[e - 1])) --e;
  size_t b = e;
  while (b > from && is_name_char(text[b - 1])) --b;
  if (b != e && from == 0 && skip_space(text, 0) == b) {  // the prompt ended with "to=": the name opens the reply
    h.recipient = text.substr(b, e - b);
    h.begin = b;
    return h;
  }
  if (b == e || b - from < 3 || text.substr(b - 3, 3) != "to=") return h;
  h.recipient = text.substr(b, e - b);
  b -= 3;
  if (b > from && !is_blank(text[b - 1])) return h;  // "goto=x" is no header
  while (b > from && (text[b - 1] == ' ' || text[b - 1] == '\t')) --b;
  if (b - from >= 9 && text.substr(b - 9, 9) == "assistant") {
    b -= 9;
    while (b > from && (text[b - 1] == ' ' || text[b - 1] == '\t')) --b;
  }
  if (b - from >= kStart.size() && text.substr(b - kStart.size(), kStart.size()) == kStart) b -= kStart.size();
  h.begin = b;
  return h;
}

// Reads the <atem:function_calls> block at `open` into `out`; returns its end.
size_t read_block(std::string_view text, size_t open, std::span<const ToolSpec> tools, FormatResult& out) {
  size_t p = open + kBlock.size();
  bool any = false;
  while (!out.error) {
    const size_t q = skip_space(text, p);
    if (starts_at(text, q, kBlockClose)) return q + kBlockClose.size();
    if (q == text.size()) {
      if (!any) fail(out, "<atem:function_calls> at offset " + std::to_string(open) + ": cut off before <atem:invoke");
      return q;
    }
    if (!starts_at(text, q, kTags.invoke)) {
      if (any) return q;  // text after the calls of a block that lost its closing tag
      fail(out, "<atem:function_calls> at offset " + std::to_string(open) + ": expected <atem:invoke at offset " +
                    std::to_string(q) + ", found " + shown_char(text, q));
      const size_t c = find_literal(text, kBlockClose, q);
      return c == kNpos ? text.size() : c + kBlockClose.size();
    }
    const XmlInvokeRead r = read_xml_invoke(text, q, kTags, tools, out);
    any = any || r.ok;
    p = r.end;
    if (r.cut_off) return r.end;
  }
  return p;
}

class MuseGlimmerFormat final : public ToolCallFormat {
 public:
  std::string_view name() const override { return "muse_glimmer"; }
  std::string_view description() const override {
    return "Muse Glimmer: to=NAME<|message|><atem:function_calls><atem:invoke name=\"N\">"
           "<atem:parameter name=\"K\">v</atem:parameter>...; to=user, to=self<|message|>...<|eot|>";
  }
  // <|message|> is harmony's marker too (one entry in the shared scan, no comparison added); how
  // the reply opens tells the two apart at once: harmony writes a channel (or addresses
  // functions.NAME), Muse a recipient alone. Its end tokens and <atem: are no markers: they would
  // add comparisons to the shared scan at every <|end|> of a harmony reply and every <a of HTML.
  std::span<const std::string_view> markers() const override {
    static constexpr std::string_view kMarkers[] = {kMessage};
    return kMarkers;
  }
  std::span<const std::string_view> stream_markers() const override {
    static constexpr std::string_view kStream[] = {kBlock};
    return kStream;
  }
  bool detect_marked(std::string_view text) const override {
    std::string_view rest = text.substr(skip_space(text, 0));
    if (rest.starts_with(kStart)) rest.remove_prefix(kStart.size());
    if (rest.starts_with("assistant")) rest.remove_prefix(9);
    rest = rest.substr(skip_space(rest, 0));
    if (rest.starts_with("<|channel|>")) return false;  // harmony
    if (rest.starts_with("to=") && !rest.substr(3).starts_with("functions.")) {
      const size_t name = name_end(rest, 3);
      if (name > 3 && rest.substr(skip_space(rest, name)).starts_with(kMessage)) return true;
    }
    return find_literal(text, kBlock) != kNpos;
  }

  FormatResult parse(std::string_view text, std::span<const ToolSpec> tools) const override {
    FormatResult out;
    Finder messages(text, kMessage);
    Finder eoms(text, kEom);
    Finder eots(text, kEot);
    Finder starts(text, kStart);
    size_t pos = 0;  // text before this is read
    for (size_t m = messages.next(0); m != kNpos && !out.error; m = messages.next(m + kMessage.size())) {
      if (m < pos) continue;
      const Header h = header_before(text, pos, m);
      if (h.begin == kNpos) continue;  // not a header: the token is text
      out.framed = true;
      append_line(out.content, text.substr(pos, h.begin - pos));  // text outside the messages
      const size_t body_b = m + kMessage.size();
      size_t body_e = std::min({eoms.next(body_b), eots.next(body_b), starts.next(body_b), text.size()});
      const std::string_view body = text.substr(body_b, body_e - body_b);
      if (h.recipient == "user") {
        append_line(out.content, body);
      } else if (h.recipient == "self") {
        append_line(out.reasoning, body);
      } else {
        call_message(text, h, body_b, body_e, tools, out);
      }
      pos = starts_at(text, body_e, kEom)   ? body_e + kEom.size()
            : starts_at(text, body_e, kEot) ? body_e + kEot.size()
                                            : body_e;
    }
    if (!out.framed) return bare_blocks(text, tools);
    append_line(out.content, text.substr(pos));
    return out;
  }

 private:
  // The message to a tool, its body text[body_b, body_e): one block of calls.
  static void call_message(std::string_view text, const Header& h, size_t body_b, size_t body_e,
                           std::span<const ToolSpec> tools, FormatResult& out) {
    const size_t q = skip_space(text, body_b);
    const Label where({"the message to '", h.recipient, "'"}, h.begin);  // written only for a message
    if (q >= body_e) {
      fail(out, where + ": cut off before <atem:function_calls> at offset " + std::to_string(q));
      return;
    }
    if (!starts_at(text, q, kBlock)) {
      fail(out, where + ": expected <atem:function_calls> at offset " + std::to_string(q) + ", found " +
                    shown_char(text, q));
      return;
    }
    const size_t before = out.calls.size();
    const size_t end = read_block(text.substr(0, body_e), q, tools, out);
    if (out.error) return;
    if (out.calls.size() == before) {
      fail(out, where + ": the block at offset " + std::to_string(q) + " holds no call");
    } else if (!trim(text.substr(end, body_e - end)).empty()) {
      append_line(out.content, text.substr(end, body_e - end));
    }
  }

  // A reply without message headers: its blocks outside markdown code are calls.
  static FormatResult bare_blocks(std::string_view text, std::span<const ToolSpec> tools) {
    FormatResult out;
    Cuts cuts;
    MarkdownCode code(text);
    size_t pos = 0;
    size_t open;
    while (!out.error && (open = find_outside_code(text, kBlock, pos, code)) != kNpos) {
      out.framed = true;
      const size_t end = read_block(text, open, tools, out);
      cuts.emplace_back(open, end);
      code.consumed(end);
      pos = end;
    }
    out.content = text_outside(text, cuts, {kEom, kEot});
    return out;
  }
};

}  // namespace muse_glimmer
}  // namespace

std::unique_ptr<ToolCallFormat> make_muse_glimmer_format() {
  return std::make_unique<muse_glimmer::MuseGlimmerFormat>();
}

}  // namespace keel::detail
