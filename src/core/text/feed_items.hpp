// The items of an RSS or Atom feed, for the autopilot's http sources: what each item is (its id,
// title, link, date, summary), read tolerantly the way feed readers read real feeds, and a clear
// error for a document that is not a feed at all.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "keel/result.hpp"

namespace keel::detail {

struct FeedItem {
  std::string id = {};         // RSS guid, Atom id; else the link; else title and date
  std::string title = {};
  std::string link = {};
  std::string published = {};  // as written (RFC 822 in RSS, RFC 3339 in Atom)
  std::string summary = {};
};

struct Feed {
  std::string kind = {};  // "rss", "atom" or "rdf"
  std::string title = {};
  std::vector<FeedItem> items = {};
};

// Reads an RSS 0.9x/2.0, RSS 1.0 (RDF) or Atom 1.0 document. Namespace prefixes, CDATA, comments,
// processing instructions and a DOCTYPE are allowed; the five XML entities and numeric references
// are decoded (other entities are kept as written). InvalidArgument, saying what was found, for a
// document that is not a feed (HTML, JSON, text, empty), one cut off before its root element closes,
// nesting deeper than 256 or more than 10,000 items.
Result<Feed> parse_feed(std::string_view xml);

}  // namespace keel::detail
