// SecretRedactor: every occurrence replaced, overlapping and nested secrets, secrets at the edges
// of the text, short values left alone, UTF-8, JSON-escaped forms, and many secrets over long text.
#include "keel/core/secret_redactor.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace keel {
namespace {

TEST(SecretRedactor, ReplacesEveryOccurrenceWithTheSecretsName) {
  SecretRedactor r(std::vector<Secret>{{"OPENAI_API_KEY", "sk-live-0123456789"}, {"GH_TOKEN", "ghp_abcdefghij"}});
  EXPECT_FALSE(r.empty());
  EXPECT_EQ(r.redact("key=sk-live-0123456789 and ghp_abcdefghij, again sk-live-0123456789."),
            "key=[REDACTED:OPENAI_API_KEY] and [REDACTED:GH_TOKEN], again [REDACTED:OPENAI_API_KEY].");
  std::string text = "nothing secret here";
  EXPECT_FALSE(r.redact_in_place(text));
  EXPECT_EQ(text, "nothing secret here");
  EXPECT_EQ(r.names(), (std::vector<std::string>{"OPENAI_API_KEY", "GH_TOKEN"}));
}

TEST(SecretRedactor, SecretsAtTheEdgesOfTheText) {
  SecretRedactor r(std::vector<Secret>{{"S", "0123456789abcdef"}});
  EXPECT_EQ(r.redact("0123456789abcdef"), "[REDACTED:S]");
  EXPECT_EQ(r.redact("0123456789abcdef tail"), "[REDACTED:S] tail");
  EXPECT_EQ(r.redact("head 0123456789abcdef"), "head [REDACTED:S]");
  EXPECT_EQ(r.redact("0123456789abcdef0123456789abcdef"), "[REDACTED:S][REDACTED:S]");
  // A partial value is not the secret.
  EXPECT_EQ(r.redact("0123456789abcde"), "0123456789abcde");
  EXPECT_EQ(r.redact("123456789abcdef"), "123456789abcdef");
  EXPECT_EQ(r.redact(""), "");
}

TEST(SecretRedactor, OverlappingSecretsLeaveNoPartBehind) {
  SecretRedactor r(std::vector<Secret>{{"A", "abcdefgh"}, {"B", "efghijkl"}});
  // Overlapping occurrences become one marker naming both: no byte of either survives.
  EXPECT_EQ(r.redact("xxabcdefghijklyy"), "xx[REDACTED:A,B]yy");
  // Apart, each gets its own marker.
  EXPECT_EQ(r.redact("abcdefgh efghijkl"), "[REDACTED:A] [REDACTED:B]");
  // A chain of overlaps is still one span.
  SecretRedactor chain(std::vector<Secret>{{"A", "aaaabbbb"}, {"B", "bbbbcccc"}, {"C", "ccccdddd"}});
  EXPECT_EQ(chain.redact("aaaabbbbccccdddd!"), "[REDACTED:A,B,C]!");
}

TEST(SecretRedactor, ASecretInsideAnotherIsCoveredByTheLongerOne) {
  SecretRedactor r(std::vector<Secret>{{"INNER", "cdefghij"}, {"OUTER", "abcdefghijkl"}});
  EXPECT_EQ(r.redact("<abcdefghijkl>"), "<[REDACTED:OUTER]>");
  EXPECT_EQ(r.redact("<cdefghij>"), "<[REDACTED:INNER]>");
  // A prefix of the longer one that fails to complete still yields the shorter secret.
  EXPECT_EQ(r.redact("abcdefghijXY"), "ab[REDACTED:INNER]XY");
}

TEST(SecretRedactor, ValuesShorterThanEightCharactersAreLeftAlone) {
  SecretRedactor r(std::vector<Secret>{{"SHORT", "1234567"}, {"EXACT", "12345678"}, {"EMPTY", ""}});
  EXPECT_EQ(r.names(), (std::vector<std::string>{"EXACT"}));
  EXPECT_EQ(r.redact("1234567 x 12345678"), "1234567 x [REDACTED:EXACT]");
  SecretRedactor none(std::vector<Secret>{{"SHORT", "abc"}});
  EXPECT_TRUE(none.empty());
  EXPECT_EQ(none.redact("abc abc"), "abc abc");
}

TEST(SecretRedactor, CountsCharactersNotBytesAndMatchesUtf8) {
  // 7 characters (11 bytes): too short, although it has more than 8 bytes.
  SecretRedactor short_utf8(std::vector<Secret>{{"W", "ключ123"}});
  EXPECT_TRUE(short_utf8.empty());
  SecretRedactor r(std::vector<Secret>{{"PASS", "пароль-секрет"}, {"EMOJI", "🔑🔑🔑🔑key!"}});
  EXPECT_EQ(r.redact("ä пароль-секрет ö"), "ä [REDACTED:PASS] ö");
  EXPECT_EQ(r.redact("日本🔑🔑🔑🔑key!語"), "日本[REDACTED:EMOJI]語");
  // Multi-byte characters right before and after, and a text of only the secret.
  EXPECT_EQ(r.redact("€пароль-секрет€"), "€[REDACTED:PASS]€");
  EXPECT_EQ(r.redact("пароль-секрет"), "[REDACTED:PASS]");
}

TEST(SecretRedactor, FindsTheJsonEscapedFormToo) {
  SecretRedactor r(std::vector<Secret>{{"P", "pa\"ss\\word"}});
  EXPECT_EQ(r.redact("raw pa\"ss\\word"), "raw [REDACTED:P]");
  EXPECT_EQ(r.redact(R"({"password":"pa\"ss\\word"})"), R"({"password":"[REDACTED:P]"})");
}

TEST(SecretRedactor, ASharedValueKeepsItsFirstName) {
  SecretRedactor r(std::vector<Secret>{{"FIRST", "same-value-123"}, {"SECOND", "same-value-123"}});
  EXPECT_EQ(r.redact("same-value-123"), "[REDACTED:FIRST]");
}

TEST(SecretRedactor, ManySecretsOverLongText) {
  std::vector<Secret> secrets;
  for (int i = 0; i < 300; ++i) secrets.push_back({"K" + std::to_string(i), "secret-" + std::to_string(1000000 + i * 7919)});
  SecretRedactor r(secrets);
  std::string text;
  std::string expected;
  for (int i = 0; i < 20000; ++i) {
    const std::string filler = "line " + std::to_string(i) + " of ordinary output secret-0 ";
    text += filler;
    expected += filler;
    if (i % 97 == 0) {
      const int k = i % 300;
      text += secrets[static_cast<size_t>(k)].value + "\n";
      expected += "[REDACTED:K" + std::to_string(k) + "]\n";
    }
  }
  EXPECT_EQ(r.redact(text), expected);
}

}  // namespace
}  // namespace keel
