// The HTML-to-text renderer on small documents, one behaviour at a time.
#include "tools/web/html_text.hpp"

#include <gtest/gtest.h>

#include "tools/web/html_document.hpp"

namespace keel::detail {
namespace {

std::string render(const std::string& html, const std::string& base = "https://site.example/dir/page.html") {
  Result<HtmlDocument> doc = HtmlDocument::parse(html);
  EXPECT_TRUE(doc.ok()) << doc.status().to_string();
  if (!doc.ok()) return "";
  return html_to_readable_text(doc->root(), document_base_url(doc->root(), base)).text;
}

TEST(HtmlTextTest, CollapsesWhitespaceAndSeparatesParagraphs) {
  EXPECT_EQ(render("<p>  Hello,\n\t   <b>big</b>\n world  </p><p>Second&nbsp;&nbsp;one</p>"),
            "Hello, big world\n\nSecond one");
  EXPECT_EQ(render("<div>one<br>two<br><br><br>three</div>"), "one\ntwo\n\nthree");
  EXPECT_EQ(render("text directly in body <span>and a span</span>"), "text directly in body and a span");
  EXPECT_EQ(render(""), "");
}

TEST(HtmlTextTest, HeadingsBecomeMarkdownHeadings) {
  EXPECT_EQ(render("<h1>Top <small>level</small></h1><h3>Third</h3><h6>  </h6><p>body</p>"),
            "# Top level\n\n### Third\n\nbody");
}

TEST(HtmlTextTest, ListsNestAndNumberFromStart) {
  EXPECT_EQ(render("<ul><li>a</li><li>b<ol start='4'><li>four</li><li>five</li></ol></li><li>c</li></ul><p>after</p>"),
            "- a\n- b\n  4. four\n  5. five\n- c\n\nafter");
  EXPECT_EQ(render("<ul><li>x</li></ul><ul><li>y</li></ul>"), "- x\n\n- y");
  EXPECT_EQ(render("<ol><li><p>para one</p><p>para two</p></li></ol>"), "1. para one\n   para two");
}

TEST(HtmlTextTest, LinksAreAbsoluteMarkdownLinks) {
  EXPECT_EQ(render("<p>See <a href='other.html'>the other page</a>, <a href='/root'>root</a> and "
                   "<a href='https://x.example/a(b)'>parens</a>.</p>"),
            "See [the other page](https://site.example/dir/other.html), [root](https://site.example/root) and "
            "[parens](https://x.example/a%28b%29).");
  EXPECT_EQ(render("<a href='javascript:void(0)'>menu</a> <a href='#top'>top</a> <a>bare</a> "
                   "<a href='mailto:a@b.example'>mail</a>"),
            "menu top bare mail");
  EXPECT_EQ(render("<a href='/home'><img src='logo.png' alt='Home page'></a>"), "[Home page](https://site.example/home)");
  EXPECT_EQ(render("<a href='/icon' aria-label='Settings'><svg></svg></a><a href='/nothing'></a>"),
            "[Settings](https://site.example/icon)");
  EXPECT_EQ(render("<p>x<a href='/y'> spaced </a>z</p>"), "x [spaced](https://site.example/y) z");
  EXPECT_EQ(render("<a href='/y'>[1]</a>"), "[\\[1\\]](https://site.example/y)");
  EXPECT_EQ(render("<head><base href='https://cdn.example/v2/'></head><a href='doc'>doc</a>"),
            "[doc](https://cdn.example/v2/doc)");
}

TEST(HtmlTextTest, CodeAndPreformattedText) {
  EXPECT_EQ(render("<p>Call <code>run( )</code> or <kbd>Ctrl</kbd></p>"), "Call `run( )` or `Ctrl`");
  EXPECT_EQ(render("<p><code>a`b</code></p>"), "`` a`b ``");
  EXPECT_EQ(render("<pre>\n  indented\n\tkept &lt;x&gt;\n\n</pre>"), "```\n  indented\n\tkept <x>\n```");
  EXPECT_EQ(render("<pre><code class='hljs language-python'>print(1)</code></pre>"), "```python\nprint(1)\n```");
  EXPECT_EQ(render("<pre>a ``` b</pre>"), "````\na ``` b\n````");
  EXPECT_EQ(render("<ul><li>step<pre>make</pre></li></ul>"), "- step\n  ```\n  make\n  ```");
}

TEST(HtmlTextTest, TablesBecomePipeRows) {
  EXPECT_EQ(render("<table><caption>Prices</caption><tr><th>Item</th><th>Cost</th></tr>"
                   "<tr><td>Tea | hot</td><td>2</td></tr><tr><td colspan=2>Total<br>due</td></tr></table>"),
            "Prices\n\n| Item | Cost |\n| --- | --- |\n| Tea \\| hot | 2 |\n| Total due | |");
  // A table holding another table is layout: its cells are paragraphs (the inner one is data).
  EXPECT_EQ(render("<table><tr><td><p>left column</p></td><td><table><tr><td>inner</td></tr></table></td></tr></table>"),
            "left column\n\n| inner |\n| --- |");
  EXPECT_EQ(render("<table role='presentation'><tr><td>layout cell</td></tr></table>"), "layout cell");
}

TEST(HtmlTextTest, QuotesArePrefixed) {
  EXPECT_EQ(render("<blockquote><p>one</p><blockquote>two</blockquote></blockquote>"), "> one\n\n> > two");
}

TEST(HtmlTextTest, DropsHiddenAndChromeElements) {
  EXPECT_EQ(render("<p hidden>a</p><p aria-hidden='true'>b</p><p style='visibility: hidden'>c</p>"
                   "<p style='DISPLAY:NONE'>d</p><span class='sr-only'>e</span><p>kept</p>"),
            "kept");
  EXPECT_EQ(render("<div role='banner'>banner</div><div role='navigation'>nav</div><dialog>modal</dialog>"
                   "<div role='contentinfo'>foot</div><p>kept</p>"),
            "kept");
  EXPECT_EQ(render("<div class='ad'>x</div><div id='sidebar-ads'>y</div><div class='cookie-notice'>z</div>"
                   "<div class='header'>kept header class</div><div class='download-box'>kept download</div>"),
            "kept header class\n\nkept download");
  EXPECT_EQ(render("<header>site banner</header><article><header><h1>Story</h1></header><p>body</p>"
                   "<footer>story footer</footer></article><footer>site footer</footer>"),
            "# Story\n\nbody\n\nstory footer");
  EXPECT_EQ(render("<body class='ad-free'><article class='post ad-free'><p>article kept</p></article></body>"),
            "article kept");
  EXPECT_EQ(render("<p>a<script>var x = 1;</script><style>p{}</style><noscript>js</noscript>b</p>"), "ab");
  EXPECT_EQ(render("<form><label>Name</label><input value='v'></form><iframe src='x'></iframe><p>kept</p>"), "kept");
}

TEST(HtmlTextTest, UnknownElementsAreTransparent) {
  EXPECT_EQ(render("<my-card><h2>Card title</h2><p>card body</p></my-card>"), "## Card title\n\ncard body");
}

TEST(HtmlTextTest, TitleComesFromTheHead) {
  Result<HtmlDocument> doc = HtmlDocument::parse(
      "<html><head><title>  The\n title </title></head><body><svg><title>icon</title></svg><p>x</p></body></html>");
  ASSERT_TRUE(doc.ok());
  EXPECT_EQ(html_to_readable_text(doc->root(), "https://a.example/").title, "The title");
}

TEST(HtmlTextTest, NestingEstimate) {
  EXPECT_EQ(estimate_nesting_depth("<div><div><span>x</span></div></div>"), 3u);
  EXPECT_EQ(estimate_nesting_depth("<p>a<p>b<p>c<li>d<li>e<br><img src=x><hr>"), 0u);
  EXPECT_EQ(estimate_nesting_depth("<div/><div></div><!-- <div><div><div> --><script>if (a<b) {<div>}</script>"), 1u);
  EXPECT_EQ(estimate_nesting_depth("<div title='a>b'><section>x</section></div>"), 2u);
  EXPECT_EQ(estimate_nesting_depth("<table><tr><td><table></table></td></tr></table>"), 8u);
  std::string deep;
  for (int i = 0; i < 3000; ++i) deep += "<b>";
  EXPECT_EQ(estimate_nesting_depth(deep), 3000u);
  Result<HtmlDocument> refused = HtmlDocument::parse(deep);
  EXPECT_EQ(refused.status().code(), ErrorCode::kInvalidArgument);
}

}  // namespace
}  // namespace keel::detail
