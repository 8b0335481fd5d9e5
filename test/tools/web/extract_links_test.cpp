#include <gtest/gtest.h>

#include "tools/web/web_test_support.hpp"

namespace keel::testing {
namespace {

class ExtractLinksTest : public WebToolsTest {
 protected:
  void SetUp() override {
    WebToolsTest::SetUp();
    server_.route("/links.html", html_page(html_fixture("links_page.html")));
  }

  // [url, text] pairs of a result.
  static std::vector<std::pair<std::string, std::string>> pairs(const nlohmann::json& out) {
    std::vector<std::pair<std::string, std::string>> v;
    for (const auto& link : out["links"]) v.emplace_back(link["url"], link["text"]);
    return v;
  }
};

TEST_F(ExtractLinksTest, ResolvesAgainstBaseDeduplicatesAndKeepsDocumentOrder) {
  const nlohmann::json out = run_json("extract_links", {{"url", server_.url("/links.html")}});
  const std::string h = server_.url("");
  EXPECT_EQ(out["url"], server_.url("/links.html"));
  EXPECT_EQ(out["base"], h + "/guide/v2/");
  const std::vector<std::pair<std::string, std::string>> expected = {
      {h + "/index.html", "Home"},
      {h + "/guide/v2/intro.html", "Introduction"},
      {h + "/guide/v2/setup/linux.html", "Setting up on Linux"},
      {h + "/guide/v2/setup/mac.html", "Setting up on macOS"},
      {h + "/guide/v1/", "Older version"},
      {h + "/about", "About us"},
      {h + "/guide/v2/?page=2", "Next page"},
      {"https://www.example.org/external?a=1&b=2", "External reference"},
      {"http://cdn.example.net/files/guide.pdf", "PDF version"},
      {h + "/guide/v2/glossary.html", "Glossary"},
      {h + "/guide/v2/faq.html", "Frequently asked questions"},
      {h + "/guide/v2/changes.html", "Change log"},
      {h + "/guide/v2/regions/north.html", "North region"},
  };
  EXPECT_EQ(pairs(out), expected);
  EXPECT_EQ(out["count"], expected.size());
  EXPECT_EQ(out["total"], expected.size());
  EXPECT_FALSE(out.contains("truncated"));
  const std::string dump = out.dump();
  for (const char* skipped : {"mailto:", "javascript:", "tel:", "#toc", "#part-2", "from-script", "No href"}) {
    EXPECT_EQ(dump.find(skipped), std::string::npos) << skipped;
  }
}

TEST_F(ExtractLinksTest, SameHostOnlyAndLimit) {
  nlohmann::json out = run_json("extract_links", {{"url", server_.url("/links.html")}, {"same_host_only", true}});
  EXPECT_EQ(out["count"], 11);
  for (const auto& link : out["links"]) {
    EXPECT_TRUE(link["url"].get<std::string>().starts_with(server_.url(""))) << link.dump();
  }
  out = run_json("extract_links", {{"url", server_.url("/links.html")}, {"limit", 3}});
  EXPECT_EQ(out["count"], 3);
  EXPECT_EQ(out["total"], 13);
  EXPECT_EQ(out["truncated"], true);
  EXPECT_EQ(out["links"][2]["text"], "Setting up on Linux");
  EXPECT_EQ(run("extract_links", {{"url", server_.url("/links.html")}, {"limit", 0}}).status().code(),
            ErrorCode::kInvalidArgument);
}

TEST_F(ExtractLinksTest, WithoutBaseLinksResolveAgainstTheFinalUrl) {
  server_.route("/go", redirect_to("/shop/catalog/page1.html"));
  server_.route("/shop/catalog/page1.html",
                html_page("<a href='page2.html'>Next</a> <a href='../cart'>Cart</a> <a href=''>This page</a>"));
  const nlohmann::json out = run_json("extract_links", {{"url", server_.url("/go")}});
  EXPECT_EQ(out["url"], server_.url("/shop/catalog/page1.html"));
  EXPECT_FALSE(out.contains("base"));
  const std::vector<std::pair<std::string, std::string>> expected = {
      {server_.url("/shop/catalog/page2.html"), "Next"},
      {server_.url("/shop/cart"), "Cart"},
      {server_.url("/shop/catalog/page1.html"), "This page"},
  };
  EXPECT_EQ(pairs(out), expected);
}

TEST_F(ExtractLinksTest, NeedsAnHtmlPage) {
  server_.route("/plain", text_page("text/plain", "http://example.com/ is a URL in text"));
  Result<std::string> r = run("extract_links", {{"url", server_.url("/plain")}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("needs an HTML page"), std::string::npos) << r.status().message();
}

}  // namespace
}  // namespace keel::testing
