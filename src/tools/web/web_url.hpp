// tools/web/web_url.hpp — URL parsing and resolution for the web tools, over libcurl's URL API
// (the same parser that later fetches the URL, so what is checked is what is fetched).
//
// Thread-safety: free functions without shared state; safe from any thread.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "keel/result.hpp"

namespace keel::detail {

struct WebUrl {
  std::string url;     // normalized absolute URL, as libcurl will request it
  std::string scheme;  // "http" or "https"
  std::string host;    // as in the URL, brackets removed from IPv6 literals; IPv4 numbers normalized
  int port = 0;        // explicit or the scheme's default
};

// Parses an absolute http(s) URL. InvalidArgument for anything else, naming the problem: not a
// URL, no host, or another scheme ("file", "ftp", "gopher", ...: only http and https are fetched).
Result<WebUrl> parse_web_url(std::string_view url);

// `reference` (an href) resolved against the absolute URL `base`, as a normalized absolute URL;
// nullopt when it cannot be resolved or its scheme is not http(s) (mailto:, javascript:, data:, ...).
// Tabs and newlines are removed and spaces and non-ASCII bytes percent-encoded first, as browsers
// do. With `drop_fragment`, the "#..." part is removed.
std::optional<std::string> resolve_http_url(std::string_view base, std::string_view reference,
                                            bool drop_fragment = false);

// Whether two URLs have the same scheme, host and port (compare before forwarding credentials).
bool same_origin(const WebUrl& a, const WebUrl& b);

}  // namespace keel::detail
