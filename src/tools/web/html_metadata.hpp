// tools/web/html_metadata.hpp — what a page says about itself, for page_metadata.
//
// A JSON object with, when present: "title" (<title>), "description" (<meta name=description>),
// "author", "lang" (<html lang>), "canonical" (<link rel=canonical>, resolved to an absolute URL),
// "og" / "twitter" / "article" (the og:*, twitter:* and article:* <meta> properties, keyed without
// the prefix; a property given several times becomes an array), "json_ld" (every
// <script type="application/ld+json"> block, parsed) and "json_ld_errors" ([{"block": n,
// "error": "..."}] for blocks that are not valid JSON or did not fit the byte budget; the others
// are still returned).
//
// Thread-safety: pure function of its arguments.
#pragma once

#include <gumbo.h>

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string_view>

namespace keel::detail {

// `base_url` resolves the canonical link; `json_ld_budget` caps the bytes of JSON-LD returned.
nlohmann::json extract_page_metadata(const GumboNode* root, std::string_view base_url, size_t json_ld_budget);

}  // namespace keel::detail
