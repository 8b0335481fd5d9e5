// RSS and Atom feeds: items with their ids, titles, links, dates and summaries from each dialect,
// CDATA and entities, namespaced elements, markup kept as written, and a clear error for anything
// that is not a feed (an HTML page, JSON, text, binary data, an empty or cut-off document).
// Two kinds of test data: the specifications' own examples (RSS 2.0, www.rssboard.org/rss-specification
// "Sample files"; Atom, RFC 4287 section 1.1; RSS 1.0, web.resource.org/rss/1.0/spec section 7), and
// documents from feedparser's test suite, cited where they begin below.
#include "core/text/feed_items.hpp"

#include <gtest/gtest.h>

namespace keel::detail {
namespace {

Feed must_parse(std::string_view xml) {
  Result<Feed> feed = parse_feed(xml);
  EXPECT_TRUE(feed.ok()) << feed.status().to_string() << "\n" << xml;
  return feed.ok() ? std::move(feed).value() : Feed{};
}

// The first item, or an empty one (with a failure) when there is none.
FeedItem first_item(std::string_view xml) {
  Feed feed = must_parse(xml);
  EXPECT_FALSE(feed.items.empty()) << xml;
  return feed.items.empty() ? FeedItem{} : feed.items.front();
}

std::string error(std::string_view xml) {
  Result<Feed> feed = parse_feed(xml);
  EXPECT_FALSE(feed.ok()) << xml;
  EXPECT_EQ(feed.status().code(), ErrorCode::kInvalidArgument);
  return feed.status().message();
}

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
  const Feed feed = must_parse(kRss20);
  EXPECT_EQ(feed.kind, "rss");
  EXPECT_EQ(feed.title, "Liftoff News");
  ASSERT_EQ(feed.items.size(), 2u);
  const FeedItem& a = feed.items[0];
  EXPECT_EQ(a.title, "Star City");
  EXPECT_EQ(a.id, "http://liftoff.msfc.nasa.gov/2003/06/03.html#item573");
  EXPECT_EQ(a.link, "http://liftoff.msfc.nasa.gov/news/2003/news-starcity.asp");
  EXPECT_EQ(a.published, "Tue, 03 Jun 2003 09:39:21 GMT");
  EXPECT_EQ(a.summary, "How do Americans get ready to work with Russians aboard the <i>ISS</i>?") << "CDATA as written";
  const FeedItem& b = feed.items[1];
  EXPECT_EQ(b.title, "Fish & chips \u2014 \u263A &nbsp;") << "XML entities decoded, HTML ones kept";
  EXPECT_EQ(b.published, "2003-05-30T11:06:42Z") << "dc:date";
  EXPECT_EQ(b.link, "");
  EXPECT_EQ(b.id, "Fish & chips \u2014 \u263A &nbsp;\n2003-05-30T11:06:42Z") << "no guid, no link: title and date";
}

TEST(FeedItems, AtomFromRfc4287) {
  const Feed feed = must_parse(kRfc4287Example);
  EXPECT_EQ(feed.kind, "atom");
  EXPECT_EQ(feed.title, "Example Feed");
  ASSERT_EQ(feed.items.size(), 1u);
  EXPECT_EQ(feed.items[0].id, "urn:uuid:1225c695-cfb8-4ebb-aaaa-80da344efa6a");
  EXPECT_EQ(feed.items[0].title, "Atom-Powered Robots Run Amok");
  EXPECT_EQ(feed.items[0].link, "http://example.org/2003/12/13/atom03");
  EXPECT_EQ(feed.items[0].published, "2003-12-13T18:30:02Z") << "updated, when there is no published";
  EXPECT_EQ(feed.items[0].summary, "Some text.");
}

TEST(FeedItems, AtomLinksAndIds) {
  const Feed feed = must_parse(
      "<a:feed xmlns:a='http://www.w3.org/2005/Atom'>"
      "<a:entry><a:id>e1</a:id><a:link rel='self' href='http://x/self'/><a:link rel='alternate' href='http://x/page'/>"
      "<a:published>2024-01-02T03:04:05Z</a:published><a:updated>2024-02-01T00:00:00Z</a:updated></a:entry>"
      "<a:entry><a:link href=\"http://x/two?a=1&amp;b=2\"/><a:title type='html'>A &amp;lt;b&amp;gt;</a:title></a:entry>"
      "<a:entry><a:title>only a title</a:title></a:entry>"
      "<a:entry/>"
      "</a:feed>");
  EXPECT_EQ(feed.kind, "atom");
  ASSERT_EQ(feed.items.size(), 4u);
  EXPECT_EQ(feed.items[0].link, "http://x/page");
  EXPECT_EQ(feed.items[0].published, "2024-01-02T03:04:05Z");
  EXPECT_EQ(feed.items[1].link, "http://x/two?a=1&b=2") << "attribute entities decoded";
  EXPECT_EQ(feed.items[1].id, "http://x/two?a=1&b=2") << "no id: the link";
  EXPECT_EQ(feed.items[1].title, "A &lt;b&gt;") << "type=html: entities decoded once";
  EXPECT_EQ(feed.items[2].id, "only a title\n");
  EXPECT_EQ(feed.items[3].id, "");
}

TEST(FeedItems, Rss10Rdf) {
  const Feed feed = must_parse(kRss10Example);
  EXPECT_EQ(feed.kind, "rdf");
  EXPECT_EQ(feed.title, "XML.com");
  ASSERT_EQ(feed.items.size(), 2u);
  EXPECT_EQ(feed.items[1].title, "Putting RDF to Work");
  EXPECT_EQ(feed.items[1].id, "http://xml.com/pub/2000/08/09/rdfdb/index.html") << "rdf:about";
  EXPECT_EQ(feed.items[0].summary, "Processing document inclusions with general XML tools can be problematic.");
}

TEST(FeedItems, ToleratesWhatFeedReadersTolerate) {
  // An unclosed item, a stray '<', a processing instruction and a comment inside, numeric references.
  const Feed feed = must_parse(
      "\xEF\xBB\xBF<?xml version='1.0'?><rss><channel><title>T<?pi x?>i<!-- c -->t&#108;&#x65;</title>"
      "<item><title>a < b</title><guid>g1</guid></channel></rss>trailing <junk>");
  EXPECT_EQ(feed.title, "Title");
  ASSERT_EQ(feed.items.size(), 1u);
  EXPECT_EQ(feed.items[0].title, "a < b");
  EXPECT_EQ(feed.items[0].id, "g1");
  EXPECT_EQ(first_item("<rss><item><title>&#0;&#xD800;&#1114112;&#xZZ;&amp</title></item></rss>").title,
            "&#0;&#xD800;&#1114112;&#xZZ;&amp")
      << "references to no character are kept as written";
  EXPECT_EQ(
      first_item("<rss><channel><item><title>x</title></item></channel><item><title>y</title></item></rss>").title, "x")
      << "document order across channel and root";
}

TEST(FeedItems, WhatIsNotAFeedIsAClearError) {
  EXPECT_EQ(error(""), "not an RSS or Atom feed: the document is empty");
  EXPECT_EQ(error("  \n"), "not an RSS or Atom feed: the document is empty");
  EXPECT_EQ(error("<!DOCTYPE html><html><body>Hi</body></html>"),
            "not an RSS or Atom feed: the document starts with <html> (a web page; a page names its feed in a <link "
            "rel=\"alternate\" type=\"application/rss+xml\"> element)");
  EXPECT_EQ(error("<?xml version='1.0'?><opml version='2.0'><body/></opml>"),
            "not an RSS or Atom feed: the document starts with <opml>, not <rss>, <feed> or <rdf:RDF>");
  EXPECT_EQ(error(R"({"items": []})"), "not an RSS or Atom feed: the document is JSON, not XML");
  EXPECT_EQ(error("Service Unavailable\nRetry later"),
            "not an RSS or Atom feed: the document is plain text, not XML: \"Service Unavailable\"");
  EXPECT_EQ(error(std::string("\x00\x01\x02<rss>", 8)),
            "not an RSS or Atom feed: the document is binary data, not text");
  EXPECT_EQ(error("\x89PNG\r\n\x1a\n"), "not an RSS or Atom feed: the document is binary data, not text");
  EXPECT_EQ(error("\xFF\xFE<\0r\0s\0s\0>\0"),
            "the feed is UTF-16; only UTF-8 feeds (and ASCII-compatible ones) are read");
  EXPECT_EQ(error("<rss><channel><item><title>cut"),
            "the feed is cut off: the document ends before its <rss> element closes (it ends inside <title>)");
  EXPECT_EQ(error("<rss><channel></channel>"),
            "the feed is cut off: the document ends before its <rss> element closes");
  EXPECT_EQ(error("<rss version='2.0"), "not an RSS or Atom feed: the document is cut off inside its first tag");
  EXPECT_EQ(error("<rss><item><title><![CDATA[x</title></item></rss>"),
            "the feed is cut off: the document ends before its <rss> element closes (it ends inside <title>)");
  EXPECT_EQ(error("<!-- only a comment -->"),
            "not an RSS or Atom feed: the document has no elements, only comments or declarations");
  EXPECT_EQ(error("<!-- never closed"),
            "not an RSS or Atom feed: the document ends inside its prolog (an unclosed comment, declaration or "
            "DOCTYPE)");
}

TEST(FeedItems, WorkIsBounded) {
  std::string deep = "<rss>";
  for (int i = 0; i < 300; ++i) deep += "<a>";
  EXPECT_EQ(error(deep), "the feed nests elements more than 256 deep; feeds are shallow documents");
  std::string many = "<rss><channel>";
  for (int i = 0; i < 10000; ++i) many += "<item><guid>" + std::to_string(i) + "</guid></item>";
  EXPECT_EQ(must_parse(many + "</channel></rss>").items.size(), 10000u);
  EXPECT_EQ(error(many + "<item/></channel></rss>"), "the feed has 10001 items; at most 10,000 are read");
  std::string wide = "<rss>";
  for (int i = 0; i < 500001; ++i) wide += "<a/>";
  EXPECT_EQ(error(wide + "</rss>"), "the feed has more than 500,000 elements; it is too large to read");
  // Every prefix of a feed is either read or refused, never a crash.
  const std::string doc = kRss20;
  for (size_t n = 0; n <= doc.size(); ++n) (void)parse_feed(std::string_view(doc).substr(0, n));
}

// Documents from feedparser's test suite: kurtmckee/feedparser, tests/wellformed, tests/illformed
// and tests/entities (https://github.com/kurtmckee/feedparser/tree/develop/tests, read at commit
// a22c5521cbb109871f1a2318948581901bd47e26). Each begins with a comment naming its file and, where
// it fits, the expectation feedparser states in it. The files' own leading "Description/Expect"
// comment is left out except where it is part of what is tested, tabs and trailing blanks are
// dropped, and two long files have lines elided (said above them).
// wellformed/rss/item_guid_conflict_link.xml: not bozo and entries[0]['link'] == 'http://link.example.com/'
constexpr const char* kItemGuidConflictLink = R"xml(<rss version="2.0">
<channel>
<item>
<link>http://link.example.com/</link>
<guid>http://guid.example.com/</guid>
</item>
</channel>
</rss>)xml";
// wellformed/rss/item_description_escaped_markup.xml
constexpr const char* kItemDescriptionEscapedMarkup = R"xml(<rss version="2.0">
<channel>
<item>
<description>&lt;p&gt;Example description&lt;/p&gt;</description>
</item>
</channel>
</rss>)xml";
// wellformed/rss/item_description_naked_markup.xml
constexpr const char* kItemDescriptionNakedMarkup = R"xml(<rss version="2.0">
<channel>
<item>
<description><p>Example description</p></description>
</item>
</channel>
</rss>)xml";
// wellformed/rss/item_description_not_a_doctype2.xml: not bozo and entries[0]['description'] == "<!DOCTYPE"
constexpr const char* kItemDescriptionNotADoctype2 = R"xml(<rss>
<item>
<description><![CDATA[ <!DOCTYPE ]]></description>
</item>
</rss>
)xml";
// wellformed/rss/item_description_code_br.xml: not bozo and entries[0]['description'] == '<code>&lt;br /></code>'
constexpr const char* kItemDescriptionCodeBr = R"xml(<rss version="2.0">
<channel>
<item>
<link>http://www.example.com/</link>
<description><![CDATA[<code>&lt;br /></code>]]></description>
</item>
</channel>
</rss>
)xml";
// entities/160.xml: feed['title'] == 'testing \xa0 entity'
constexpr const char* kEntity160 = R"xml(<rss>
<channel>
<title>testing &#160; entity</title>
</channel>
</rss)xml";
// wellformed/atom10/entry_title_escaped_markup.xml: not bozo and entries[0]['title'] == 'Example <b>Atom</b>'
constexpr const char* kEntryTitleEscapedMarkup = R"xml(<feed xmlns="http://www.w3.org/2005/Atom">
<entry>
  <title type="html">Example &lt;b&gt;Atom&lt;/b&gt;</title>
</entry>
</feed>)xml";
// wellformed/atom10/entry_title_inline_markup.xml: not bozo and entries[0]['title'] == 'Example <b>Atom</b>'
constexpr const char* kEntryTitleInlineMarkup = R"xml(<feed xmlns="http://www.w3.org/2005/Atom">
<entry>
  <title type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml">Example <b>Atom</b></div></title>
</entry>
</feed>
)xml";
// wellformed/atom10/entry_summary_inline_markup.xml: not bozo and entries[0]['summary'] == 'Example <b>Atom</b>'
constexpr const char* kEntrySummaryInlineMarkup = R"xml(<feed xmlns="http://www.w3.org/2005/Atom">
<entry>
  <summary type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml">Example <b>Atom</b></div></summary>
</entry>
</feed>
)xml";
// wellformed/atom10/entry_content_and_summary.xml: not bozo and entries[0]['summary'] == 'Summary'
constexpr const char* kEntryContentAndSummary = R"xml(<feed xmlns="http://www.w3.org/2005/Atom">
<entry>
  <content>Example Atom</content>
  <summary>Summary</summary>
</entry>
</feed>
)xml";
// wellformed/atom10/entry_link_alternate_map_link_3.xml
constexpr const char* kEntryLinkAlternateMapLink3 = R"xml(<feed xmlns="http://www.w3.org/2005/Atom">
<entry>
    <link rel="alternate" href="http://www.example.com/alternate"></link>
    <link rel="related" type="text/html" href="http://www.example.com/related"></link>
    <link rel="via" type="text/html" href="http://www.example.com/via"></link>
</entry>
</feed>)xml";
// wellformed/atom10/entry_link_no_href_link_priority.xml
constexpr const char* kEntryLinkNoHrefLinkPriority = R"xml(<feed xmlns="http://www.w3.org/2005/Atom">
<entry>
  <link rel="alternate" type="text/html">http://www.example.com/alternate</link>
  <link rel="enclosure" type="text/html">http://www.example.com/enclosure</link>
</entry>
<entry>
  <link rel="enclosure" type="text/html">http://www.example.com/enclosure</link>
  <link rel="alternate" type="text/html">http://www.example.com/alternate</link>
</entry>
</feed>
)xml";
// wellformed/amp/amp01.xml: not bozo and entries[0]['title_detail']['value'] == '&#38;'
constexpr const char* kAmp01 = R"xml(<feed version="0.3" xmlns="http://purl.org/atom/ns#">
<entry>
    <title type="text/html" mode="escaped">&#38;#38;</title>
</entry>
</feed>)xml";
// wellformed/amp/amp49.xml: not bozo and entries[0]['title_detail']['value'] == '&#38;'
constexpr const char* kAmp49 = R"xml(<feed version="0.3" xmlns="http://purl.org/atom/ns#">
<entry>
    <title type="text/html" mode="escaped"><![CDATA[&#38;]]></title>
</entry>
</feed>)xml";
// wellformed/rdf/rdf_item_rdf_about.xml: not bozo and entries[0]['id'] == 'http://example.org/1'
constexpr const char* kRdfItemRdfAbout =
    R"xml(<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/">
<channel rdf:about="http://example.com/index.rdf">
  <items>
    <rdf:Seq>
      <rdf:li resource="http://example.org/1"/>
    </rdf:Seq>
  </items>
</channel>
<item rdf:about="http://example.org/1">
</item>
</rdf:RDF>)xml";
// wellformed/rdf/rss090_item_title.xml: not bozo and entries[0]['title'] == 'Item title'
constexpr const char* kRss090ItemTitle =
    R"xml(<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://my.netscape.com/rdf/simple/0.9/">
<channel>
<title>Example title</title>
</channel>
<item>
<title>Item title</title>
</item>
</rdf:RDF>)xml";
// wellformed/rdf/doctype_contains_entity_decl.xml: not bozo
constexpr const char* kDoctypeContainsEntityDecl = R"xml(<?xml version="1.0"?>
<!--
Description: not stripping doctype properly if doctype contains entity declaration
Expect:      not bozo
-->
<!DOCTYPE rdf:RDF [
<!ENTITY % HTMLlat1 PUBLIC
 "-//W3C//ENTITIES Latin 1 for XHTML//EN"
 "http://www.w3.org/TR/xhtml1/DTD/xhtml-lat1.ent">
%HTMLlat1;
]>

<rdf:RDF
  xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"
  xmlns="http://purl.org/rss/1.0/"
>
</rdf:RDF>)xml";
// wellformed/namespace/rss1.0withModulesNoDefNS.xml (its Dublin Core, admin and rdf:Seq lines elided):
// Expect: not bozo and entries[0]['title'] == 'Test Item - RSS 1.0 no Default NS'
constexpr const char* kRss10WithModulesNoDefNs = R"xml(<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"
     xmlns:rss="http://purl.org/rss/1.0/"
     xmlns:admin="http://webns.net/mvcb/"
     xmlns:ag="http://purl.org/rss/modules/aggregation/"
     xmlns:dc="http://purl.org/dc/elements/1.1/"
     xmlns:dcterms="http://purl.org/dc/terms/"
     xmlns:l="http://purl.org/rss/1.0/modules/link/"
     xmlns:taxo="http://purl.org/rss/1.0/modules/taxonomy/">
  <rss:channel rdf:about="http://www.pocketsoap.com/rssTests/">
    <rss:title>RSS Tests - RSS 1.0 no Default NS</rss:title>
    <rss:link>http://www.pocketsoap.com/rssTests/rss1.0withModulesNoDefNS.xml</rss:link>
    <rss:description>A set of test RSS files for examining the state of extension support in RSS aggregators</rss:description>
  </rss:channel>
  <rss:item rdf:about="http://www.pocketsoap.com/weblog/rssTests/rss1.0withModulesNoDefNS.xml#1">
    <rss:title>Test Item - RSS 1.0 no Default NS</rss:title>
    <rss:link>http://www.pocketsoap.com/weblog/rssTests/rss1.0withModulesNoDefNS.xml#1</rss:link>
    <l:link l:rel="http://purl.org/rss/1.0/modules/proposed/link/#permalink"  l:type="text/html" rdf:resource="http://www.pocketsoap.com/weblog/rssTests/rss1.0withModulesNoDefNS.xml#1" />
    <rss:description>This is a fairly standard RSS 1.0 feed with a few modules, with no localname clashes, any aggregator that supports RSS 1.0 should handle this fine. This doesn't use
    any default namespace declarations, all namespaces are mapped to prefixes. As far the namespace spec is concerned this is identical to the rss1.0withModules.xml version (RSS 1.0 no Default NS)</rss:description>
  </rss:item>
</rdf:RDF>)xml";
// wellformed/namespace/rss2.0withAtomNS.xml (its comments, wfw, source and category lines elided):
// Expect: not bozo and version == 'rss20'
constexpr const char* kRss20WithAtomNs =
    R"xml(<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom" xmlns:content="http://purl.org/rss/1.0/modules/content/" xmlns:wfw="http://wellformedweb.org/CommentAPI/" xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:cc="http://web.resource.org/cc/">
  <channel>
    <title>Delicious/wearehugh</title>
    <link>http://delicious.com/wearehugh</link>
    <description>bookmarks posted by wearehugh</description>
    <atom:link rel="self" type="application/rss+xml" href="http://feeds.delicious.com/v2/rss/wearehugh"/>
    <item>
      <title>rsync and vfat | Geek at Play</title>
      <pubDate>Fri, 25 Dec 2009 03:30:22 +0000</pubDate>
      <guid isPermaLink="false">http://delicious.com/url/174603f9d836a1aafac49e28ace1c19e#wearehugh</guid>
      <link>http://www.kylev.com/2005/03/29/rsync-and-vfat/</link>
      <dc:creator><![CDATA[wearehugh]]></dc:creator>
    </item>
  </channel>
</rss>)xml";
// illformed/always_strip_doctype.xml: not bozo and feed['title'] == 'found'
constexpr const char* kAlwaysStripDoctype =
    R"xml(<?xml version="1.0" encoding="utf-8"?><!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN" "http://site.invalid/">
<!--
Description: unstripped invalid doctype
Expect:      not bozo and feed['title'] == 'found'
-->
<rss>
    <channel>
        <title>found</title>
    </channel>
</rss>
)xml";
// illformed/rss_item_link_corrupted_ampersands.xml: entries[0].link == 'http://link/get?a=1&b=2'
constexpr const char* kItemLinkCorruptedAmpersands = R"xml(<!--
    Description: ensure a=1&b=2, not a=1&b;=2
    Expect: entries[0].link == 'http://link/get?a=1&b=2'
-->

<rss version="2.0">
  <channel>
    <item>
      <link>http://link/get?a=1&amp;b=2</link>
    </item>
  </channel>
</rss
)xml";
// illformed/aaa_illformed.xml: bozo
constexpr const char* kAaaIllformed = R"xml(<rss version="2.0">
</rss)xml";
// illformed/rss_empty_document.xml: bozo
constexpr const char* kRssEmptyDocument = R"xml(<!--
Description: Empty document should be a bozo
Expect:      bozo
-->
)xml";
// illformed/rss_incomplete_cdata.xml: bozo
constexpr const char* kRssIncompleteCdata = R"xml(<!--
Description: Incomplete CDATA block
Expect:      bozo
-->
<?xml version="1.0"?>
<rss version="2.0">
<channel>
<title>can feedparser read this xml</title>
<link>http://adcdefgh.com</link>
<description>feedparser goes into infinite loop while parsing this file</description>
<language>en-us</language>
<copyright>2005-10-28</copyright>
<item><title><![CD
)xml";

TEST(FeedItems, FeedparserRss) {
  FeedItem item = first_item(kItemGuidConflictLink);
  EXPECT_EQ(item.link, "http://link.example.com/");
  EXPECT_EQ(item.id, "http://guid.example.com/");
  EXPECT_EQ(first_item(kItemDescriptionEscapedMarkup).summary, "<p>Example description</p>");
  EXPECT_EQ(first_item(kItemDescriptionNakedMarkup).summary, "<p>Example description</p>");
  EXPECT_EQ(first_item(kItemDescriptionNotADoctype2).summary, "<!DOCTYPE");
  EXPECT_EQ(first_item(kItemDescriptionCodeBr).summary, "<code>&lt;br /></code>");
  EXPECT_EQ(must_parse(kEntity160).title, "testing \u00a0 entity") << "and a last </rss without its '>'";
}

TEST(FeedItems, FeedparserAtom) {
  EXPECT_EQ(first_item(kEntryTitleEscapedMarkup).title, "Example <b>Atom</b>");
  EXPECT_EQ(first_item(kEntryTitleInlineMarkup).title, "Example <b>Atom</b>");
  EXPECT_EQ(first_item(kEntrySummaryInlineMarkup).summary, "Example <b>Atom</b>");
  EXPECT_EQ(first_item(kEntryContentAndSummary).summary, "Summary");
  EXPECT_EQ(first_item(kEntryLinkAlternateMapLink3).link, "http://www.example.com/alternate");
  const Feed priority = must_parse(kEntryLinkNoHrefLinkPriority);
  ASSERT_EQ(priority.items.size(), 2u);
  EXPECT_EQ(priority.items[0].link, "http://www.example.com/alternate");
  EXPECT_EQ(priority.items[1].link, "http://www.example.com/alternate");
  EXPECT_EQ(first_item(kAmp01).title, "&#38;") << "Atom 0.3, decoded once";
  EXPECT_EQ(first_item(kAmp49).title, "&#38;") << "CDATA is not decoded";
}

TEST(FeedItems, FeedparserRdf) {
  const Feed about = must_parse(kRdfItemRdfAbout);
  EXPECT_EQ(about.kind, "rdf");
  ASSERT_EQ(about.items.size(), 1u);
  EXPECT_EQ(about.items[0].id, "http://example.org/1");
  const Feed rss090 = must_parse(kRss090ItemTitle);
  EXPECT_EQ(rss090.kind, "rdf");
  EXPECT_EQ(rss090.title, "Example title");
  ASSERT_EQ(rss090.items.size(), 1u);
  EXPECT_EQ(rss090.items[0].title, "Item title");
  EXPECT_EQ(must_parse(kDoctypeContainsEntityDecl).kind, "rdf") << "a DOCTYPE with '>' in its internal subset";
}

TEST(FeedItems, FeedparserNamespaces) {
  const Feed rdf = must_parse(kRss10WithModulesNoDefNs);
  EXPECT_EQ(rdf.title, "RSS Tests - RSS 1.0 no Default NS");
  ASSERT_EQ(rdf.items.size(), 1u);
  EXPECT_EQ(rdf.items[0].title, "Test Item - RSS 1.0 no Default NS");
  EXPECT_EQ(rdf.items[0].link, "http://www.pocketsoap.com/weblog/rssTests/rss1.0withModulesNoDefNS.xml#1");
  EXPECT_EQ(rdf.items[0].id, "http://www.pocketsoap.com/weblog/rssTests/rss1.0withModulesNoDefNS.xml#1");
  EXPECT_TRUE(rdf.items[0].summary.starts_with("This is a fairly standard RSS 1.0 feed")) << rdf.items[0].summary;
  const Feed rss = must_parse(kRss20WithAtomNs);
  EXPECT_EQ(rss.kind, "rss");
  EXPECT_EQ(rss.title, "Delicious/wearehugh");
  ASSERT_EQ(rss.items.size(), 1u);
  EXPECT_EQ(rss.items[0].title, "rsync and vfat | Geek at Play");
  EXPECT_EQ(rss.items[0].id, "http://delicious.com/url/174603f9d836a1aafac49e28ace1c19e#wearehugh");
  EXPECT_EQ(rss.items[0].link, "http://www.kylev.com/2005/03/29/rsync-and-vfat/");
  EXPECT_EQ(rss.items[0].published, "Fri, 25 Dec 2009 03:30:22 +0000");
}

TEST(FeedItems, FeedparserIllFormed) {
  EXPECT_EQ(must_parse(kAlwaysStripDoctype).title, "found");
  EXPECT_EQ(first_item(kItemLinkCorruptedAmpersands).link, "http://link/get?a=1&b=2");
  // feedparser flags it (bozo: the last end tag lacks its '>') and still returns a feed, as this reader does.
  EXPECT_EQ(must_parse(kAaaIllformed).items.size(), 0u);
  EXPECT_EQ(error(kRssEmptyDocument),
            "not an RSS or Atom feed: the document has no elements, only comments or declarations");
  EXPECT_EQ(error(kRssIncompleteCdata),
            "the feed is cut off: the document ends before its <rss> element closes (it ends inside <title>)");
}

}  // namespace
}  // namespace keel::detail
