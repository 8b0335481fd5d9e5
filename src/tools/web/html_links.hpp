// tools/web/html_links.hpp — the links of an HTML page, for extract_links.
//
// Every <a href> and <area href> in document order, resolved against the page's base URL
// (document_base_url()), fragments removed, de-duplicated (the first occurrence keeps its place; a
// later one supplies text when the first had none). Only http and https links are kept; in-page
// links ("#section"), mailto:, javascript: and the like are skipped. A link's text is its visible
// text, else the alt of an image inside it, its aria-label or its title.
//
// Thread-safety: pure function of its arguments.
#pragma once

#include <gumbo.h>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace keel::detail {

struct PageLink {
  std::string url;   // absolute, without fragment
  std::string text;  // whitespace collapsed; may be empty
};

struct PageLinks {
  std::vector<PageLink> links;  // at most `limit`
  size_t total = 0;             // distinct links that passed the filters, before the limit
};

// `page_url` is the page's final URL (after redirects); with `same_host_only`, only links to its
// host are kept.
PageLinks extract_page_links(const GumboNode* root, std::string_view base_url, std::string_view page_url,
                             bool same_host_only, size_t limit);

}  // namespace keel::detail
