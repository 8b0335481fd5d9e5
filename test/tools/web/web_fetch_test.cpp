// web_fetch on realistic pages saved in test/fixtures/html, served by the test server.
#include <gtest/gtest.h>

#include "keel/tool_executor.hpp"
#include "tools/web/web_test_support.hpp"

namespace keel::testing {
namespace {

class WebFetchTest : public WebToolsTest {
 protected:
  std::string fetch(const std::string& path, nlohmann::json extra = nlohmann::json::object()) {
    extra["url"] = server_.url(path);
    Result<std::string> r = run("web_fetch", extra);
    EXPECT_TRUE(r.ok()) << r.status().to_string();
    return r.ok() ? r.value() : std::string();
  }
};

void expect_contains(const std::string& text, const std::vector<std::string>& parts) {
  for (const std::string& p : parts) EXPECT_NE(text.find(p), std::string::npos) << "missing: " << p << "\n---\n" << text;
}

void expect_absent(const std::string& text, const std::vector<std::string>& parts) {
  for (const std::string& p : parts) EXPECT_EQ(text.find(p), std::string::npos) << "kept: " << p << "\n---\n" << text;
}

TEST_F(WebFetchTest, NewsArticleKeepsTheStoryAndDropsThePageChrome) {
  server_.route("/news/tidal.html", html_page(html_fixture("news_article.html")));
  const std::string text = fetch("/news/tidal.html");
  EXPECT_TRUE(text.starts_with("Title: Harbour town opens tidal energy pilot | The Coastal Ledger\nURL: " +
                               server_.url("/news/tidal.html") + "\n\n"))
      << text;
  expect_contains(text, {
                            "\nEnergy\n\n# Harbour town opens tidal energy pilot\n\nBy Mira Okafor \xC2\xB7 14 March 2024\n",
                            "The first turbine was lowered from a barge at dawn.",
                            "The small harbour town of Westmere switched on its first tidal turbine on Thursday, becoming "
                            "one of a handful of communities to test the technology at this scale.",
                            "the two-blade rotor will supply roughly a fifth of the town\xE2\x80\x99s electricity",
                            "[An earlier survey](" + server_.url("/news/2023/tidal-survey") + ") found currents",
                            "## What residents think",
                            "> \xE2\x80\x9CWe have watched the tide every day of our lives.",
                            "meeting:\n\n- noise from the turbine housing during spring tides,\n- the exclusion zone "
                            "around the mooring cables, and\n- who pays if the trial ends early.\n\nThe pilot runs",
                            "Filed under [energy](" + server_.url("/tags/energy") + ") and [Westmere](",
                        });
  expect_absent(text, {"Skip to content", "cookies", "Accept all", "Business", "Subscribe today", "Search the Ledger",
                       "Advertisement", "SuperSnacks", "dataLayer", "track(", "font-family", "Hidden tracking pixel",
                       "\xE2\x98\x85", "Share on Social", "Email this story", "Trending now", "Ferry timetable",
                       "morning briefing", "All rights reserved", "Privacy policy", "enable JavaScript", "share icon",
                       "Template comment", "home]", "<", "  "});
}

TEST_F(WebFetchTest, DocumentationPageKeepsCodeTablesAndLists) {
  server_.route("/docs/config.html", html_page(html_fixture("docs_page.html")));
  const std::string text = fetch("/docs/config.html");
  expect_contains(text, {
                            "Title: Configuration reference \xE2\x80\x94 quarry 2.4 documentation\n",
                            "\n# Configuration reference\n",
                            "quarry reads its settings from `quarry.toml` in the project root.",
                            "## Options\n\n"
                            "| Key | Type | Default | Meaning |\n"
                            "| --- | --- | --- | --- |\n"
                            "| `workers` | integer | 4 | Parallel jobs; `0` means one per core. |\n"
                            "| `cache_dir` | path | `.quarry/cache` | Where build outputs are kept. |\n"
                            "| `log_level` | string | `\"info\"` | One of `debug` \\| `info` \\| `warn`. |\n",
                            "```toml\n[build]\nworkers = 8\ncache_dir = \"/var/cache/quarry\"\n\n[log]\n"
                            "log_level = \"debug\"\n```",
                            "```cpp\nauto cfg = quarry::load(\"quarry.toml\");\nif (cfg.workers < 1 && "
                            "!cfg.auto_workers) {\n    throw std::runtime_error(\"bad workers\");\n}\n```",
                            "### Precedence\n\n1. Command-line flags\n2. Environment variables, such as "
                            "`QUARRY_WORKERS`\n   - empty variables are ignored\n   - names are case-sensitive\n"
                            "3. The configuration file",
                            "Note\n\nRelative paths are resolved from the directory holding `quarry.toml`.",
                            "See [the install guide](" + server_.url("/docs/install.html#requirements") + ")",
                        });
  expect_absent(text, {"Contents", "Overview", "Installing quarry", "Docs home", "\xC2\xB6", "DOCUMENTATION_OPTIONS",
                       "Copyright", "searchtools"});
}

TEST_F(WebFetchTest, BlogPostTableWithoutHeadSectionUsesItsFirstRow) {
  server_.route("/blog", html_page(html_fixture("blog_post.html")));
  const std::string text = fetch("/blog");
  expect_contains(text, {"# Notes on sourdough hydration\n\nPosted on 2 May 2024 by Jonah Pereira",
                         "| Hydration | Oven spring | Crumb |\n| --- | --- | --- |\n| 80% | low | very open |\n"
                         "| 72% | high | even |",
                         "More in [my starter notes](" + server_.url("/2024/04/starter-notes/") + ")."});
  expect_absent(text, {"Archive", "Decorative wheat", "jar of flour", "structured data", "BlogPosting"});
}

TEST_F(WebFetchTest, Windows1252PagesAreDecoded) {
  const std::string bytes = html_fixture("windows1252.html");
  server_.route("/menu-meta", html_page(bytes, "text/html"));                     // declared by <meta> only
  server_.route("/menu-header", html_page(bytes, "text/html; charset=ISO-8859-1"));  // by the header
  for (const char* path : {"/menu-meta", "/menu-header"}) {
    const std::string text = fetch(path);
    expect_contains(text, {"Title: Caf\xC3\xA9 menu \xE2\x80\x93 Le Petit Coin\n",
                           "# Caf\xC3\xA9 & cr\xC3\xAAperie",
                           "\xE2\x80\x9C" "Fresh every morning\xE2\x80\x9D \xE2\x80\x93 cr\xC3\xA8me br\xC3\xBBl\xC3\xA9" "e for "
                           "\xE2\x82\xAC" "6.50",
                           "Open Monday\xE2\x80\xA6Saturday, na\xC3\xAFve prices, no surcharge\xE2\x84\xA2.",
                           "\xC2\xA9 2024 M\xC3\xBCller & S\xC3\xB8rensen"});
  }
  // Declared as UTF-8 although it is not: the text stays valid UTF-8, bad bytes become U+FFFD.
  server_.route("/menu-wrong", html_page(bytes, "text/html; charset=utf-8"));
  const std::string wrong = fetch("/menu-wrong");
  expect_contains(wrong, {"Caf\xEF\xBF\xBD menu"});
}

TEST_F(WebFetchTest, NonHtmlTextIsReturnedAndBinaryIsRefused) {
  server_.route("/notes.txt", text_page("text/plain; charset=utf-8", "line one\n  indented line two\n"));
  server_.route("/data.json", text_page("application/json", R"({"ok":true})"));
  server_.route("/logo.png", text_page("image/png", std::string("\x89PNG\r\n\x1a\n\0\0", 10)));
  server_.route("/blob", text_page("", std::string("MZ\0\0\x90\0", 6)));
  server_.route("/untyped-html", text_page("", "<!DOCTYPE html><title>T</title><h2>Sniffed</h2>"));

  EXPECT_EQ(fetch("/notes.txt"), "URL: " + server_.url("/notes.txt") +
                                     "\nContent-Type: text/plain\n\nline one\n  indented line two\n");
  expect_contains(fetch("/data.json"), {"Content-Type: application/json\n\n{\"ok\":true}"});
  expect_contains(fetch("/untyped-html"), {"Title: T\n", "## Sniffed"});
  for (const char* path : {"/logo.png", "/blob"}) {
    Result<std::string> r = run("web_fetch", {{"url", server_.url(path)}});
    ASSERT_FALSE(r.ok()) << path;
    EXPECT_EQ(r.status().code(), ErrorCode::kInvalidArgument);
    EXPECT_NE(r.status().message().find("not HTML or text"), std::string::npos) << r.status().message();
  }
  Result<std::string> png = run("web_fetch", {{"url", server_.url("/logo.png")}});
  EXPECT_NE(png.status().message().find("image/png"), std::string::npos);
}

TEST_F(WebFetchTest, TextBeyondTheBudgetIsCutWithANote) {
  server_.route("/news", html_page(html_fixture("news_article.html")));
  const std::string full = fetch("/news");
  const std::string cut = fetch("/news", {{"max_chars", 300}});
  const size_t body_start = cut.find("\n\n") + 2;
  const size_t note = cut.find("\n\n[text cut at ");
  ASSERT_NE(note, std::string::npos) << cut;
  const std::string body = cut.substr(body_start, note - body_start);
  size_t chars = 0;
  for (char c : body) chars += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  EXPECT_LE(chars, 300u);
  EXPECT_GT(chars, 150u);
  EXPECT_TRUE(full.find(body) != std::string::npos) << "the cut text is a prefix of the full text";
  EXPECT_NE(cut.find("larger max_chars (at most 200000)"), std::string::npos) << cut;
  EXPECT_EQ(full.find("[text cut"), std::string::npos);

  options_.web_fetch_max_chars = 120;  // the default budget when the call gives none
  options_.web_fetch_max_chars_limit = 120;
  registry_ = ToolRegistry();
  const std::string small = fetch("/news");
  EXPECT_NE(small.find("the rest is not shown]"), std::string::npos) << small;
  Result<std::string> too_big = run("web_fetch", {{"url", server_.url("/news")}, {"max_chars", 121}});
  EXPECT_EQ(too_big.status().code(), ErrorCode::kInvalidArgument);  // the schema's maximum
}

TEST_F(WebFetchTest, PagesLargerThanTheDownloadLimitAreCut) {
  options_.max_response_bytes = 2000;
  std::string page = "<html><body><h1>Long page</h1>";
  for (int i = 0; i < 200; ++i) page += "<p>Paragraph " + std::to_string(i) + " of filler text.</p>";
  page += "<p>THE END</p></body></html>";
  server_.route("/long", html_page(page));
  const std::string text = fetch("/long");
  expect_contains(text, {"# Long page", "Paragraph 3 of filler text.",
                         "[only the first 2000 bytes of the page were read (max_response_bytes)"});
  expect_absent(text, {"THE END"});
}

TEST_F(WebFetchTest, HttpErrorsAndRedirectsAreHandled) {
  StaticRoute missing = html_page("<h1>Not here</h1>");
  missing.status = 404;
  server_.route("/missing", missing);
  StaticRoute down = html_page("<h1>Down</h1>");
  down.status = 503;
  server_.route("/down", down);
  Result<std::string> r = run("web_fetch", {{"url", server_.url("/missing")}});
  EXPECT_EQ(r.status().code(), ErrorCode::kNotFound);
  EXPECT_NE(r.status().message().find("HTTP 404 Not Found"), std::string::npos) << r.status().message();
  EXPECT_EQ(run("web_fetch", {{"url", server_.url("/down")}}).status().code(), ErrorCode::kUnavailable);

  // Links resolve against the final URL after redirects.
  server_.route("/latest", redirect_to("/docs/v3/config.html", 301));
  server_.route("/docs/v3/config.html", html_page(html_fixture("docs_page.html")));
  const std::string text = fetch("/latest");
  expect_contains(text, {"URL: " + server_.url("/docs/v3/config.html") + "\n",
                         "[the install guide](" + server_.url("/docs/v3/install.html#requirements") + ")"});
}

TEST_F(WebFetchTest, HostileNestingIsRefusedNotCrashed) {
  std::string deep;
  for (int i = 0; i < 100000; ++i) deep += "<div>";
  deep += "bottom";
  server_.route("/deep", html_page(deep));
  Result<std::string> r = run("web_fetch", {{"url", server_.url("/deep")}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("nests"), std::string::npos) << r.status().message();
}

TEST_F(WebFetchTest, RunsInParallelThroughTheExecutor) {
  server_.route("/a", html_page("<h1>Page A</h1>"));
  server_.route("/b", with_delay(html_page("<h1>Page B</h1>"), 50));
  server_.route("/c", html_page(html_fixture("news_article.html")));
  register_tools();
  ToolExecutorOptions exec_options;
  exec_options.threads = 3;
  exec_options.workspace_root = "/";
  ToolExecutor executor(registry_, exec_options);
  std::vector<ToolCall> calls;
  for (const char* path : {"/a", "/b", "/c"}) {
    ToolCall call;
    call.id = std::string("call") + path;
    call.name = "web_fetch";
    call.arguments = nlohmann::json{{"url", server_.url(path)}}.dump();
    calls.push_back(call);
  }
  std::vector<ToolResult> results = executor.run_batch(calls, {}, std::stop_token());
  ASSERT_EQ(results.size(), 3u);
  EXPECT_NE(results[0].content.find("# Page A"), std::string::npos) << results[0].content;
  EXPECT_NE(results[1].content.find("# Page B"), std::string::npos) << results[1].content;
  EXPECT_NE(results[2].content.find("# Harbour town"), std::string::npos);
}

}  // namespace
}  // namespace keel::testing
