// Functionary v3.2: the reply is a run of segments, each a ">>>" header naming a recipient,
//   >>>all
//   Let me check.
//   >>>get_weather
//   {"city": "Paris"}>>>search
//   {"query": "keel"}
// "all" segments are text for the user (content); any other name is a call whose body is its JSON
// arguments ("python" may carry raw code instead: {"code": ...}). The template ends the prompt
// with ">>>", so the first header of a reply may lack it: "all\n..." or "NAME\n{" for a
// registered tool ("python\n" followed by code when a python tool is registered). Headers are
// explicit, so unknown names are calls and broken JSON is an error.
#include "core/parsing/formats/format_util.hpp"
#include "core/parsing/formats/formats.hpp"
#include "core/parsing/formats/text_scan.hpp"
#include "core/parsing/json/json_scan.hpp"
#include "core/text/text_util.hpp"

namespace keel::detail {
namespace {

constexpr std::string_view kMark = ">>>";

// A header "NAME\n" at `pos`: the name and where its body starts.
struct Header {
  size_t at = kNpos;      // where the header starts (its ">>>" when there is one)
  std::string_view name;  // a view of the reply
  size_t body = 0;
  bool cut_off = false;  // ">>>NAME" ends the text
};

// Reads "NAME[ \t]*\n" at `pos`; nullopt when it is not one.
std::optional<Header> header_at(std::string_view text, size_t at, size_t pos) {
  size_t e = name_end(text, pos);
  if (e == pos) return std::nullopt;
  size_t nl = e;
  while (nl < text.size() && (text[nl] == ' ' || text[nl] == '\t' || text[nl] == '\r')) ++nl;
  Header h{at, text.substr(pos, e - pos), nl + 1, false};
  if (nl == text.size()) {
    h.cut_off = true;
    h.body = text.size();
    return h;
  }
  if (text[nl] != '\n') return std::nullopt;
  return h;
}

class FunctionaryV32Format final : public ToolCallFormat {
 public:
  std::string_view name() const override { return "functionary_v32"; }
  std::string_view description() const override {
    return "Functionary v3.2: >>>NAME\\n{json} segments; >>>all\\ntext is content";
  }
  std::span<const std::string_view> markers() const override {
    static constexpr std::string_view kMarkers[] = {kMark};
    return kMarkers;
  }
  // A first header without ">>>" (the prompt ended with it).
  bool unmarked_detection() const override { return true; }
  bool detect_unmarked(std::string_view text) const override {
    size_t start = skip_space(text, 0);
    std::optional<Header> h = header_at(text, start, start);  // a first header without ">>>"
    return h && !h->cut_off && (h->name == "all" || starts_at(text, skip_space(text, h->body), "{"));
  }

  FormatResult parse(std::string_view text, std::span<const ToolSpec> tools) const override {
    FormatResult out;
    Cuts cuts;
    MarkdownCode code(text);
    std::optional<Header> h = first_header(text, tools, code);
    out.framed = h.has_value();  // headers frame the reply even when it holds only "all" text
    while (h) {
      if (h->cut_off) {
        if (h->name != "all") {
          fail(out,
               ">>>" + std::string(h->name) + " at offset " + std::to_string(h->at) + ": cut off before the arguments");
        }
        cuts.emplace_back(h->at, text.size());
        break;
      }
      size_t end = h->body;
      if (h->name != "all") end = call(text, *h, out);
      cuts.emplace_back(h->at, h->name == "all" ? h->body : end);
      code.consumed(end);
      h = next_header(text, end, code);
    }
    out.content = text_outside(text, cuts, {"<|eot_id|>", "<|eom_id|>"});
    return out;
  }

 private:
  // The first header: at the very start without ">>>" (the prompt ended with it), else the first ">>>".
  static std::optional<Header> first_header(std::string_view text, std::span<const ToolSpec> tools,
                                            MarkdownCode& code) {
    size_t start = skip_space(text, 0);
    if (start < text.size() && text[start] != '>') {
      std::optional<Header> h = header_at(text, start, start);
      if (h && !h->cut_off &&
          (h->name == "all" ||
           (find_tool(tools, h->name) != nullptr &&
            (h->name == "python" || starts_at(text, skip_space(text, h->body), "{"))))) {
        return h;
      }
    }
    return next_header(text, 0, code);
  }

  static std::optional<Header> next_header(std::string_view text, size_t from, MarkdownCode& code) {
    for (size_t m; (m = find_outside_code(text, kMark, from, code)) != kNpos; from = m + 1) {
      if (auto h = header_at(text, m, m + kMark.size())) return h;
    }
    return std::nullopt;
  }

  // Reads a call segment's body; returns where the segment ends.
  static size_t call(std::string_view text, const Header& h, FormatResult& out) {
    const Label where({">>>", h.name}, h.at);
    size_t body = skip_space(text, h.body);
    CallDraft d;
    d.name = std::string(h.name);
    if (body < text.size() && text[body] == '{') {
      // The JSON ends where it balances, or (unbalanced) at the next ">>>" outside strings; text
      // after it up to the next header is content. Strictly valid JSON, the usual case, ends where
      // its scan ends (">>>" cannot stand outside its strings); no payload from there is valid else.
      JsonIndex index;
      const size_t valid_end = scan_json_value(text, body, &index);
      const bool valid = valid_end != kNpos;
      JsonExtent ex = valid ? JsonExtent{valid_end, true} : json_extent_until(text, body, kMark);
      size_t end = ex.end;
      bool cut_off = !ex.closed && end == text.size();
      std::string why;
      const std::string_view payload = text.substr(body, end - body);
      const LenientText args =
          lenient_payload(payload, where, d.repairs, valid ? Scanned::kValid : Scanned::kInvalid, &index);
      if (!args.ok()) {
        fail(out, where + (cut_off ? ": the arguments were cut off (" : ": invalid JSON (") + args.error + ")");
      } else if (!take_arguments(args.view(), d, where, why)) {
        fail(out, where + ": " + why);
      } else {
        commit(out, std::move(d), where);
      }
      return end;
    }
    size_t next = text.size();
    for (size_t m = text.find(kMark, body); m != kNpos; m = text.find(kMark, m + 1)) {
      if (header_at(text, m, m + kMark.size())) {
        next = m;
        break;
      }
    }
    if (h.name == "python" && body < next) {  // the code interpreter takes raw code
      JsonObjectWriter args;
      args.key("code");
      args.string_value(trim(text.substr(body, next - body)));
      d.valid_utf8 = args.valid();
      d.arguments = std::move(args).finish();
      commit(out, std::move(d), where);
      return next;
    }
    if (body == text.size()) {
      fail(out, where + ": cut off before the JSON arguments");
    } else {
      fail(out,
           where + ": expected JSON arguments at offset " + std::to_string(body) + ", found " + shown_char(text, body));
    }
    return next;
  }
};

}  // namespace

std::unique_ptr<ToolCallFormat> make_functionary_v32_format() {
  return std::make_unique<FunctionaryV32Format>();
}

}  // namespace keel::detail
