// tools/web/web_page.hpp — fetching a page for the reading tools (web_fetch, extract_links,
// page_metadata): a GET that asks for HTML, reads at most max_response_bytes, turns non-2xx
// statuses and binary content into errors, and decodes the body to UTF-8.
//
// Thread-safety: free functions; safe from any thread (the fetcher is immutable).
#pragma once

#include <cstddef>
#include <stop_token>
#include <string>
#include <string_view>

#include "keel/result.hpp"
#include "tools/web/body_decoding.hpp"
#include "tools/web/web_fetcher.hpp"

namespace keel::detail {

struct WebPage {
  std::string url;          // final URL, after redirects
  std::string media_type;   // "text/html", ... ("" when the server sent none)
  BodyKind kind = BodyKind::kText;  // kHtml or kText; binary bodies are refused
  std::string text;         // the body as UTF-8
  size_t bytes = 0;         // body bytes read
  bool truncated = false;   // the body was longer than max_response_bytes; `text` is its start
};

// GETs `url`. Errors: the fetcher's, plus an HTTP error status as a Status (404/410 NotFound, 401
// Unauthenticated, 403 PermissionDenied, 429 and 5xx Unavailable, a redirect that was not
// followed FailedPrecondition, other 4xx InvalidArgument) and InvalidArgument for binary content.
// `tool` names the caller in messages.
Result<WebPage> fetch_page(const WebFetcher& fetcher, const std::string& url, std::stop_token stop,
                           std::string_view tool);

// InvalidArgument unless `page` is HTML ("extract_links needs an HTML page; ... is text/plain").
Status require_html(const WebPage& page, std::string_view tool);

// "[only the first N bytes of the page were read (max_response_bytes)]", or "" when complete.
std::string truncation_note(const WebPage& page);

}  // namespace keel::detail
