// Content types, charsets and URLs: the pure helpers under the web tools.
#include <gtest/gtest.h>

#include "tools/web/body_decoding.hpp"
#include "tools/web/web_url.hpp"

namespace keel::detail {
namespace {

TEST(BodyDecodingTest, ParsesContentTypes) {
  MediaType m = parse_content_type("Text/HTML; Charset=\"ISO-8859-1\"");
  EXPECT_EQ(m.type, "text/html");
  EXPECT_EQ(m.charset, "iso-8859-1");
  m = parse_content_type("application/json");
  EXPECT_EQ(m.type, "application/json");
  EXPECT_EQ(m.charset, "");
  m = parse_content_type("text/plain; format=flowed; charset=utf-8");
  EXPECT_EQ(m.charset, "utf-8");
  EXPECT_EQ(parse_content_type("text/plain; xcharset=latin1").charset, "");
  EXPECT_EQ(parse_content_type("").type, "");
}

TEST(BodyDecodingTest, ClassifiesBodies) {
  auto kind = [](const char* type, std::string body = "x") { return classify_body(parse_content_type(type), body); };
  EXPECT_EQ(kind("text/html"), BodyKind::kHtml);
  EXPECT_EQ(kind("application/xhtml+xml"), BodyKind::kHtml);
  for (const char* text : {"text/plain", "text/csv", "application/json", "application/ld+json", "application/xml",
                           "application/rss+xml", "application/javascript", "application/x-yaml"}) {
    EXPECT_EQ(kind(text), BodyKind::kText) << text;
  }
  for (const char* binary : {"image/png", "application/pdf", "application/octet-stream", "application/zip",
                             "font/woff2", "video/mp4"}) {
    EXPECT_EQ(kind(binary), BodyKind::kBinary) << binary;
  }
  EXPECT_EQ(kind("", std::string("ab\0cd", 5)), BodyKind::kBinary);
  EXPECT_EQ(kind("", "  <!DOCTYPE HTML><p>x"), BodyKind::kHtml);
  EXPECT_EQ(kind("", "<html lang=en>"), BodyKind::kHtml);
  EXPECT_EQ(kind("", "just words"), BodyKind::kText);
}

TEST(BodyDecodingTest, SniffsMetaCharsets) {
  EXPECT_EQ(sniff_html_charset("<head><meta charset=\"Windows-1252\"></head>"), "windows-1252");
  EXPECT_EQ(sniff_html_charset("<META HTTP-EQUIV='Content-Type' CONTENT='text/html; charset=iso-8859-1'>"),
            "iso-8859-1");
  EXPECT_EQ(sniff_html_charset("<meta charset=utf-8>"), "utf-8");
  EXPECT_EQ(sniff_html_charset("<p>charset=latin1 in text</p>"), "");
  std::string far(5000, ' ');
  far.append("<meta charset=latin1>");
  EXPECT_EQ(sniff_html_charset(far), "");  // too far in
}

TEST(BodyDecodingTest, DecodesWindows1252AndRepairsUtf8) {
  EXPECT_EQ(decode_to_utf8("caf\xE9 \x80 \x93q\x94 \x9F", "windows-1252"),
            "caf\xC3\xA9 \xE2\x82\xAC \xE2\x80\x9Cq\xE2\x80\x9D \xC5\xB8");
  EXPECT_EQ(decode_to_utf8("\xFF", "latin1"), "\xC3\xBF");
  EXPECT_EQ(decode_to_utf8("\xFF", "US-ASCII"), "\xC3\xBF");  // WHATWG: ASCII labels mean windows-1252
  EXPECT_EQ(decode_to_utf8("ok \xC3\xA9", "utf-8"), "ok \xC3\xA9");
  EXPECT_EQ(decode_to_utf8("bad \xC3 end", ""), "bad \xEF\xBF\xBD end");
  EXPECT_EQ(decode_to_utf8("\xEF\xBB\xBFwith bom", "windows-1252"), "with bom");
  EXPECT_EQ(decode_to_utf8("\xE9", "shift_jis"), "\xEF\xBF\xBD");  // unsupported: read as UTF-8
  EXPECT_TRUE(is_windows1252_label(" ISO_8859-1 "));
  EXPECT_FALSE(is_windows1252_label("iso-8859-2"));
}

TEST(WebUrlTest, ParsesHttpUrls) {
  Result<WebUrl> u = parse_web_url("HTTPS://Example.COM:8443/a/../b?q=1#frag");
  ASSERT_TRUE(u.ok()) << u.status().to_string();
  EXPECT_EQ(u->scheme, "https");
  EXPECT_EQ(u->host, "example.com");
  EXPECT_EQ(u->port, 8443);
  EXPECT_EQ(u->url, "https://example.com:8443/b?q=1#frag");
  EXPECT_EQ(parse_web_url("http://example.com")->port, 80);
  EXPECT_EQ(parse_web_url("http://[::1]:8080/")->host, "::1");
  EXPECT_EQ(parse_web_url("http://2130706433/")->host, "127.0.0.1");  // libcurl normalizes IPv4 numbers
  EXPECT_EQ(parse_web_url("http://0x7f000001/")->host, "127.0.0.1");
  EXPECT_EQ(parse_web_url("  http://example.com/a b  ")->url, "http://example.com/a%20b");

  for (const char* bad : {"file:///etc/passwd", "ftp://h/x", "gopher://h/", "ws://h/", "mailto:a@b"}) {
    Result<WebUrl> r = parse_web_url(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.status().message().find("only http and https"), std::string::npos) << r.status().message();
  }
  for (const char* bad : {"", "example.com", "/relative", "http:example.com", "http://", "http://exa mple.com/"}) {
    EXPECT_EQ(parse_web_url(bad).status().code(), ErrorCode::kInvalidArgument) << bad;
  }
}

TEST(WebUrlTest, ResolvesReferences) {
  const std::string base = "https://a.example/docs/v2/page.html?x=1#top";
  auto resolve = [&](const char* ref, bool drop = false) { return resolve_http_url(base, ref, drop).value_or("(none)"); };
  EXPECT_EQ(resolve("other.html"), "https://a.example/docs/v2/other.html");
  EXPECT_EQ(resolve("../v1/"), "https://a.example/docs/v1/");
  EXPECT_EQ(resolve("/root?q=2"), "https://a.example/root?q=2");
  EXPECT_EQ(resolve("//cdn.example/lib.js"), "https://cdn.example/lib.js");
  EXPECT_EQ(resolve("?page=3"), "https://a.example/docs/v2/page.html?page=3");
  EXPECT_EQ(resolve("#section"), "https://a.example/docs/v2/page.html?x=1#section");
  EXPECT_EQ(resolve("other.html#part", true), "https://a.example/docs/v2/other.html");
  EXPECT_EQ(resolve(" \n spaced name.html\t"), "https://a.example/docs/v2/spaced%20name.html");
  EXPECT_EQ(resolve("caf\xC3\xA9.html"), "https://a.example/docs/v2/caf%C3%A9.html");
  EXPECT_EQ(resolve("HTTP://B.example/x"), "http://b.example/x");
  for (const char* other : {"mailto:x@y.example", "javascript:alert(1)", "data:text/html,hi", "tel:123",
                            "ftp://f.example/", "file:///etc/passwd"}) {
    EXPECT_EQ(resolve(other), "(none)") << other;
  }
}

}  // namespace
}  // namespace keel::detail
