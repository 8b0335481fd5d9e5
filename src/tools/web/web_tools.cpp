// register_web_tools() and the helpers the web tools share.
#include "keel/web_tools.hpp"

#include <nlohmann/json.hpp>

#include "tools/web/web_factories.hpp"

namespace keel {
namespace detail {

// Time the HTML tools may spend past the fetch (parsing, rendering) before the executor's timeout.
constexpr int kToolTimeoutMarginMs = 5000;

ToolSpec web_reading_spec(std::string name, std::string description, std::string schema,
                          const WebToolOptions& options) {
  ToolTraits t;
  t.read_only = true;
  t.timeout_ms = options.timeout_ms + kToolTimeoutMarginMs;
  t.cacheable = true;
  return make_tool_spec(std::move(name), std::move(description), std::move(schema), t);
}

std::string compact_json(const nlohmann::json& value) {
  return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace detail

Status register_web_tools(ToolRegistry& registry, const WebToolOptions& options) {
  try {
    if (options.web_fetch_max_chars == 0 || options.web_fetch_max_chars_limit < options.web_fetch_max_chars) {
      return Status::InvalidArgument(
          "web tools: web_fetch_max_chars must be positive and at most web_fetch_max_chars_limit");
    }
    if (options.links_default_limit == 0 || options.links_max_limit < options.links_default_limit) {
      return Status::InvalidArgument("web tools: links_default_limit must be positive and at most links_max_limit");
    }
    KEEL_ASSIGN_OR_RETURN(detail::WebFetcherPtr fetcher, detail::WebFetcher::create(options));
    if (options.enable_http_fetch) KEEL_TRY(registry.add(detail::make_http_fetch_tool(fetcher)));
    KEEL_TRY(registry.add(detail::make_web_fetch_tool(fetcher)));
    KEEL_TRY(registry.add(detail::make_extract_links_tool(fetcher)));
    KEEL_TRY(registry.add(detail::make_page_metadata_tool(fetcher)));
  } catch (const std::exception& e) {
    return Status::Internal(std::string("cannot register the web tools: ") + e.what());
  }
  return Status::Ok();
}

}  // namespace keel
