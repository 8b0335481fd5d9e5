// extract_links — the http(s) links of a web page, absolute, de-duplicated, in document order, with
// their text (html_links.hpp), as compact JSON:
//   {"url": "<final url>", "base": "<base url, when a <base> changes it>", "count": n, "total": t,
//    "links": [{"url": "...", "text": "..."}], "truncated": true (when total > count)}
#include <algorithm>
#include <cstdint>
#include <nlohmann/json.hpp>

#include "tools/web/html_document.hpp"
#include "tools/web/html_links.hpp"
#include "tools/web/web_factories.hpp"
#include "tools/web/web_page.hpp"

namespace keel::detail {
namespace {

std::string schema(const WebToolOptions& options) {
  nlohmann::json s = {
      {"type", "object"},
      {"properties",
       {{"url", {{"type", "string"}, {"minLength", 1}, {"description", "Absolute http:// or https:// URL of the page"}}},
        {"same_host_only", {{"type", "boolean"}, {"description", "Only links to the page's own host; default false"}}},
        {"limit",
         {{"type", "integer"},
          {"minimum", 1},
          {"maximum", options.links_max_limit},
          {"description", "Most links to return; default " + std::to_string(options.links_default_limit)}}}}},
      {"required", {"url"}},
      {"additionalProperties", false},
  };
  return s.dump();
}

Result<std::string> run_extract_links(const WebFetcher& fetcher, const nlohmann::json& args, const ToolContext& ctx) {
  const WebToolOptions& options = fetcher.options();
  const std::string url = args.at("url").get<std::string>();
  const bool same_host_only = args.value("same_host_only", false);
  size_t limit = options.links_default_limit;
  if (args.contains("limit")) limit = static_cast<size_t>(std::max<int64_t>(1, args.at("limit").get<int64_t>()));
  limit = std::min(limit, options.links_max_limit);

  KEEL_ASSIGN_OR_RETURN(WebPage page, fetch_page(fetcher, url, ctx.stop, "extract_links"));
  KEEL_TRY(require_html(page, "extract_links"));
  KEEL_ASSIGN_OR_RETURN(HtmlDocument doc, HtmlDocument::parse(page.text));
  const std::string base = document_base_url(doc.root(), page.url);
  PageLinks found = extract_page_links(doc.root(), base, page.url, same_host_only, limit);

  nlohmann::json out = nlohmann::json::object();
  out["url"] = page.url;
  if (base != page.url) out["base"] = base;
  out["count"] = found.links.size();
  out["total"] = found.total;
  nlohmann::json links = nlohmann::json::array();
  for (PageLink& link : found.links) links.push_back({{"url", std::move(link.url)}, {"text", std::move(link.text)}});
  out["links"] = std::move(links);
  if (found.total > found.links.size()) out["truncated"] = true;
  if (const std::string note = truncation_note(page); !note.empty()) out["note"] = note;
  return compact_json(out);
}

}  // namespace

std::unique_ptr<Tool> make_extract_links_tool(WebFetcherPtr fetcher) {
  ToolSpec spec = web_reading_spec(
      "extract_links",
      "List the links of a web page as absolute URLs with their text, in page order, without duplicates.",
      schema(fetcher->options()), fetcher->options());
  return make_tool(std::move(spec), [fetcher = std::move(fetcher)](const nlohmann::json& args,
                                                                  const ToolContext& ctx) -> Result<std::string> {
    return run_extract_links(*fetcher, args, ctx);
  });
}

}  // namespace keel::detail
