// web_fetch — a web page as readable text (html_text.hpp says what is kept and dropped), within a
// character budget. Non-HTML text comes back as it is; binary content is refused.
//
// Output: "Title: ...\nURL: <final url>\n\n<text>" (no Title line without a <title>; a
// "Content-Type" line instead for non-HTML text), then notes in brackets when the text was cut at
// the budget or the page at max_response_bytes.
#include <algorithm>
#include <cstdint>
#include <nlohmann/json.hpp>

#include "core/text/utf8_text.hpp"
#include "tools/web/html_document.hpp"
#include "tools/web/html_text.hpp"
#include "tools/web/web_factories.hpp"
#include "tools/web/web_page.hpp"

namespace keel::detail {
namespace {

std::string web_fetch_schema(const WebToolOptions& options) {
  nlohmann::json s = {
      {"type", "object"},
      {"properties",
       {{"url", {{"type", "string"}, {"minLength", 1}, {"description", "Absolute http:// or https:// URL of the page"}}},
        {"max_chars",
         {{"type", "integer"},
          {"minimum", 1},
          {"maximum", options.web_fetch_max_chars_limit},
          {"description", "Most characters of text to return; default " + std::to_string(options.web_fetch_max_chars)}}}}},
      {"required", {"url"}},
      {"additionalProperties", false},
  };
  return s.dump();
}

// `text` cut to at most `budget` characters, at a paragraph, line or word end when one is near;
// sets *cut when something was removed.
std::string apply_budget(std::string text, size_t budget, bool* cut) {
  *cut = false;
  const size_t end = utf8_prefix_bytes(text, budget);
  if (end >= text.size()) return text;
  *cut = true;
  size_t at = end;
  const std::string_view head(text.data(), end);
  for (std::string_view sep : {std::string_view("\n\n"), std::string_view("\n"), std::string_view(" ")}) {
    const size_t found = head.rfind(sep);
    if (found != std::string_view::npos && found >= end / 2) {
      at = found;
      break;
    }
  }
  text.resize(at);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\n')) text.pop_back();
  return text;
}

Result<std::string> run_web_fetch(const WebFetcher& fetcher, const nlohmann::json& args, const ToolContext& ctx) {
  const WebToolOptions& options = fetcher.options();
  const std::string url = args.at("url").get<std::string>();
  size_t budget = options.web_fetch_max_chars;
  if (args.contains("max_chars")) {
    budget = static_cast<size_t>(std::max<int64_t>(1, args.at("max_chars").get<int64_t>()));
  }
  budget = std::min(budget, options.web_fetch_max_chars_limit);
  KEEL_ASSIGN_OR_RETURN(WebPage page, fetch_page(fetcher, url, ctx.stop, "web_fetch"));

  std::string header;
  std::string body;
  if (page.kind == BodyKind::kHtml) {
    KEEL_ASSIGN_OR_RETURN(HtmlDocument doc, HtmlDocument::parse(page.text));
    ReadableText readable = html_to_readable_text(doc.root(), document_base_url(doc.root(), page.url));
    if (!readable.title.empty()) header += "Title: " + readable.title + "\n";
    header += "URL: " + page.url + "\n";
    body = std::move(readable.text);
  } else {
    header = "URL: " + page.url + "\nContent-Type: " + (page.media_type.empty() ? "text/plain" : page.media_type) + "\n";
    body = std::move(page.text);
  }
  if (ctx.stop.stop_requested()) return Status::Cancelled("web_fetch of " + url + " was cancelled");

  const size_t total = utf8_char_count(body);
  bool cut = false;
  body = apply_budget(std::move(body), budget, &cut);
  std::string out = header + "\n" + (body.empty() ? std::string("(the page has no readable text)") : body);
  if (cut) {
    out += "\n\n[text cut at " + std::to_string(utf8_char_count(body)) + " of " + std::to_string(total) + " characters";
    out += budget < options.web_fetch_max_chars_limit
               ? "; call web_fetch again with a larger max_chars (at most " +
                     std::to_string(options.web_fetch_max_chars_limit) + ") to read more]"
               : "; the rest is not shown]";
  }
  if (const std::string note = truncation_note(page); !note.empty()) out += "\n" + note;
  return out;
}

}  // namespace

std::unique_ptr<Tool> make_web_fetch_tool(WebFetcherPtr fetcher) {
  ToolSpec spec = web_reading_spec(
      "web_fetch",
      "Read a web page as text: headings, paragraphs, lists, tables, code and links (as [text](url)) without "
      "scripts, navigation, ads or other page chrome. Plain-text URLs are returned as they are.",
      web_fetch_schema(fetcher->options()), fetcher->options());
  return make_tool(std::move(spec), [fetcher = std::move(fetcher)](const nlohmann::json& args,
                                                                  const ToolContext& ctx) -> Result<std::string> {
    return run_web_fetch(*fetcher, args, ctx);
  });
}

}  // namespace keel::detail
