#include <gtest/gtest.h>

#include "tools/web/web_test_support.hpp"

namespace keel::testing {
namespace {

class PageMetadataTest : public WebToolsTest {};

TEST_F(PageMetadataTest, BlogPostMetadataAndJsonLd) {
  server_.route("/2024/05/sourdough-hydration/", html_page(html_fixture("blog_post.html")));
  const nlohmann::json out = run_json("page_metadata", {{"url", server_.url("/2024/05/sourdough-hydration/")}});
  EXPECT_EQ(out["url"], server_.url("/2024/05/sourdough-hydration/"));
  EXPECT_EQ(out["title"], "Notes on sourdough hydration \xE2\x80\x93 Field Notes");
  EXPECT_EQ(out["description"],
            "What changed when I dropped my dough hydration from 80% to 72%, with crumb photos and a timetable.");
  EXPECT_EQ(out["author"], "Jonah Pereira");
  EXPECT_EQ(out["lang"], "en-GB");
  EXPECT_EQ(out["canonical"], server_.url("/2024/05/sourdough-hydration/"));

  EXPECT_EQ(out["og"]["type"], "article");
  EXPECT_EQ(out["og"]["title"], "Notes on sourdough hydration");
  EXPECT_EQ(out["og"]["site_name"], "Field Notes");
  EXPECT_EQ(out["og"]["image"], nlohmann::json::array({"https://fieldnotes.example.com/img/crumb-72.jpg",
                                                       "https://fieldnotes.example.com/img/crumb-80.jpg"}));
  EXPECT_EQ(out["twitter"]["card"], "summary_large_image");
  EXPECT_EQ(out["twitter"]["site"], "@fieldnotes");
  EXPECT_EQ(out["article"]["tag"], nlohmann::json::array({"baking", "sourdough"}));
  EXPECT_EQ(out["article"]["published_time"], "2024-05-02T08:30:00+01:00");

  ASSERT_EQ(out["json_ld"].size(), 2u) << out.dump();
  EXPECT_EQ(out["json_ld"][0]["@type"], "BlogPosting");
  EXPECT_EQ(out["json_ld"][0]["author"]["name"], "Jonah Pereira");
  EXPECT_EQ(out["json_ld"][0]["wordCount"], 1240);
  EXPECT_EQ(out["json_ld"][1]["@type"], "BreadcrumbList");  // unwrapped from its HTML comment
  EXPECT_EQ(out["json_ld"][1]["itemListElement"][0]["name"], "Baking");
  ASSERT_EQ(out["json_ld_errors"].size(), 1u);
  EXPECT_EQ(out["json_ld_errors"][0]["block"], 3);
  EXPECT_NE(out["json_ld_errors"][0]["error"].get<std::string>().find("invalid JSON"), std::string::npos);
  EXPECT_EQ(out.dump().find("Decorative wheat"), std::string::npos);  // an <svg> title is not the page title
}

TEST_F(PageMetadataTest, NewsArticleAndSparsePages) {
  server_.route("/news", html_page(html_fixture("news_article.html")));
  nlohmann::json out = run_json("page_metadata", {{"url", server_.url("/news")}});
  EXPECT_EQ(out["title"], "Harbour town opens tidal energy pilot | The Coastal Ledger");
  EXPECT_EQ(out["description"], "Westmere switches on its first tidal turbine in an eighteen-month trial.");
  EXPECT_EQ(out["lang"], "en");
  EXPECT_FALSE(out.contains("og"));
  EXPECT_FALSE(out.contains("json_ld"));

  server_.route("/bare", html_page("<p>no head at all</p>"));
  out = run_json("page_metadata", {{"url", server_.url("/bare")}});
  EXPECT_EQ(out, nlohmann::json({{"url", server_.url("/bare")}}));
}

TEST_F(PageMetadataTest, JsonLdBeyondTheBudgetIsReportedNotReturned) {
  options_.max_output_bytes = 200;
  std::string big = R"({"@type":"Thing","description":")" + std::string(500, 'a') + R"("})";
  server_.route("/big", html_page("<script type='application/ld+json'>{\"@type\":\"Small\"}</script>"
                                  "<script type='application/ld+json'>" + big + "</script>"
                                  "<script type='application/ld+json'>" + std::string(1000, '[') + "</script>"));
  const nlohmann::json out = run_json("page_metadata", {{"url", server_.url("/big")}});
  ASSERT_EQ(out["json_ld"].size(), 1u);
  EXPECT_EQ(out["json_ld"][0]["@type"], "Small");
  ASSERT_EQ(out["json_ld_errors"].size(), 2u);
  EXPECT_NE(out["json_ld_errors"][0]["error"].get<std::string>().find("output budget"), std::string::npos);
  EXPECT_NE(out["json_ld_errors"][1]["error"].get<std::string>().find("nested"), std::string::npos);
}

}  // namespace
}  // namespace keel::testing
