// The items of an RSS or Atom feed, for the autopilot's http sources: what each item is (its id,
// title, link, date, summary), read tolerantly the way feed readers read real feeds, and a clear
// error for a document that is not a feed at all.
//
//   KEEL_ASSIGN_OR_RETURN(Feed feed, parse_feed(body));
//   for (const FeedItem& item : feed.items) remember(item.id);
//
// Thread-safety: a pure function.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "keel/result.hpp"

namespace keel::detail {

struct FeedItem {
  std::string id = {};  // RSS guid (RSS 1.0: rdf:about), Atom id; else the link; else title and date
  std::string title = {};
  std::string link = {};       // RSS <link>; Atom <link rel="alternate"> (or without rel): its href
  std::string published = {};  // as written (RFC 822 in RSS, RFC 3339 in Atom and dc:date)
  std::string summary = {};    // RSS description or content:encoded, Atom summary or content
};

struct Feed {
  std::string kind = {};  // "rss", "atom" or "rdf"
  std::string title = {};
  std::vector<FeedItem> items = {};  // in document order
};

// Reads an RSS 0.9x/2.0, RSS 1.0 (RDF) or Atom 1.0 document. Namespace prefixes (atom:link, dc:date,
// rss:item), CDATA, comments, processing instructions and a DOCTYPE (internal subset included) are
// allowed; the five XML entities and numeric references are decoded once, other entities (&nbsp;)
// kept as written, CDATA kept as written. Text is trimmed; markup written inside an element (Atom
// type="xhtml", HTML left unescaped in a description) is kept as written. InvalidArgument, saying
// what was found instead, for a document that is not a feed (HTML, JSON, text, binary, empty, UTF-16),
// one cut off before its root element closes, nesting deeper than 256, more than 500,000 elements or
// more than 10,000 items.
Result<Feed> parse_feed(std::string_view xml);

}  // namespace keel::detail
