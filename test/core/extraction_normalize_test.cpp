// normalize_for_matching(): each rule, with the code points it covers, and invalid UTF-8.
#include <gtest/gtest.h>

#include <string>

#include "keel/core/extraction.hpp"

namespace keel {
namespace {

std::string norm(const std::string& s) {
  return normalize_for_matching(s);
}

TEST(ExtractionNormalize, EmptyStaysEmpty) {
  EXPECT_EQ(norm(""), "");
  EXPECT_EQ(norm(" \t\n"), "");
  EXPECT_EQ(norm("\u200B\u00AD"), "");
}

TEST(ExtractionNormalize, ComposesLatinLettersWithCombiningMarks) {
  EXPECT_EQ(norm("e\u0301"), "\u00E9");             // e + acute = é
  EXPECT_EQ(norm("a\u0300"), "\u00E0");             // a + grave = à
  EXPECT_EQ(norm("o\u0308"), "\u00F6");             // o + diaeresis = ö
  EXPECT_EQ(norm("n\u0303"), "\u00F1");             // n + tilde = ñ
  EXPECT_EQ(norm("c\u0327"), "\u00E7");             // c + cedilla = ç
  EXPECT_EQ(norm("a\u030A"), "\u00E5");             // a + ring = å
  EXPECT_EQ(norm("z\u030C"), "\u017E");             // z + caron = ž (Latin Extended-A)
  EXPECT_EQ(norm("a\u0328"), "\u0105");             // a + ogonek = ą
  EXPECT_EQ(norm("o\u030B"), "\u0151");             // o + double acute = ő
  EXPECT_EQ(norm("g\u0306"), "\u011F");             // g + breve = ğ
  EXPECT_EQ(norm("z\u0307"), "\u017C");             // z + dot above = ż
  EXPECT_EQ(norm("u\u0304"), "\u016B");             // u + macron = ū
  EXPECT_EQ(norm("\u0438\u0306"), "\u0439");        // Cyrillic и + breve = й
  EXPECT_EQ(norm("\u03B1\u0301"), "\u03AC");        // Greek α + acute = ά
  EXPECT_EQ(norm("\u03B9\u0308\u0301"), "\u0390");  // ι + diaeresis + acute = ΐ, composed twice
}

TEST(ExtractionNormalize, ComposesThenFoldsCapitals) {
  EXPECT_EQ(norm("E\u0301"), "\u00E9");       // É, then folded to é
  EXPECT_EQ(norm("S\u030C"), "\u0161");       // Š → š
  EXPECT_EQ(norm("I\u0307"), "i");            // İ → i
  EXPECT_EQ(norm("\u0415\u0308"), "\u0451");  // Ё → ё
}

TEST(ExtractionNormalize, KeepsMarksWithoutAPrecomposedForm) {
  EXPECT_EQ(norm("q\u0301"), "q\u0301");            // no q-acute in Unicode
  EXPECT_EQ(norm("\u0301x"), "\u0301x");            // a mark with nothing before it
  EXPECT_EQ(norm("e\u0323"), "e\u0323");            // dot below: ẹ lies outside the covered blocks
  EXPECT_EQ(norm("\u00E9\u0301"), "\u00E9\u0301");  // é has no composition with a second acute
}

TEST(ExtractionNormalize, PrecomposedAndDecomposedMeet) {
  EXPECT_EQ(norm("Zo\u00EB \u0160imi\u0107"), norm("Zoe\u0308 S\u030Cimic\u0301"));
  EXPECT_EQ(norm("Zo\u00EB \u0160imi\u0107"), "zo\u00EB \u0161imi\u0107");
}

TEST(ExtractionNormalize, FoldsCase) {
  EXPECT_EQ(norm("HeLLo WORLD"), "hello world");
  EXPECT_EQ(norm("\u00C0\u00C9\u00D6\u00DE"), "\u00E0\u00E9\u00F6\u00FE");  // Latin-1 À É Ö Þ
  EXPECT_EQ(norm("\u00D7\u00F7"), "\u00D7\u00F7");                          // × and ÷ have no case
  EXPECT_EQ(norm("\u0100\u0102\u0132"), "\u0101\u0103\u0133");              // Ā Ă Ĳ
  EXPECT_EQ(norm("\u0139\u0141\u0147"), "\u013A\u0142\u0148");              // Ĺ Ł Ň (odd capitals)
  EXPECT_EQ(norm("\u014A\u0150\u0176"), "\u014B\u0151\u0177");              // Ŋ Ő Ŷ (even again)
  EXPECT_EQ(norm("\u0179\u017B\u017D"), "\u017A\u017C\u017E");              // Ź Ż Ž
  EXPECT_EQ(norm("\u0178"), "\u00FF");                                      // Ÿ → ÿ
  EXPECT_EQ(norm("\u0130"), "i");                                           // İ → i
  EXPECT_EQ(norm("\u0131"), "\u0131");                                      // ı stays
  EXPECT_EQ(norm("\u017F"), "s");                                           // long s
  EXPECT_EQ(norm("Stra\u00DFe"), "strasse");                                // ß → ss
  EXPECT_EQ(norm("\u1E9E"), "ss");                                          // ẞ → ss
  EXPECT_EQ(norm("\u00B5"), "\u03BC");                                      // micro sign → μ
  EXPECT_EQ(norm("\u0391\u0398\u03A9"), "\u03B1\u03B8\u03C9");              // Α Θ Ω
  EXPECT_EQ(norm("\u0386\u0388\u038C\u038F"), "\u03AC\u03AD\u03CC\u03CE");  // Ά Έ Ό Ώ
  EXPECT_EQ(norm("\u03C2"), "\u03C3");                                      // final ς → σ
  EXPECT_EQ(norm("\u041C\u041E\u0421\u041A\u0412\u0410"), "\u043C\u043E\u0441\u043A\u0432\u0430");  // МОСКВА
  EXPECT_EQ(norm("\u0400\u0401\u040F"), "\u0450\u0451\u045F");                                      // Ѐ Ё Џ
  EXPECT_EQ(norm("\u6771\u4EAC"), "\u6771\u4EAC");                                                  // 東京: no case
}

TEST(ExtractionNormalize, CollapsesWhitespaceRuns) {
  EXPECT_EQ(norm("a \t\n\r\v\fb"), "a b");
  EXPECT_EQ(norm("  a   b  "), "a b");
  EXPECT_EQ(norm("a\u00A0b"), "a b");              // NBSP
  EXPECT_EQ(norm("a\u0085b"), "a b");              // next line
  EXPECT_EQ(norm("a\u1680b"), "a b");              // ogham space
  EXPECT_EQ(norm("a\u2000\u2003\u200Ab"), "a b");  // en quad, em space, hair space
  EXPECT_EQ(norm("a\u2028\u2029b"), "a b");        // line and paragraph separators
  EXPECT_EQ(norm("a\u202Fb\u205Fc\u3000d"), "a b c d");
  EXPECT_EQ(norm("a\u00A0\n \u3000b"), "a b");  // mixed run: one space
}

TEST(ExtractionNormalize, MapsTypographicQuotesAndDashes) {
  EXPECT_EQ(norm("\u2018a\u2019 \u201Ab\u201B"), "'a' 'b'");
  EXPECT_EQ(norm("\u201Ca\u201D \u201Eb\u201F"), "\"a\" \"b\"");
  EXPECT_EQ(norm("\u2032\u2033"), "'\"");  // prime, double prime
  EXPECT_EQ(norm("\u2010\u2011\u2012\u2013\u2014\u2015\u2212"), "-------");
  EXPECT_EQ(norm("2024\u201303\u201304"), "2024-03-04");
}

TEST(ExtractionNormalize, RemovesInvisibleCharacters) {
  EXPECT_EQ(norm("ex\u00ADam\u00ADple"), "example");  // soft hyphens
  EXPECT_EQ(norm("a\u200Bb\u200Cc\u200Dd\u2060e\uFEFFf"), "abcdef");
  EXPECT_EQ(norm("\uFEFFhello"), "hello");     // BOM
  EXPECT_EQ(norm("e\u200B\u0301"), "\u00E9");  // removed before composing
}

TEST(ExtractionNormalize, ReplacesInvalidUtf8) {
  const std::string r = "\uFFFD";
  EXPECT_EQ(norm("\xFF"), r);
  EXPECT_EQ(norm("a\x80z"), "a" + r + "z");                    // stray continuation byte
  EXPECT_EQ(norm("a\xC3"), "a" + r);                           // truncated at the end
  EXPECT_EQ(norm("\xE2\x82"), r + r);                          // truncated three-byte sequence
  EXPECT_EQ(norm("\xC3(x"), r + "(x");                         // lead byte without continuation
  EXPECT_EQ(norm("\xC0\xAF"), r + r);                          // overlong '/'
  EXPECT_EQ(norm("\xE0\x80\xAF"), r + r + r);                  // overlong, three bytes
  EXPECT_EQ(norm("\xED\xA0\x80"), r + r + r);                  // UTF-16 surrogate U+D800
  EXPECT_EQ(norm("\xF4\x90\x80\x80"), r + r + r + r);          // above U+10FFFF
  EXPECT_EQ(norm("\xF8\x88\x80\x80\x80"), r + r + r + r + r);  // five-byte form
  EXPECT_EQ(norm("\xF0\x9F\x98\x80"), "\xF0\x9F\x98\x80");     // a valid 4-byte emoji is kept
  EXPECT_EQ(norm("A\xFF\u0301"), "a" + r + "\u0301");          // a mark after U+FFFD stays
}

TEST(ExtractionNormalize, IsIdempotent) {
  const std::string mixed =
      "  \u201CZoe\u0308\u201D \xFF\u00A0MOSKVA \u041C\u043E\u0441\u043A\u0432\u0430\u2014\u6771\u4EAC\u00AD "
      "Stra\u00DFe\t\tE\u0301 ";
  const std::string once = norm(mixed);
  EXPECT_EQ(once, "\"zo\u00EB\" \uFFFD moskva \u043C\u043E\u0441\u043A\u0432\u0430-\u6771\u4EAC strasse \u00E9");
  EXPECT_EQ(norm(once), once);
}

}  // namespace
}  // namespace keel
