// core/text/utf8_text: well-formedness (Unicode Table 3-7), decoding, encoding, counting, the
// three ways to cut (at a character start, at a byte limit, before an unfinished tail) and the
// sanitizer, on valid text and on every kind of invalid sequence.
#include "core/text/utf8_text.hpp"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

namespace keel::detail {
namespace {

// One example of each sequence length: $ (1), é (2), € (3), 😀 (4).
const std::string kDollar = "$";
const std::string kEAcute = "\xC3\xA9";
const std::string kEuro = "\xE2\x82\xAC";
const std::string kGrin = "\xF0\x9F\x98\x80";

TEST(Utf8TextTest, SequenceLengthOfWellFormedText) {
  EXPECT_EQ(utf8_sequence_length(kDollar, 0), 1u);
  EXPECT_EQ(utf8_sequence_length(kEAcute, 0), 2u);
  EXPECT_EQ(utf8_sequence_length(kEuro, 0), 3u);
  EXPECT_EQ(utf8_sequence_length(kGrin, 0), 4u);
  EXPECT_EQ(utf8_sequence_length(std::string_view("\0", 1), 0), 1u);
  // The edges of the table: U+0080, U+07FF, U+0800, U+FFFF, U+10000, U+10FFFF, U+D7FF, U+E000.
  for (const char* s : {"\xC2\x80", "\xDF\xBF", "\xE0\xA0\x80", "\xEF\xBF\xBF", "\xF0\x90\x80\x80",
                        "\xF4\x8F\xBF\xBF", "\xED\x9F\xBF", "\xEE\x80\x80"}) {
    const std::string_view v(s);
    EXPECT_EQ(utf8_sequence_length(v, 0), v.size()) << v.size();
  }
}

TEST(Utf8TextTest, SequenceLengthRejectsEveryIllFormedStart) {
  const std::vector<std::string> bad = {
      "\x80",              // stray continuation byte
      "\xBF",              // stray continuation byte
      "\xC0\x80",          // overlong NUL
      "\xC1\xBF",          // overlong U+007F
      "\xE0\x80\x80",      // overlong U+0000 in three bytes
      "\xE0\x9F\xBF",      // overlong U+07FF
      "\xF0\x80\x80\x80",  // overlong in four bytes
      "\xF0\x8F\xBF\xBF",  // overlong U+FFFF
      "\xED\xA0\x80",      // surrogate U+D800
      "\xED\xBF\xBF",      // surrogate U+DFFF
      "\xF4\x90\x80\x80",  // U+110000
      "\xF5\x80\x80\x80",  // lead byte past U+10FFFF
      "\xF8\x88\x80\x80",  // five-byte form
      "\xFF",              // never in UTF-8
      "\xC3\x41",          // continuation missing
      "\xE2\x82\x41",      // last continuation missing
      "\xF0\x9F\x98\x41",  // last continuation missing
  };
  for (const std::string& s : bad) EXPECT_EQ(utf8_sequence_length(s, 0), 0u) << testing::PrintToString(s);
}

TEST(Utf8TextTest, TruncatedSequencesAreIllFormed) {
  for (const std::string& full : {kEAcute, kEuro, kGrin}) {
    for (size_t keep = 1; keep < full.size(); ++keep) {
      EXPECT_EQ(utf8_sequence_length(full.substr(0, keep), 0), 0u) << full.size() << " " << keep;
    }
  }
  // Valid in the middle of a longer text: the length is read from i, not from the start.
  const std::string text = "a" + kGrin + "b";
  EXPECT_EQ(utf8_sequence_length(text, 1), 4u);
  EXPECT_EQ(utf8_sequence_length(text, 2), 0u);
  EXPECT_EQ(utf8_sequence_length(text, 5), 1u);
}

TEST(Utf8TextTest, DecodeWalksCodePointsAndReplacesBadBytesOneByOne) {
  const std::string text = "a" + kEAcute + kEuro + kGrin;
  std::vector<char32_t> got;
  for (size_t pos = 0; pos < text.size();) got.push_back(decode_utf8(text, pos));
  EXPECT_EQ(got, (std::vector<char32_t>{U'a', 0xE9, 0x20AC, 0x1F600}));

  const std::string bad = "\xED\xA0\x80" "x" "\xE2\x82";  // a surrogate, then a cut-off euro
  got.clear();
  for (size_t pos = 0; pos < bad.size();) got.push_back(decode_utf8(bad, pos));
  EXPECT_EQ(got, (std::vector<char32_t>{kReplacementChar, kReplacementChar, kReplacementChar, U'x', kReplacementChar,
                                        kReplacementChar}));

  size_t end = text.size();
  EXPECT_EQ(decode_utf8_before(text, end), 0x1F600u);
  EXPECT_EQ(end, text.size() - 4);
  EXPECT_EQ(decode_utf8_before(text, end), 0x20ACu);
  EXPECT_EQ(decode_utf8_before(text, end), 0xE9u);
  EXPECT_EQ(decode_utf8_before(text, end), U'a');
  EXPECT_EQ(end, 0u);
}

TEST(Utf8TextTest, AppendEncodesWhatDecodeReads) {
  for (char32_t cp : {U'\0', U'A', char32_t{0x7F}, char32_t{0x80}, char32_t{0x7FF}, char32_t{0x800},
                      char32_t{0xFFFD}, char32_t{0xFFFF}, char32_t{0x10000}, char32_t{0x10FFFF}}) {
    std::string s;
    append_utf8(s, cp);
    size_t pos = 0;
    EXPECT_EQ(utf8_sequence_length(s, 0), s.size()) << static_cast<uint32_t>(cp);
    EXPECT_EQ(decode_utf8(s, pos), cp);
    EXPECT_EQ(pos, s.size());
  }
  std::string euro;
  append_utf8(euro, 0x20AC);
  EXPECT_EQ(euro, kEuro);
}

TEST(Utf8TextTest, CountAndPrefixBytesGoByCharacterStarts) {
  const std::string text = kDollar + kEAcute + kEuro + kGrin;
  EXPECT_EQ(utf8_char_count(text), 4u);
  EXPECT_EQ(utf8_char_count(""), 0u);
  EXPECT_EQ(utf8_char_count("\xFF\xFE"), 2u);  // invalid lead bytes count as one each
  EXPECT_EQ(utf8_char_count("\x80\x80"), 0u);  // stray continuation bytes do not
  EXPECT_EQ(utf8_prefix_bytes(text, 0), 0u);
  EXPECT_EQ(utf8_prefix_bytes(text, 1), 1u);
  EXPECT_EQ(utf8_prefix_bytes(text, 2), 3u);
  EXPECT_EQ(utf8_prefix_bytes(text, 3), 6u);
  EXPECT_EQ(utf8_prefix_bytes(text, 4), text.size());
  EXPECT_EQ(utf8_prefix_bytes(text, 99), text.size());
}

// Every byte position of a 4-byte sequence, for each of the three cuts.
TEST(Utf8TextTest, CutAtEveryByteOfAFourByteSequence) {
  const std::string text = "ab" + kGrin + "c";  // the sequence takes bytes 2 to 5
  for (size_t limit = 0; limit <= text.size(); ++limit) {
    const size_t want = limit >= 3 && limit <= 5 ? 2 : limit;  // inside the sequence: before it
    EXPECT_EQ(utf8_char_start(text, limit), limit >= 3 && limit <= 5 ? 2 : limit) << limit;
    EXPECT_EQ(utf8_cut_length(text, limit), want) << limit;
    const std::string prefix = text.substr(0, limit);
    EXPECT_EQ(utf8_complete_prefix(prefix), want) << limit;
    EXPECT_EQ(sanitize_utf8(text.substr(0, utf8_cut_length(text, limit))), text.substr(0, want)) << limit;
  }
  EXPECT_EQ(utf8_cut_length(text, 99), text.size());
}

TEST(Utf8TextTest, CutsOnTextThatIsNotUtf8) {
  const std::string run(6, '\x80');  // nothing but continuation bytes
  EXPECT_EQ(utf8_char_start(run, 5), 0u);       // steps back as far as it must
  EXPECT_EQ(utf8_cut_length(run, 5), 5u);       // gives up after three bytes: cuts at the limit
  EXPECT_EQ(utf8_complete_prefix(run), 6u);     // no lead byte: left alone
  EXPECT_EQ(utf8_complete_prefix("a\xF0\x9F\x98\x80\x80"), 6u);  // four continuation bytes: not UTF-8, left alone
  EXPECT_EQ(utf8_complete_prefix("a\xC3"), 1u);
  EXPECT_EQ(utf8_complete_prefix("a\xC3\xA9"), 3u);
  EXPECT_EQ(utf8_complete_prefix("a\xFF"), 2u);  // an invalid lead byte needs nothing more
  EXPECT_EQ(utf8_complete_prefix(""), 0u);
}

TEST(Utf8TextTest, SanitizeReplacesEachBadByteAndKeepsGoodText) {
  const std::string good = "plain " + kEAcute + kEuro + kGrin;
  EXPECT_EQ(sanitize_utf8(good), good);
  const std::string fffd = "\xEF\xBF\xBD";
  EXPECT_EQ(sanitize_utf8("a\x80z"), "a" + fffd + "z");
  EXPECT_EQ(sanitize_utf8("\xC0\x80"), fffd + fffd);                   // overlong: both bytes
  EXPECT_EQ(sanitize_utf8("\xED\xA0\x80"), fffd + fffd + fffd);        // surrogate: all three
  EXPECT_EQ(sanitize_utf8("x\xE2\x82"), "x" + fffd + fffd);            // truncated at the end
  EXPECT_EQ(sanitize_utf8("\xE2\x82\x41"), fffd + fffd + "A");         // the ASCII byte survives
  EXPECT_EQ(sanitize_utf8("\xF4\x90\x80\x80"), fffd + fffd + fffd + fffd);  // above U+10FFFF
  EXPECT_EQ(sanitize_utf8(std::string_view("\0", 1)), std::string(1, '\0'));
}

}  // namespace
}  // namespace keel::detail
