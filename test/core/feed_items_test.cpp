// RSS and Atom feeds: items with their ids, titles, links, dates and summaries from each dialect,
// CDATA and entities, namespaced elements, and a clear error for anything that is not a feed
// (an HTML page, JSON, text, an empty or cut-off document). The examples are the specifications'
// own: RSS 2.0 (www.rssboard.org/rss-specification, "Sample files"), Atom (RFC 4287, section 1.1)
// and RSS 1.0 (web.resource.org/rss/1.0/spec, section 7).
#include <gtest/gtest.h>

#include "core/text/feed_items.hpp"

namespace keel::detail {
namespace {

// RFC 4287, 1.1: "A brief, single-entry Atom Feed Document".
constexpr const char* kRfc4287Example = R"(<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">

  <title>Example Feed</title>
  <link href="http://example.org/"/>
  <updated>2003-12-13T18:30:02Z</updated>
  <author>
    <name>John Doe</name>
  </author>
  <id>urn:uuid:60a76c80-d399-11d9-b93C-0003939e0af6</id>

  <entry>
    <title>Atom-Powered Robots Run Amok</title>
    <link href="http://example.org/2003/12/13/atom03"/>
    <id>urn:uuid:1225c695-cfb8-4ebb-aaaa-80da344efa6a</id>
    <updated>2003-12-13T18:30:02Z</updated>
    <summary>Some text.</summary>
  </entry>

</feed>)";

// RSS 1.0 specification, section 7 (example), shortened to two items.
constexpr const char* kRss10Example = R"(<?xml version="1.0"?>
<rdf:RDF
  xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"
  xmlns="http://purl.org/rss/1.0/"
>
  <channel rdf:about="http://www.xml.com/xml/news.rss">
    <title>XML.com</title>
    <link>http://xml.com/pub</link>
  </channel>
  <item rdf:about="http://xml.com/pub/2000/08/09/xslt/xslt.html">
    <title>Processing Inclusions with XSLT</title>
    <link>http://xml.com/pub/2000/08/09/xslt/xslt.html</link>
    <description>Processing document inclusions with general XML tools can be problematic.</description>
  </item>
  <item rdf:about="http://xml.com/pub/2000/08/09/rdfdb/index.html">
    <title>Putting RDF to Work</title>
    <link>http://xml.com/pub/2000/08/09/rdfdb/index.html</link>
  </item>
</rdf:RDF>)";

// RSS 2.0 in the shape of the RSS Advisory Board's sample, with CDATA, entities and dc:date.
constexpr const char* kRss20 = R"(<?xml version="1.0"?>
<!-- a comment before the root -->
<rss version="2.0" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:atom="http://www.w3.org/2005/Atom">
  <channel>
    <title>Liftoff News</title>
    <link>http://liftoff.msfc.nasa.gov/</link>
    <atom:link href="http://liftoff.msfc.nasa.gov/rss" rel="self" type="application/rss+xml"/>
    <item>
      <title>Star City</title>
      <link>http://liftoff.msfc.nasa.gov/news/2003/news-starcity.asp</link>
      <description><![CDATA[How do Americans get ready to work with Russians aboard the <i>ISS</i>?]]></description>
      <pubDate>Tue, 03 Jun 2003 09:39:21 GMT</pubDate>
      <guid>http://liftoff.msfc.nasa.gov/2003/06/03.html#item573</guid>
    </item>
    <item>
      <title>Fish &amp; chips &#8212; &#x263A; &nbsp;</title>
      <dc:date>2003-05-30T11:06:42Z</dc:date>
      <description>no link, no guid</description>
    </item>
  </channel>
</rss>)";

TEST(FeedItems, Rss20) {
  auto feed = parse_feed(kRss20);
  ASSERT_TRUE(feed.ok()) << feed.status().to_string();
  EXPECT_EQ(feed->kind, "rss");
  EXPECT_EQ(feed->title, "Liftoff News");
  ASSERT_EQ(feed->items.size(), 2u);
  const FeedItem& a = feed->items[0];
  EXPECT_EQ(a.title, "Star City");
  EXPECT_EQ(a.id, "http://liftoff.msfc.nasa.gov/2003/06/03.html#item573");
  EXPECT_EQ(a.link, "http://liftoff.msfc.nasa.gov/news/2003/news-starcity.asp");
  EXPECT_EQ(a.published, "Tue, 03 Jun 2003 09:39:21 GMT");
  EXPECT_EQ(a.summary, "How do Americans get ready to work with Russians aboard the <i>ISS</i>?");
  const FeedItem& b = feed->items[1];
  EXPECT_EQ(b.title, "Fish & chips \u2014 \u263A &nbsp;") << "XML entities decoded, HTML ones kept";
  EXPECT_EQ(b.published, "2003-05-30T11:06:42Z");
  EXPECT_EQ(b.id, "Fish & chips \u2014 \u263A &nbsp;\n2003-05-30T11:06:42Z") << "no guid, no link: title and date";
}

TEST(FeedItems, AtomFromRfc4287) {
  auto feed = parse_feed(kRfc4287Example);
  ASSERT_TRUE(feed.ok()) << feed.status().to_string();
  EXPECT_EQ(feed->kind, "atom");
  EXPECT_EQ(feed->title, "Example Feed");
  ASSERT_EQ(feed->items.size(), 1u);
  EXPECT_EQ(feed->items[0].id, "urn:uuid:1225c695-cfb8-4ebb-aaaa-80da344efa6a");
  EXPECT_EQ(feed->items[0].title, "Atom-Powered Robots Run Amok");
  EXPECT_EQ(feed->items[0].link, "http://example.org/2003/12/13/atom03");
  EXPECT_EQ(feed->items[0].published, "2003-12-13T18:30:02Z");
  EXPECT_EQ(feed->items[0].summary, "Some text.");
}

TEST(FeedItems, AtomPicksTheAlternateLink) {
  auto feed = parse_feed(
      "<feed xmlns='http://www.w3.org/2005/Atom'><entry><id>e1</id>"
      "<link rel='self' href='http://x/self'/><link rel='alternate' href='http://x/page'/></entry></feed>");
  ASSERT_TRUE(feed.ok()) << feed.status().to_string();
  ASSERT_EQ(feed->items.size(), 1u);
  EXPECT_EQ(feed->items[0].link, "http://x/page");
}

TEST(FeedItems, Rss10Rdf) {
  auto feed = parse_feed(kRss10Example);
  ASSERT_TRUE(feed.ok()) << feed.status().to_string();
  EXPECT_EQ(feed->kind, "rdf");
  EXPECT_EQ(feed->title, "XML.com");
  ASSERT_EQ(feed->items.size(), 2u);
  EXPECT_EQ(feed->items[1].title, "Putting RDF to Work");
  EXPECT_EQ(feed->items[1].id, "http://xml.com/pub/2000/08/09/rdfdb/index.html") << "the link stands in for an id";
}

TEST(FeedItems, WhatIsNotAFeedIsAClearError) {
  auto err = [](std::string_view doc) { return parse_feed(doc).status().message(); };
  EXPECT_EQ(err(""), "not an RSS or Atom feed: the document is empty");
  EXPECT_EQ(err("  \n"), "not an RSS or Atom feed: the document is empty");
  EXPECT_EQ(err("<!DOCTYPE html><html><body>Hi</body></html>"),
            "not an RSS or Atom feed: the document starts with <html>");
  EXPECT_EQ(err(R"({"items": []})"), "not an RSS or Atom feed: the document is JSON, not XML");
  EXPECT_EQ(err("Service Unavailable"), "not an RSS or Atom feed: the document is text, not XML");
  EXPECT_EQ(err("<rss><channel><item><title>cut"), "the feed ends before its <rss> element closes (the document is cut off)");
  EXPECT_EQ(err(std::string("\x00\x01\x02<rss>", 8)), "not an RSS or Atom feed: the document is text, not XML");
  std::string deep = "<rss>";
  for (int i = 0; i < 300; ++i) deep += "<a>";
  EXPECT_EQ(err(deep), "the feed nests elements deeper than 256");
}

TEST(FeedItems, ToleratesAnUnclosedItem) {
  auto feed = parse_feed("<rss><channel><item><title>one</title></channel></rss>");
  ASSERT_TRUE(feed.ok()) << feed.status().to_string();
  ASSERT_EQ(feed->items.size(), 1u);
  EXPECT_EQ(feed->items[0].title, "one");
}

}  // namespace
}  // namespace keel::detail
