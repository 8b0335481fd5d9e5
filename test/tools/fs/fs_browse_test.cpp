// fs_roots, fs_tree, fs_walk (with its globs) and fs_list on configured roots.
#include <filesystem>

#include "fs_fixture.hpp"
#include "tools/fs/glob.hpp"

namespace keel::testing {
namespace {
namespace fs = std::filesystem;
using nlohmann::json;

using FsBrowseTest = FsFixture;

TEST_F(FsBrowseTest, RootsListsEveryRootAsJson) {
  auto r = run("fs_roots", json::object());
  ASSERT_TRUE(r.ok()) << r.status().message();
  const json j = json::parse(*r);
  ASSERT_EQ(j["roots"].size(), 3u);
  EXPECT_EQ(j["roots"][0], (json{{"name", "workspace"}, {"path", ws_.string()}, {"read_only", false}}));
  EXPECT_EQ(j["roots"][1], (json{{"name", "docs"}, {"path", docs_.string()}, {"read_only", true}}));
  EXPECT_EQ(j["roots"][2], (json{{"name", "notes"}, {"path", notes_.string()}, {"read_only", false}}));
  EXPECT_NE(j["usage"].get<std::string>().find("NAME:relative/path"), std::string::npos);
}

TEST_F(FsBrowseTest, TreeShowsEntriesDepthFirstWithTypesAndSizes) {
  put("ws/b.txt", "12345");
  put("ws/src/main.cpp", "int main() {}\n");
  put("ws/src/util/a.hpp", "");
  put("ws/src/util/deep/x.txt", "x");
  put("ws/.git/HEAD", "ref");
  fs::create_symlink("b.txt", ws_ / "link");
  auto r = run("fs_tree", json::object());
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(*r,
            "./ to depth 2: entries 1-6 of 6\n"
            "dir   .git/ (not expanded)\n"
            "file  b.txt (5 bytes)\n"
            "link  link -> b.txt\n"
            "dir   src/\n"
            "file  src/main.cpp (14 bytes)\n"
            "dir   src/util/ (2 entries)\n");
  auto deeper = run("fs_tree", {{"path", "src"}, {"depth", 5}});
  ASSERT_TRUE(deeper.ok());
  EXPECT_EQ(*deeper,
            "src/ to depth 5: entries 1-5 of 5\n"
            "file  src/main.cpp (14 bytes)\n"
            "dir   src/util/\n"
            "file  src/util/a.hpp (0 bytes)\n"
            "dir   src/util/deep/\n"
            "file  src/util/deep/x.txt (1 bytes)\n");
}

TEST_F(FsBrowseTest, TreePaginatesWithANoteNamingTheNextOffset) {
  for (int i = 0; i < 25; ++i) put("ws/d/f" + std::string(i < 10 ? "0" : "") + std::to_string(i), "");
  auto first = run("fs_tree", {{"path", "d"}, {"limit", 10}});
  ASSERT_TRUE(first.ok()) << first.status().message();
  EXPECT_NE(first->find("d/ to depth 2: entries 1-10 of 25\nfile  d/f00 (0 bytes)\n"), std::string::npos) << *first;
  EXPECT_NE(first->find("[more entries follow: call fs_tree again with offset=10]"), std::string::npos) << *first;
  auto last = run("fs_tree", {{"path", "d"}, {"limit", 10}, {"offset", 20}});
  ASSERT_TRUE(last.ok());
  EXPECT_NE(last->find("entries 21-25 of 25\nfile  d/f20 (0 bytes)"), std::string::npos) << *last;
  EXPECT_EQ(last->find("more entries"), std::string::npos);
  auto past = run("fs_tree", {{"path", "d"}, {"offset", 99}});
  ASSERT_TRUE(past.ok());
  EXPECT_EQ(*past, "[offset 99 is past the end: d/ has 25 entries down to depth 2]");
  auto file = run("fs_tree", {{"path", "d/f01"}});
  EXPECT_EQ(file.status().code(), ErrorCode::kInvalidArgument);
  auto bad_depth = run("fs_tree", {{"depth", 0}});
  EXPECT_EQ(bad_depth.status().code(), ErrorCode::kInvalidArgument);
}

TEST_F(FsBrowseTest, TreeAndListWorkInOtherRoots) {
  put("docs/api/index.md", "# api\n");
  auto tree = run("fs_tree", {{"path", "docs:"}});
  ASSERT_TRUE(tree.ok()) << tree.status().message();
  EXPECT_EQ(*tree,
            "docs: to depth 2: entries 1-2 of 2\n"
            "dir   docs:api/\n"
            "file  docs:api/index.md (6 bytes)\n");
  auto list = run("fs_list", {{"path", "docs:api"}});
  ASSERT_TRUE(list.ok()) << list.status().message();
  EXPECT_EQ(*list, "docs:api/ (1 entry)\nfile  index.md (6 bytes)\n");
  auto empty = run("fs_tree", {{"path", "notes:"}});
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(*empty, "notes: is empty");
}

TEST_F(FsBrowseTest, WalkListsFilesRecursivelyWithAGlob) {
  put("ws/a.cpp", "");
  put("ws/b.hpp", "");
  put("ws/README.md", "");
  put("ws/src/x.cpp", "");
  put("ws/src/sub/y.cpp", "");
  put("ws/src/sub/z.txt", "");
  put("ws/.git/objects/o.cpp", "");
  fs::create_symlink("a.cpp", ws_ / "alias.cpp");
  auto all = run("fs_walk", json::object());
  ASSERT_TRUE(all.ok()) << all.status().message();
  EXPECT_EQ(*all, "README.md\na.cpp\nb.hpp\nsrc/sub/y.cpp\nsrc/sub/z.txt\nsrc/x.cpp\n[6 files in all]\n");
  auto cpp = run("fs_walk", {{"glob", "*.cpp"}});
  ASSERT_TRUE(cpp.ok());
  EXPECT_EQ(*cpp, "a.cpp\nsrc/sub/y.cpp\nsrc/x.cpp\n[3 files matching '*.cpp' in all]\n");
  auto braces = run("fs_walk", {{"glob", "*.{hpp,md}"}});
  ASSERT_TRUE(braces.ok());
  EXPECT_EQ(*braces, "README.md\nb.hpp\n[2 files matching '*.{hpp,md}' in all]\n");
  auto under = run("fs_walk", {{"path", "src"}, {"glob", "sub/*"}});
  ASSERT_TRUE(under.ok());
  EXPECT_EQ(*under, "src/sub/y.cpp\nsrc/sub/z.txt\n[2 files matching 'sub/*' in all]\n");
  auto none = run("fs_walk", {{"glob", "*.rs"}});
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(*none, "no files matching '*.rs' under ./\n");
  auto bad = run("fs_walk", {{"glob", "[abc"}});
  EXPECT_EQ(bad.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("'[' without its ']'"), std::string::npos) << bad.status().message();
}

TEST_F(FsBrowseTest, WalkPaginates) {
  for (int i = 0; i < 7; ++i) put("notes/n" + std::to_string(i) + ".md", "");
  auto page = run("fs_walk", {{"path", "notes:"}, {"max_results", 3}});
  ASSERT_TRUE(page.ok()) << page.status().message();
  EXPECT_EQ(*page,
            "notes:n0.md\nnotes:n1.md\nnotes:n2.md\n"
            "[files 1-3 shown; more follow: call fs_walk again with offset=3]\n");
  auto next = run("fs_walk", {{"path", "notes:"}, {"max_results", 3}, {"offset", 6}});
  ASSERT_TRUE(next.ok());
  EXPECT_EQ(*next, "notes:n6.md\n[7 files in all]\n");
  auto past = run("fs_walk", {{"path", "notes:"}, {"offset", 9}});
  ASSERT_TRUE(past.ok());
  EXPECT_EQ(*past, "[offset 9 is past the end: there are 7 files under notes:]\n");
}

TEST_F(FsBrowseTest, WalkAndTreeHonourTheStopToken) {
  put("ws/a/b.txt", "");
  stop_.request_stop();
  EXPECT_EQ(run("fs_walk", json::object()).status().code(), ErrorCode::kCancelled);
  EXPECT_EQ(run("fs_tree", json::object()).status().code(), ErrorCode::kCancelled);
}

TEST(GlobTest, MatchesShellStylePatterns) {
  const auto match = [](std::string_view pattern, std::string_view path) {
    auto g = detail::Glob::compile(pattern);
    EXPECT_TRUE(g.ok()) << g.status().message();
    return g.ok() && g->matches(path);
  };
  EXPECT_TRUE(match("*.cpp", "src/a.cpp"));  // no '/': the name alone
  EXPECT_FALSE(match("*.cpp", "src/a.cpp.bak"));
  EXPECT_TRUE(match("src/*.cpp", "src/a.cpp"));
  EXPECT_FALSE(match("src/*.cpp", "src/x/a.cpp"));  // '*' stops at '/'
  EXPECT_TRUE(match("src/**/*.cpp", "src/x/y/a.cpp"));
  EXPECT_TRUE(match("src/**/*.cpp", "src/a.cpp"));  // "**/" may match no directory
  EXPECT_TRUE(match("**/test_*.py", "test_a.py"));
  EXPECT_TRUE(match("**", "any/thing/at/all"));
  EXPECT_TRUE(match("?.txt", "\u00e9.txt"));  // one code point
  EXPECT_FALSE(match("?.txt", "ab.txt"));
  EXPECT_TRUE(match("[a-c]x", "bx"));
  EXPECT_FALSE(match("[!a-c]x", "bx"));
  EXPECT_TRUE(match("[]]x", "]x"));
  EXPECT_TRUE(match("*.{c,h}", "m.h"));
  EXPECT_FALSE(match("*.{c,h}", "m.cc"));
  EXPECT_TRUE(match("\\*.txt", "*.txt"));
  EXPECT_FALSE(match("\\*.txt", "a.txt"));
  EXPECT_TRUE(match("a*b*c*d*e*f", "aXbXcXdXeXf"));
  EXPECT_FALSE(match("a*a*a*a*a*a*a*a*b", std::string(200, 'a')));  // no exponential backtracking
}

TEST(GlobTest, RefusesMalformedPatterns) {
  EXPECT_NE(detail::Glob::compile("{a,b").status().message().find("'{' without its '}'"), std::string::npos);
  EXPECT_NE(detail::Glob::compile("{a,{b}}").status().message().find("nests braces"), std::string::npos);
  EXPECT_NE(detail::Glob::compile("x\\").status().message().find("lone '\\'"), std::string::npos);
  EXPECT_EQ(detail::Glob::compile("").status().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(detail::Glob::compile("{a,b}{c,d}{e,f}{g,h}{i,j}{k,l}{m,n}").status().code(),
            ErrorCode::kInvalidArgument);
}

}  // namespace
}  // namespace keel::testing
