// page_metadata — what a web page says about itself (html_metadata.hpp) as compact JSON, with the
// final URL: {"url", "title", "description", "lang", "canonical", "og", "twitter", "json_ld", ...}.
// Invalid JSON-LD blocks are listed in "json_ld_errors"; they do not fail the call.
#include <nlohmann/json.hpp>

#include "tools/web/html_document.hpp"
#include "tools/web/html_metadata.hpp"
#include "tools/web/web_factories.hpp"
#include "tools/web/web_page.hpp"

namespace keel::detail {
namespace {

constexpr const char* kSchema = R"({
  "type": "object",
  "properties": {
    "url": {"type": "string", "minLength": 1, "description": "Absolute http:// or https:// URL of the page"}
  },
  "required": ["url"],
  "additionalProperties": false
})";

Result<std::string> run_page_metadata(const WebFetcher& fetcher, const nlohmann::json& args, const ToolContext& ctx) {
  const std::string url = args.at("url").get<std::string>();
  KEEL_ASSIGN_OR_RETURN(WebPage page, fetch_page(fetcher, url, ctx.stop, "page_metadata"));
  KEEL_TRY(require_html(page, "page_metadata"));
  KEEL_ASSIGN_OR_RETURN(HtmlDocument doc, HtmlDocument::parse(page.text));
  nlohmann::json meta = extract_page_metadata(doc.root(), document_base_url(doc.root(), page.url),
                                              fetcher.options().max_output_bytes);
  nlohmann::json out = nlohmann::json::object();
  out["url"] = page.url;
  for (auto& [key, value] : meta.items()) out[key] = std::move(value);
  if (const std::string note = truncation_note(page); !note.empty()) out["note"] = note;
  return compact_json(out);
}

}  // namespace

std::unique_ptr<Tool> make_page_metadata_tool(WebFetcherPtr fetcher) {
  ToolSpec spec = web_reading_spec(
      "page_metadata",
      "Get a web page's metadata: title, description, language, canonical URL, Open Graph and Twitter card "
      "properties, and its JSON-LD structured data.",
      kSchema, fetcher->options());
  return make_tool(std::move(spec), [fetcher = std::move(fetcher)](const nlohmann::json& args,
                                                                  const ToolContext& ctx) -> Result<std::string> {
    return run_page_metadata(*fetcher, args, ctx);
  });
}

}  // namespace keel::detail
