// Targets and the type checks of email addresses, URLs and entities.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "keel/core/extraction.hpp"

namespace keel {
namespace {

TEST(ExtractionTypes, ParsesTheFourTargets) {
  for (const char* name : {"email", "url", "date", "entity"}) {
    const Result<ExtractionTarget> t = parse_extraction_target(name);
    ASSERT_TRUE(t.ok()) << name;
    EXPECT_EQ(extraction_target_name(*t), name);
  }
  EXPECT_EQ(*parse_extraction_target("url"), ExtractionTarget::kUrl);
}

TEST(ExtractionTypes, UnknownTargetListsTheKnownOnes) {
  const Result<ExtractionTarget> t = parse_extraction_target("phone");
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(t.status().message(), "unknown extraction target 'phone': use one of email, url, date, entity");
  EXPECT_FALSE(parse_extraction_target("Email").ok());  // exact spelling
  EXPECT_FALSE(parse_extraction_target("").ok());
}

TEST(ExtractionTypes, AcceptsEmailAddresses) {
  std::string longest_local_part(64, 'a');  // built apart: GCC 12 misreads `string + literal` in the list (-Warray-bounds)
  longest_local_part.append("@example.com");
  for (const std::string& v : std::vector<std::string>{
           "hello@agent.rs", "first.last+tag@sub.example.co.uk", "o'brien@example.ie", "user_name@example-domain.com",
           "x@a.io", "  hello@agent.rs\n", "zo\u00EB@ex\u00E4mple.de", "a!#$%&*/=?^`{|}~-b@example.com",
           longest_local_part}) {
    EXPECT_TRUE(is_valid_email(v)) << v;
  }
}

TEST(ExtractionTypes, RejectsMalformedEmailAddresses) {
  for (const std::string& v :
       std::vector<std::string>{"",
                                "hello",
                                "hello@",
                                "@agent.rs",
                                "hello@agent",
                                "a b@x.com",
                                "a@x .com",
                                "a@@x.com",
                                "a@b@x.com",
                                ".a@x.com",
                                "a.@x.com",
                                "a..b@x.com",
                                "a@-x.com",
                                "a@x-.com",
                                "a@x..com",
                                "a@x.com.",
                                "a@.x.com",
                                "a@1.2.3.4",
                                "a@[1.2.3.4]",
                                "\"a b\"@x.com",
                                "a(b)@x.com",
                                "a@x.c\tm",
                                "a\xFF@x.com",
                                "a\x01@x.com",
                                std::string(65, 'a') + "@example.com",
                                "a@" + std::string(64, 'b') + ".com",
                                "a@" + std::string(60, 'b') + "." + std::string(60, 'c') + "." + std::string(60, 'd') +
                                    "." + std::string(60, 'e') + "." + std::string(60, 'f') + ".com"}) {
    EXPECT_FALSE(is_valid_email(v)) << v;
  }
}

TEST(ExtractionTypes, AcceptsUrls) {
  for (const std::string& v : std::vector<std::string>{
           "https://example.com", "http://example.com/path?q=1&r=2#frag", "HTTPS://Example.COM/A",
           "ftp://files.example.org/pub/f.txt", "https://localhost:8080/", "http://127.0.0.1:3000/x",
           "https://[::1]:8443/", "https://[2001:db8::1]/", "https://user:pw@example.com/", "www.example.com",
           "WWW.example.co.uk/path?x=1", "www.example.com:8080", "https://\u4F8B\u3048.jp/\u30D1\u30B9",
           "https://en.wikipedia.org/wiki/Foo_(bar)", "https://a.b/c.", " https://example.com "}) {
    EXPECT_TRUE(is_valid_url(v)) << v;
  }
}

TEST(ExtractionTypes, RejectsMalformedUrls) {
  for (const std::string& v : std::vector<std::string>{"",
                                                       "example.com",
                                                       "www.com",
                                                       "www.",
                                                       "mailto:a@b.com",
                                                       "https://",
                                                       "https:///path",
                                                       "https://exa mple.com",
                                                       "https://example.com/a b",
                                                       "https://example.com:99999",
                                                       "https://example.com:",
                                                       "https://example.com:8a",
                                                       "https://-bad.com",
                                                       "https://bad-.com",
                                                       "https://1.2.3",
                                                       "https://999.1.1.1",
                                                       "https://a..b",
                                                       "javascript:alert(1)",
                                                       "gopher://x.com",
                                                       "https://example.com/<script>",
                                                       "https://example.com/\"q\"",
                                                       "https://[zz]/",
                                                       "https://[]/",
                                                       "www.x@example.com",
                                                       "https://example.com/\x01",
                                                       "https://exa\xFFmple.com",
                                                       "//example.com"}) {
    EXPECT_FALSE(is_valid_url(v)) << v;
  }
}

TEST(ExtractionTypes, AcceptsEntities) {
  for (const std::string& v :
       std::vector<std::string>{"Zo\u00EB \u0160imi\u0107", "\u041C\u043E\u0441\u043A\u0432\u0430", "\u6771\u4EAC",
                                "Acme Corp.", "R2-D2", "  New York  ", "\u00C9cole 42", std::string(200, 'a'),
                                std::string(100, 'x') + std::string(50, ' ') + std::string(50, 'y')}) {
    EXPECT_TRUE(is_valid_entity(v)) << v;
  }
}

TEST(ExtractionTypes, RejectsEntitiesWithoutLettersOrTooLong) {
  for (const std::string& v : std::vector<std::string>{
           "", "   ", "\u00A0\n", "1234", "---", "42 / 7", "\u2014", "\uFFFD", "\u0661\u0662", std::string(201, 'a'),
           std::string(67, 'a') + std::string(67, ' ') + std::string(67, 'b')}) {
    EXPECT_FALSE(is_valid_entity(v)) << v;
  }
  // 200 code points of two bytes each pass: the limit counts characters, not bytes.
  std::string two_byte;
  for (int i = 0; i < 200; ++i) two_byte += "\u00E9";
  EXPECT_TRUE(is_valid_entity(two_byte));
  EXPECT_FALSE(is_valid_entity(two_byte + "\u00E9"));
}

TEST(ExtractionTypes, DispatchesByTarget) {
  EXPECT_TRUE(is_valid_extraction_value(ExtractionTarget::kEmail, "a@b.io"));
  EXPECT_FALSE(is_valid_extraction_value(ExtractionTarget::kUrl, "a@b.io"));
  EXPECT_TRUE(is_valid_extraction_value(ExtractionTarget::kUrl, "www.b.io"));
  EXPECT_TRUE(is_valid_extraction_value(ExtractionTarget::kDate, "2024-03-04"));
  EXPECT_FALSE(is_valid_extraction_value(ExtractionTarget::kDate, "a@b.io"));
  EXPECT_TRUE(is_valid_extraction_value(ExtractionTarget::kEntity, "a@b.io"));
  EXPECT_FALSE(is_valid_extraction_value(ExtractionTarget::kEntity, "2024"));
}

}  // namespace
}  // namespace keel
