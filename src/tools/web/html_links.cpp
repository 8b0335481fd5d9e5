// Link collection for extract_links; see html_links.hpp.
#include "tools/web/html_links.hpp"

#include <cstdint>
#include <unordered_map>

#include "tools/web/html_document.hpp"
#include "tools/web/web_url.hpp"

namespace keel::detail {

PageLinks extract_page_links(const GumboNode* root, std::string_view base_url, std::string_view page_url,
                             bool same_host_only, size_t limit) {
  PageLinks out;
  std::string page_host;
  if (Result<WebUrl> page = parse_web_url(page_url); page.ok()) page_host = page->host;
  std::unordered_map<std::string, size_t> seen;  // url -> index in out.links, or SIZE_MAX past the limit
  visit_elements(root, [&](const GumboNode* n) {
    if (n->type != GUMBO_NODE_ELEMENT || n->v.element.tag_namespace != GUMBO_NAMESPACE_HTML) return true;
    const GumboTag tag = n->v.element.tag;
    if (tag == GUMBO_TAG_SCRIPT || tag == GUMBO_TAG_STYLE || tag == GUMBO_TAG_TEMPLATE) return false;
    if (tag != GUMBO_TAG_A && tag != GUMBO_TAG_AREA) return true;
    const char* href = html_attr(n, "href");
    if (href == nullptr || collapse_whitespace(href).starts_with('#')) return true;
    std::optional<std::string> url = resolve_http_url(base_url, href, /*drop_fragment=*/true);
    if (!url) return true;
    if (same_host_only) {
      Result<WebUrl> target = parse_web_url(*url);
      if (!target.ok() || target->host != page_host) return true;
    }
    std::string text = node_text(n);
    if (text.empty()) text = link_fallback_label(n);
    if (auto it = seen.find(*url); it != seen.end()) {
      if (it->second < out.links.size() && out.links[it->second].text.empty()) out.links[it->second].text = text;
      return true;
    }
    ++out.total;
    if (out.links.size() < limit) {
      seen.emplace(*url, out.links.size());
      out.links.push_back(PageLink{*url, std::move(text)});
    } else {
      seen.emplace(*url, SIZE_MAX);
    }
    return true;
  });
  return out;
}

}  // namespace keel::detail
