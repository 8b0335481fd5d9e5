// check_extraction(): the anti-hallucination guard — shapes, type checks, matching after
// normalization, whole-token boundaries and the messages the model sees on its retry.
#include <gtest/gtest.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "keel/core/extraction.hpp"

namespace keel {
namespace {

using nlohmann::json;

constexpr ExtractionTarget kEmail = ExtractionTarget::kEmail;
constexpr ExtractionTarget kUrl = ExtractionTarget::kUrl;
constexpr ExtractionTarget kDate = ExtractionTarget::kDate;
constexpr ExtractionTarget kEntity = ExtractionTarget::kEntity;

json one(ExtractionTarget t, std::vector<std::string> values) {
  json out = json::object();
  out[std::string(extraction_target_name(t))] = std::move(values);
  return out;
}

// The error message, or "ok".
std::string verdict(ExtractionTarget t, std::vector<std::string> values, const std::string& source) {
  const Status s = check_extraction(one(t, std::move(values)), t, source);
  if (s.ok()) return "ok";
  EXPECT_EQ(s.code(), ErrorCode::kInvalidArgument);
  return s.message();
}

bool found(ExtractionTarget t, const std::string& value, const std::string& source) {
  return verdict(t, {value}, source) == "ok";
}

TEST(ExtractionGuard, SeedExampleIsRejectedByName) {
  const Status s = check_extraction(json::parse(R"({"email": ["contact@example.com"]})"), kEmail, "Contact us anytime");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "HallucinationDetected: 'contact@example.com' not found in source text. Return only email addresses "
            "copied verbatim from the text ([] when there are none).");
}

TEST(ExtractionGuard, AcceptsExactValuesAndEmptyArrays) {
  EXPECT_EQ(verdict(kEmail, {"hello@agent.rs"}, "Contact us at hello@agent.rs"), "ok");
  EXPECT_EQ(verdict(kEmail, {"hello@agent.rs", "sales@agent.rs"}, "hello@agent.rs, sales@agent.rs."), "ok");
  EXPECT_EQ(verdict(kEmail, {}, "Contact us at hello@agent.rs"), "ok");  // nothing found is an answer
  EXPECT_EQ(verdict(kUrl, {}, ""), "ok");
  EXPECT_EQ(verdict(kDate, {"March 3, 2024"}, "Due March 3, 2024."), "ok");
  EXPECT_EQ(verdict(kEntity, {"Ada Lovelace"}, "Ada Lovelace wrote the first program."), "ok");
}

TEST(ExtractionGuard, IgnoresCaseAndWhitespaceDifferences) {
  EXPECT_TRUE(found(kEmail, "HELLO@Agent.RS", "write to hello@agent.rs"));
  EXPECT_TRUE(found(kEntity, "new york", "She moved to New York."));
  EXPECT_TRUE(found(kEntity, "New York", "She moved to New\n   York."));
  EXPECT_TRUE(found(kEntity, "  New   York ", "She moved to New York."));
  EXPECT_TRUE(found(kDate, "March 3, 2024", "on March\u00A03,\u00A02024"));  // NBSP in the source
  EXPECT_TRUE(found(kDate, "March\u00A03, 2024", "on March 3, 2024"));       // NBSP in the value
  EXPECT_TRUE(found(kUrl, "HTTPS://EXAMPLE.COM/A", "see https://example.com/a"));
}

TEST(ExtractionGuard, MatchesPrecomposedAndDecomposedAccents) {
  const std::string precomposed = "Zo\u00EB \u0160imi\u0107";    // Zoë Šimić
  const std::string decomposed = "Zoe\u0308 S\u030Cimic\u0301";  // the same with combining marks
  EXPECT_TRUE(found(kEntity, precomposed, "Die K\u00FCnstlerin " + decomposed + " lebt in Berlin."));
  EXPECT_TRUE(found(kEntity, decomposed, "Die K\u00FCnstlerin " + precomposed + " lebt in Berlin."));
  EXPECT_TRUE(found(kEntity, "ZO\u00CB \u0160IMI\u0106", "Die K\u00FCnstlerin " + decomposed + " lebt in Berlin."));
  EXPECT_FALSE(
      found(kEntity, "Zoe Simic", "Die K\u00FCnstlerin " + precomposed + " lebt in Berlin."));  // accents count
}

TEST(ExtractionGuard, MatchesTypographicVariantsAndInvisibleCharacters) {
  EXPECT_TRUE(found(kDate, "2024-03-04", "released 2024\u201303\u201304"));               // en dashes
  EXPECT_TRUE(found(kEntity, "O'Brien's Pub", "at O\u2019Brien\u2019s Pub tonight"));     // curly apostrophes
  EXPECT_TRUE(found(kEmail, "hello@agent.rs", "mail hel\u00ADlo@agent\u200B.rs today"));  // soft hyphen, ZWSP
}

TEST(ExtractionGuard, RejectsNearMisses) {
  const std::string src = "Contact hello@agent.rs or visit https://example.com/docs/intro on March 31, 2024.";
  EXPECT_FALSE(found(kEmail, "hello@agent.r", src));      // prefix
  EXPECT_FALSE(found(kEmail, "ello@agent.rs", src));      // suffix
  EXPECT_FALSE(found(kEmail, "hello@agent.rs.uk", src));  // longer
  EXPECT_FALSE(found(kEmail, "hallo@agent.rs", src));     // one letter changed
  EXPECT_FALSE(found(kUrl, "https://exampel.com/docs/intro", src));
  EXPECT_FALSE(found(kUrl, "https://example.com/docs", src));  // a URL cut short
  EXPECT_FALSE(found(kUrl, "https://example.com/docs/intr", src));
  EXPECT_FALSE(found(kDate, "March 3, 2024", src));                               // "March 3" of "March 31"
  EXPECT_FALSE(found(kDate, "March 31, 202", src));                               // not a date anyway
  EXPECT_FALSE(found(kEmail, "smith@example.com", "Ask bob.smith@example.com"));  // tail of an address
  EXPECT_FALSE(found(kEmail, "bob@example.co", "Ask bob@example.com"));
  EXPECT_FALSE(found(kEmail, "bob@example.co", "Ask bob@example.co.uk"));  // '.' continues the domain here
  EXPECT_FALSE(found(kUrl, "https://example.com", "https://example.com:8080/x"));
  EXPECT_FALSE(found(kUrl, "www.example.com", "https://www.example.com/a"));
}

TEST(ExtractionGuard, RejectsValuesSpanningAWordBoundary) {
  const std::string src = "They flew from New York City to Los Angeles.";
  EXPECT_FALSE(found(kEntity, "York Ci", src));
  EXPECT_FALSE(found(kEntity, "w York", src));
  EXPECT_FALSE(found(kEntity, "City to Lo", src));
  EXPECT_TRUE(found(kEntity, "York City", src));
  EXPECT_TRUE(found(kEntity, "City to Los Angeles", src));  // whole tokens, even if not an entity
}

TEST(ExtractionGuard, AcceptsValuesFollowedBySentencePunctuation) {
  EXPECT_TRUE(found(kEmail, "hello@agent.rs", "Write to hello@agent.rs."));
  EXPECT_TRUE(found(kEmail, "hello@agent.rs", "<hello@agent.rs>"));
  EXPECT_TRUE(found(kEmail, "hello@agent.rs", "\"hello@agent.rs\""));
  EXPECT_TRUE(found(kUrl, "https://a.b/c", "see https://a.b/c."));
  EXPECT_TRUE(found(kUrl, "https://a.b/c", "(see https://a.b/c)."));
  EXPECT_TRUE(found(kUrl, "https://a.b/c", "see https://a.b/c?!"));
  EXPECT_TRUE(found(kUrl, "https://a.b/c.", "see https://a.b/c."));    // the dot is allowed in a URL too
  EXPECT_TRUE(found(kDate, "2024-03-04", "at 2024-03-04T10:00:00Z"));  // the date of a date-time
  EXPECT_TRUE(found(kDate, "2024-03-04T10:00:00Z", "at 2024-03-04T10:00:00Z"));
}

TEST(ExtractionGuard, MatchesUnicodeEntities) {
  const std::string moscow = "\u041C\u043E\u0441\u043A\u0432\u0430";  // Москва
  EXPECT_TRUE(found(kEntity, moscow, moscow + " \u2014 \u0441\u0442\u043E\u043B\u0438\u0446\u0430."));
  EXPECT_TRUE(found(kEntity, "\u041C\u041E\u0421\u041A\u0412\u0410", "\u0412 " + moscow + "."));  // МОСКВА
  // "в Москве" (locative case) is another word: the guard does no stemming.
  EXPECT_FALSE(found(kEntity, moscow, "\u042F \u0436\u0438\u0432\u0443 \u0432 \u041C\u043E\u0441\u043A\u0432\u0435"));
  EXPECT_TRUE(found(kEntity, "\u0391\u03B8\u03AE\u03BD\u03B1",
                    "\u03A3\u03C4\u03B7\u03BD \u0391\u0398\u0389\u039D\u0391"));  // Αθήνα / ΑΘΉΝΑ
}

// Japanese and Chinese are written without spaces, so nothing marks where a word ends: next to a
// CJK character every position counts as a boundary, and any substring of the text is found.
TEST(ExtractionGuard, TreatsScriptsWithoutSpacesAsBoundariesEverywhere) {
  const std::string src =
      "\u79C1\u306F\u6771\u4EAC\u306B\u4F4F\u3093\u3067\u3044\u307E\u3059\u3002";  // 私は東京に住んでいます。
  EXPECT_TRUE(found(kEntity, "\u6771\u4EAC", src));                                // 東京
  EXPECT_FALSE(found(kEntity, "\u5927\u962A", src));                               // 大阪 is not there
  EXPECT_FALSE(found(kEntity, "\u6771\u6D77", src));                               // 東海: one character differs
  // 京都 (Kyoto) is a substring of 東京都 (Tokyo Metropolis): found, as the rule above says.
  EXPECT_TRUE(found(kEntity, "\u4EAC\u90FD", "\u6771\u4EAC\u90FD\u5E81"));
  // Latin text next to CJK: the CJK neighbour is a boundary.
  EXPECT_TRUE(found(kEmail, "info@example.jp", "\u30E1\u30FC\u30EB\u306Finfo@example.jp\u307E\u3067"));
  EXPECT_TRUE(found(kEntity, "Tokyo", "Tokyo\u90FD"));
}

TEST(ExtractionGuard, RejectsAStringInsteadOfAnArray) {
  const Status s = check_extraction(json::parse(R"({"email": "hello@agent.rs"})"), kEmail, "hello@agent.rs");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "extract output \"email\" must be an array of strings; got a string: put even a single value in an array, "
            "{\"email\": [...]}");
}

TEST(ExtractionGuard, RejectsWrongShapes) {
  const auto message = [](const char* output, ExtractionTarget t) {
    const Status s = check_extraction(json::parse(output), t, "hello@agent.rs https://a.io");
    return s.ok() ? std::string("ok") : s.message();
  };
  EXPECT_EQ(message(R"({"emails": ["hello@agent.rs"]})", kEmail),
            "extract output must be {\"email\": [...]}, an object with the one key \"email\"; got keys \"emails\"");
  EXPECT_EQ(message(R"({"email": [], "url": []})", kEmail),
            "extract output must be {\"email\": [...]}, an object with the one key \"email\"; got keys \"email\", "
            "\"url\"");
  EXPECT_EQ(message(R"({"email": ["hello@agent.rs"]})", kUrl),
            "extract output must be {\"url\": [...]}, an object with the one key \"url\"; got keys \"email\"");
  EXPECT_EQ(message("{}", kEmail),
            "extract output must be {\"email\": [...]}, an object with the one key \"email\"; got no keys");
  EXPECT_EQ(message(R"(["hello@agent.rs"])", kEmail),
            "extract output must be {\"email\": [...]}, a JSON object; got an array");
  EXPECT_EQ(message(R"("hello@agent.rs")", kEmail),
            "extract output must be {\"email\": [...]}, a JSON object; got a string");
  EXPECT_EQ(message("null", kEmail), "extract output must be {\"email\": [...]}, a JSON object; got a null");
  EXPECT_EQ(message(R"({"email": ["hello@agent.rs", 42]})", kEmail),
            "extract output \"email\"[1] must be a string; got a number");
  EXPECT_EQ(message(R"({"email": [["hello@agent.rs"]]})", kEmail),
            "extract output \"email\"[0] must be a string; got an array");
  EXPECT_EQ(message(R"({"email": {"0": "hello@agent.rs"}})", kEmail),
            "extract output \"email\" must be an array of strings; got an object: put even a single value in an "
            "array, {\"email\": [...]}");
  EXPECT_EQ(message(R"({"email": null})", kEmail),
            "extract output \"email\" must be an array of strings; got a null: put even a single value in an array, "
            "{\"email\": [...]}");
}

TEST(ExtractionGuard, NamesValuesThatFailTheTypeCheck) {
  EXPECT_EQ(verdict(kEmail, {"not-an-email"}, "not-an-email"),
            "InvalidValue: 'not-an-email' is not a valid email address. Return only email addresses copied verbatim "
            "from the text ([] when there are none).");
  EXPECT_EQ(verdict(kDate, {"February 30, 2024"}, "on February 30, 2024"),
            "InvalidValue: 'February 30, 2024' is not a valid date. Return only dates copied verbatim from the text "
            "([] when there are none).");
  EXPECT_EQ(verdict(kUrl, {"example.com", "ftp//x"}, "example.com ftp//x"),
            "InvalidValue: 'example.com', 'ftp//x' are not valid URLs. Return only URLs copied verbatim from the text "
            "([] when there are none).");
  EXPECT_EQ(verdict(kEntity, {"1234"}, "1234"),
            "InvalidValue: '1234' is not a valid entity. Return only entities copied verbatim from the text ([] when "
            "there are none).");
}

TEST(ExtractionGuard, NamesEveryOffendingValue) {
  EXPECT_EQ(verdict(kEmail, {"hello@agent.rs", "bogus", "a@b.io", "c@d.io"}, "hello@agent.rs"),
            "InvalidValue: 'bogus' is not a valid email address. HallucinationDetected: 'a@b.io', 'c@d.io' not found "
            "in source text. Return only email addresses copied verbatim from the text ([] when there are none).");
  std::vector<std::string> many;
  for (int i = 0; i < 11; ++i) many.push_back("u" + std::to_string(i) + "@x.io");
  EXPECT_EQ(verdict(kEmail, many, "nothing here"),
            "HallucinationDetected: 'u0@x.io', 'u1@x.io', 'u2@x.io', 'u3@x.io', 'u4@x.io', 'u5@x.io', 'u6@x.io', "
            "'u7@x.io', and 3 more not found in source text. Return only email addresses copied verbatim from the "
            "text ([] when there are none).");
}

TEST(ExtractionGuard, CutsLongValuesInMessages) {
  const std::string name = "Ada " + std::string(100, 'x');
  EXPECT_EQ(verdict(kEntity, {name}, "Ada Lovelace"),
            "HallucinationDetected: 'Ada " + std::string(76, 'x') +
                "\u2026' not found in source text. Return only entities copied verbatim from the text ([] when there "
                "are none).");
}

TEST(ExtractionGuard, SurvivesInvalidUtf8InTheSource) {
  EXPECT_TRUE(found(kEmail, "hello@agent.rs", "\xFF\xFEhello@agent.rs\xC3"));
  EXPECT_FALSE(found(kEmail, "other@agent.rs", "\xFF\xFEhello@agent.rs\xC3"));
  EXPECT_TRUE(found(kEntity, "Ada",
                    "\xC0\xAF"
                    "Ada\xED\xA0\x80"));
}

// Every occurrence of the value is a near miss, so the guard looks at each one: the work must stay
// proportional to the source (a quadratic scan of 1 MiB would take minutes).
TEST(ExtractionGuard, StaysLinearOnManyNearMisses) {
  std::string src;
  while (src.size() < (1u << 20)) src += "xhello@agent.rs ";
  const auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE(found(kEmail, "hello@agent.rs", src));
  EXPECT_TRUE(found(kEmail, "hello@agent.rs", src + "hello@agent.rs"));
  const auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_LT(elapsed, std::chrono::seconds(5));
}

}  // namespace
}  // namespace keel
