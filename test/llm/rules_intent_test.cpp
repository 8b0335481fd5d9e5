// The rules model's task reader: intents, path and search-text extraction, regex escaping and line
// counting.
#include "llm/rules_intent.hpp"

#include <gtest/gtest.h>

namespace keel::detail {
namespace {

struct Case {
  const char* task;
  RulesIntent intent;
  const char* path;
  const char* pattern;
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.task; }

class PlanTest : public ::testing::TestWithParam<Case> {};

TEST_P(PlanTest, PicksIntentAndArguments) {
  const Case& c = GetParam();
  RulesPlan plan = plan_rules_task(c.task);
  EXPECT_EQ(plan.intent, c.intent) << c.task;
  EXPECT_EQ(plan.path, c.path) << c.task;
  EXPECT_EQ(plan.pattern, c.pattern) << c.task;
}

constexpr RulesIntent kList = RulesIntent::kListFiles;
constexpr RulesIntent kRead = RulesIntent::kReadFile;
constexpr RulesIntent kSearch = RulesIntent::kSearch;
constexpr RulesIntent kCount = RulesIntent::kCountLines;
constexpr RulesIntent kTime = RulesIntent::kDateTime;
constexpr RulesIntent kNone = RulesIntent::kNone;

INSTANTIATE_TEST_SUITE_P(ListFiles, PlanTest,
                         ::testing::Values(Case{"list files", kList, ".", ""},
                                           Case{"list the files in src", kList, "src", ""},
                                           Case{"what files are here?", kList, ".", ""},
                                           Case{"show directory docs", kList, "docs", ""}, Case{"ls", kList, ".", ""},
                                           Case{"ls src/lib", kList, "src/lib", ""},
                                           Case{"ls -la src", kList, "src", ""},
                                           Case{"Please list the files in the src folder.", kList, "src", ""},
                                           Case{"list files in the current directory", kList, ".", ""},
                                           Case{"which files are in 'my docs'?", kList, "my docs", ""},
                                           Case{"show me the files in test/llm", kList, "test/llm", ""}));

INSTANTIATE_TEST_SUITE_P(ReadFile, PlanTest,
                         ::testing::Values(Case{"read README.md", kRead, "README.md", ""},
                                           Case{"show me notes/a.txt", kRead, "notes/a.txt", ""},
                                           Case{"cat x.json", kRead, "x.json", ""},
                                           Case{"print the contents of y", kRead, "y", ""},
                                           Case{"Read README.md.", kRead, "README.md", ""},
                                           Case{"read \"my notes.txt\"", kRead, "my notes.txt", ""},
                                           Case{"can you open `src/main.cpp`?", kRead, "src/main.cpp", ""},
                                           Case{"what's in config.yaml?", kRead, "config.yaml", ""},
                                           Case{"read Makefile", kRead, "Makefile", ""}, Case{"read", kNone, "", ""},
                                           Case{"read it", kNone, "", ""}));

INSTANTIATE_TEST_SUITE_P(
    Search, PlanTest,
    ::testing::Values(Case{"search for TODO", kSearch, ".", "TODO"}, Case{"find 'foo' in src", kSearch, "src", "foo"},
                      Case{"grep error", kSearch, ".", "error"},
                      Case{"search for foo bar in src/", kSearch, "src/", "foo bar"},
                      Case{"search for 'sign in' in the docs folder", kSearch, "docs", "sign in"},
                      Case{"search src for TODO", kSearch, "src", "TODO"},
                      Case{"search the include folder for Status", kSearch, "include", "Status"},
                      Case{"find all occurrences of foo.bar() in src", kSearch, "src", "foo.bar()"},
                      Case{"look for \"a+b\"", kSearch, ".", "a+b"}, Case{"grep -r error src", kSearch, "src", "error"},
                      Case{"grep 'a b' src", kSearch, "src", "a b"},
                      Case{"can you search for list of names?", kSearch, ".", "list of names"},
                      Case{"I want to do a search for widget", kSearch, ".", "widget"}, Case{"search", kNone, "", ""}));

INSTANTIATE_TEST_SUITE_P(CountLines, PlanTest,
                         ::testing::Values(Case{"count lines in main.cpp", kCount, "main.cpp", ""},
                                           Case{"how many lines does README.md have?", kCount, "README.md", ""},
                                           Case{"count the lines of notes", kCount, "notes", ""},
                                           Case{"what is the number of lines in src/a.c", kCount, "src/a.c", ""},
                                           Case{"wc -l x.txt", kCount, "x.txt", ""},
                                           Case{"count lines", kNone, "", ""}));

INSTANTIATE_TEST_SUITE_P(DateTime, PlanTest,
                         ::testing::Values(Case{"what time is it", kTime, "", ""},
                                           Case{"What's the date today?", kTime, "", ""},
                                           Case{"what day is it", kTime, "", ""}, Case{"date", kTime, "", ""},
                                           Case{"explain the date format in config.yaml", kNone, "", ""}));

INSTANTIATE_TEST_SUITE_P(Unknown, PlanTest,
                         ::testing::Values(Case{"write a poem", kNone, "", ""}, Case{"", kNone, "", ""},
                                           Case{"   ", kNone, "", ""}, Case{"delete everything", kNone, "", ""}));

TEST(PlanTool, NamesTheTool) {
  EXPECT_EQ(plan_rules_task("ls").tool, "fs_list");
  EXPECT_EQ(plan_rules_task("cat a.txt").tool, "fs_read");
  EXPECT_EQ(plan_rules_task("count lines in a.txt").tool, "fs_read");
  EXPECT_EQ(plan_rules_task("grep x").tool, "fs_search");
  EXPECT_EQ(plan_rules_task("what time is it").tool, "get_datetime");
  EXPECT_EQ(plan_rules_task("hello").tool, "");
}

TEST(EscapeRe2Literal, EscapesEveryMetacharacter) {
  EXPECT_EQ(escape_re2_literal("TODO"), "TODO");
  EXPECT_EQ(escape_re2_literal("a.b*c+d?"), "a\\.b\\*c\\+d\\?");
  EXPECT_EQ(escape_re2_literal("f(x)[0]{1}"), "f\\(x\\)\\[0\\]\\{1\\}");
  EXPECT_EQ(escape_re2_literal("^a|b$\\"), "\\^a\\|b\\$\\\\");
  EXPECT_EQ(escape_re2_literal("sign in / out - ok"), "sign in / out - ok");
  EXPECT_EQ(escape_re2_literal(""), "");
}

TEST(CountLines, CountsNewlineTerminatedAndLastPartialLine) {
  EXPECT_EQ(count_lines(""), 0u);
  EXPECT_EQ(count_lines("a"), 1u);
  EXPECT_EQ(count_lines("a\n"), 1u);
  EXPECT_EQ(count_lines("a\nb"), 2u);
  EXPECT_EQ(count_lines("a\nb\n"), 2u);
  EXPECT_EQ(count_lines("\n\n\n"), 3u);
  EXPECT_EQ(count_lines("a\r\nb\r\n"), 2u);
}

TEST(CountFsReadLines, PlainTextIsCountedExactly) {
  EXPECT_EQ(count_fs_read_lines("a\nb\n").lines, 2u);
  EXPECT_TRUE(count_fs_read_lines("a\nb\n").complete);
  EXPECT_EQ(count_fs_read_lines("[x]\n").lines, 1u);  // brackets alone are not a note
  EXPECT_EQ(count_fs_read_lines("").lines, 0u);
}

TEST(CountFsReadLines, EmptyFileMarker) {
  FileLineCount c = count_fs_read_lines("[empty file: 0 bytes]");
  EXPECT_EQ(c.lines, 0u);
  EXPECT_TRUE(c.complete);
}

TEST(CountFsReadLines, TruncationNoteIsNotCounted) {
  FileLineCount c = count_fs_read_lines("a\nb\nc\n[output truncated at 6 bytes: showing lines 1-3; use offset_line=4]");
  EXPECT_EQ(c.lines, 3u);
  EXPECT_FALSE(c.complete);
  c = count_fs_read_lines("xxxx\n[line 1 is longer than 4 bytes; only its start is shown]\n");
  EXPECT_EQ(c.lines, 1u);
  EXPECT_FALSE(c.complete);
}

}  // namespace
}  // namespace keel::detail
