// find_extraction_candidates(): the deterministic extractor on realistic text; what it returns is
// verbatim and passes the guard.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "keel/core/extraction.hpp"

namespace keel {
namespace {

using Values = std::vector<std::string>;

Values scan(ExtractionTarget t, const std::string& text) {
  Result<Values> r = find_extraction_candidates(t, text);
  EXPECT_TRUE(r.ok()) << r.status().to_string();
  return r.ok() ? *r : Values{};
}

// The guard's verdict on the extractor's own output.
void expect_guard_accepts(ExtractionTarget t, const Values& values, const std::string& text) {
  nlohmann::json out = nlohmann::json::object();
  out[std::string(extraction_target_name(t))] = values;
  const Status s = check_extraction(out, t, text);
  EXPECT_TRUE(s.ok()) << s.message();
}

TEST(ExtractionScan, FindsEmailsInAMessage) {
  const std::string text =
      "From: Bob Stone <bob@example.com>\n"
      "Please copy alice.smith+news@mail.example.org and (ops-team@example.co.uk).\n"
      "Not addresses: foo@bar, @home, x@y. and user@@example.com; \"quoted\"@example.com\n"
      "Again: BOB@EXAMPLE.COM.";
  const Values v = scan(ExtractionTarget::kEmail, text);
  EXPECT_EQ(v, (Values{"bob@example.com", "alice.smith+news@mail.example.org", "ops-team@example.co.uk"}));
  expect_guard_accepts(ExtractionTarget::kEmail, v, text);
}

TEST(ExtractionScan, FindsNothingWhereThereIsNothing) {
  EXPECT_EQ(scan(ExtractionTarget::kEmail, "Contact us anytime"), Values{});
  EXPECT_EQ(scan(ExtractionTarget::kUrl, "Contact us anytime"), Values{});
  EXPECT_EQ(scan(ExtractionTarget::kDate, "Contact us anytime"), Values{});
  EXPECT_EQ(scan(ExtractionTarget::kEmail, ""), Values{});
}

TEST(ExtractionScan, FindsUrlsWithoutTrailingPunctuation) {
  const std::string text =
      "see https://a.b/c. Docs (at https://example.com/docs), www.example.org; and "
      "https://en.wikipedia.org/wiki/Foo_(bar)! Quoted: \u201Chttps://x.example.com/q?a=1&b=2\u201D, "
      "upper HTTPS://Example.com/Path, ftp://files.example.net/pub/, <http://127.0.0.1:8080/x>.\n"
      "Not URLs: example.com, http://, www.com and mailto:me@example.com.";
  const Values v = scan(ExtractionTarget::kUrl, text);
  EXPECT_EQ(v, (Values{"https://a.b/c", "https://example.com/docs", "www.example.org",
                       "https://en.wikipedia.org/wiki/Foo_(bar)", "https://x.example.com/q?a=1&b=2",
                       "HTTPS://Example.com/Path", "ftp://files.example.net/pub/", "http://127.0.0.1:8080/x"}));
  expect_guard_accepts(ExtractionTarget::kUrl, v, text);
}

TEST(ExtractionScan, FindsDatesInSeveralForms) {
  const std::string text =
      "Released on March 3, 2024; patched 2024-03-10T08:15:00Z and again on 15/03/2024. Next review: 3rd of "
      "April 2024, or Apr. 30. Sunday, May 5, 2024 is the party (see 2024/05/06 too).\n"
      "Not dates: version 1.2.24, February 30, 2024, the year 2024, room 12/40, 2024-13-01.";
  const Values v = scan(ExtractionTarget::kDate, text);
  EXPECT_EQ(v, (Values{"March 3, 2024", "2024-03-10T08:15:00Z", "15/03/2024", "3rd of April 2024", "Apr. 30",
                       "Sunday, May 5, 2024", "2024/05/06"}));
  expect_guard_accepts(ExtractionTarget::kDate, v, text);
}

TEST(ExtractionScan, CopiesValuesVerbatim) {
  const std::string text =
      "on March\u00A03,  2024 and March 3, 2024 again; write to Bob@Example.COM or bob@example.com";
  EXPECT_EQ(scan(ExtractionTarget::kDate, text), (Values{"March\u00A03,  2024"}));  // the second is the same date
  EXPECT_EQ(scan(ExtractionTarget::kEmail, text), (Values{"Bob@Example.COM"}));
  const std::string accented = "Visit https://caf\u00E9.example.com/men\u0075\u0301 now";
  const Values v = scan(ExtractionTarget::kUrl, accented);
  EXPECT_EQ(v, (Values{"https://caf\u00E9.example.com/menu\u0301"}));
  expect_guard_accepts(ExtractionTarget::kUrl, v, accented);
}

TEST(ExtractionScan, EntitiesNeedAModel) {
  const Result<Values> r = find_extraction_candidates(ExtractionTarget::kEntity, "Ada Lovelace met Babbage.");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kFailedPrecondition);
  EXPECT_EQ(r.status().message(),
            "extracting entities needs a model: no deterministic rule tells names of people, places or organisations "
            "from other words; run the extract skill with a model (--model), or pick target email, url or date");
}

TEST(ExtractionScan, SurvivesInvalidUtf8) {
  const std::string text = "\xFF\xFEhello@agent.rs\xC3 https://a.io/\xE2\x82 2024-03-04\xED\xA0\x80";
  EXPECT_EQ(scan(ExtractionTarget::kEmail, text), (Values{"hello@agent.rs"}));
  EXPECT_EQ(scan(ExtractionTarget::kUrl, text), (Values{"https://a.io/"}));
  EXPECT_EQ(scan(ExtractionTarget::kDate, text), (Values{"2024-03-04"}));
}

TEST(ExtractionScan, HandlesLongNoisyText) {
  std::string text;
  for (int i = 0; i < 20000; ++i) text += "@@ www. http:// 2024-99-99 March 99 a@b ";
  text += "end: last@example.com";
  EXPECT_EQ(scan(ExtractionTarget::kEmail, text), (Values{"last@example.com"}));
  EXPECT_EQ(scan(ExtractionTarget::kUrl, text), Values{});
  EXPECT_EQ(scan(ExtractionTarget::kDate, text), Values{});
}

}  // namespace
}  // namespace keel
