// tools/web/web_factories.hpp — constructors of the web tools, one per source file, used by
// register_web_tools() (web_tools.cpp) and by tests. All share one immutable WebFetcher, which
// holds the options and the SSRF policy.
//
// Thread-safety: the tools may run on any thread; web_fetch, extract_links and page_metadata also
// concurrently with themselves.
#pragma once

#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string>

#include "keel/tool.hpp"
#include "tools/web/web_fetcher.hpp"

namespace keel::detail {

using WebFetcherPtr = std::shared_ptr<const WebFetcher>;

std::unique_ptr<Tool> make_http_fetch_tool(WebFetcherPtr fetcher);
std::unique_ptr<Tool> make_web_fetch_tool(WebFetcherPtr fetcher);
std::unique_ptr<Tool> make_extract_links_tool(WebFetcherPtr fetcher);
std::unique_ptr<Tool> make_page_metadata_tool(WebFetcherPtr fetcher);

// The spec shared by the reading tools: read-only, concurrency-safe, cacheable, risk low, with a
// timeout a little above the fetcher's own so that its clearer message wins.
ToolSpec web_reading_spec(std::string name, std::string description, std::string schema, const WebToolOptions& options);

// A tool result as compact JSON text (invalid UTF-8 from a server replaced, never thrown).
std::string compact_json(const nlohmann::json& value);

}  // namespace keel::detail
