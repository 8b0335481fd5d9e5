#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>

#include "keel/builtin_tools.hpp"
#include "keel/tool_executor.hpp"
#include "support/temp_dir.hpp"

namespace keel {
namespace {
namespace fs = std::filesystem;

class FsToolsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(tmp_.path() / "ws");
    root_ = tmp_.path() / "ws";
    options_.workspace_root = root_.string();
    options_.max_output_bytes = 4096;
    options_.max_write_bytes = 1024;
    options_.max_search_matches = 5;
    ASSERT_TRUE(register_builtin_tools(registry_, options_).ok());
  }

  // Runs a tool directly (the schema is checked separately, as the executor would).
  Result<std::string> run(std::string_view tool, const nlohmann::json& args) {
    Status valid = registry_.validate_arguments(tool, args);
    if (!valid.ok()) return valid;
    ToolContext ctx;
    ctx.stop = stop_.get_token();
    ctx.workspace_root = root_.string();
    ctx.call_id = "call_1";
    return registry_.find(tool)->execute(args, ctx);
  }

  std::string write(std::string_view rel, std::string_view content) {
    return tmp_.write("ws/" + std::string(rel), content).string();
  }

  testing::TempDir tmp_;
  fs::path root_;
  BuiltinToolOptions options_;
  ToolRegistry registry_;
  std::stop_source stop_;
};

TEST_F(FsToolsTest, RegistersEveryToolWithItsMetadata) {
  for (const char* name : {"fs_roots", "fs_list", "fs_tree", "fs_read", "fs_write", "fs_search", "fs_stat", "fs_walk",
                           "fs_copy", "fs_move", "fs_delete", "shell", "get_datetime"}) {
    ASSERT_NE(registry_.find(name), nullptr) << name;
  }
  for (const char* name : {"fs_roots", "fs_list", "fs_tree", "fs_read", "fs_search", "fs_stat", "fs_walk"}) {
    const ToolSpec& s = registry_.find(name)->spec();
    EXPECT_TRUE(s.read_only && s.concurrency_safe) << name;
    EXPECT_FALSE(s.cacheable) << name;  // files change outside keel
    EXPECT_EQ(s.risk, Risk::kLow) << name;
  }
  for (const char* name : {"fs_write", "fs_copy", "fs_move", "fs_delete"}) {
    const ToolSpec& w = registry_.find(name)->spec();
    EXPECT_FALSE(w.read_only || w.concurrency_safe || w.cacheable) << name;
    EXPECT_EQ(w.risk, std::string_view(name) == "fs_delete" ? Risk::kHigh : Risk::kMedium) << name;
  }
  const ToolSpec& sh = registry_.find("shell")->spec();
  EXPECT_EQ(sh.risk, Risk::kHigh);
  EXPECT_FALSE(sh.read_only || sh.concurrency_safe);
  for (const ToolSpec& spec : registry_.specs()) {
    auto schema = nlohmann::json::parse(spec.parameters_schema);
    EXPECT_EQ(schema["additionalProperties"], false) << spec.name;
    EXPECT_FALSE(spec.description.empty());
  }
}

TEST_F(FsToolsTest, RegistrationNeedsAnExistingRoot) {
  ToolRegistry registry;
  BuiltinToolOptions o;
  o.workspace_root = (tmp_.path() / "missing").string();
  EXPECT_EQ(register_builtin_tools(registry, o).code(), ErrorCode::kInvalidArgument);
  ToolRegistry no_shell;
  o.workspace_root = root_.string();
  o.enable_shell = false;
  ASSERT_TRUE(register_builtin_tools(no_shell, o).ok());
  EXPECT_EQ(no_shell.find("shell"), nullptr);
}

TEST_F(FsToolsTest, WriteThenReadRoundTrip) {
  const std::string content = "line one\nline two\n\tünïcode ✓\nno newline at end";
  auto w = run("fs_write", {{"path", "notes/today.txt"}, {"content", content}});
  ASSERT_TRUE(w.ok()) << w.status().message();
  EXPECT_EQ(*w, "created notes/today.txt (" + std::to_string(content.size()) + " bytes)");
  EXPECT_EQ(testing::read_file(root_ / "notes" / "today.txt"), content);
  auto r = run("fs_read", {{"path", "notes/today.txt"}});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(*r, content);

  auto again = run("fs_write", {{"path", "notes/today.txt"}, {"content", "x"}});
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, "overwrote notes/today.txt (1 bytes; was " + std::to_string(content.size()) + " bytes)");
  auto append = run("fs_write", {{"path", "notes/today.txt"}, {"content", "yz"}, {"append", true}});
  ASSERT_TRUE(append.ok());
  EXPECT_EQ(*append, "appended 2 bytes to notes/today.txt (now 3 bytes)");
  EXPECT_EQ(testing::read_file(root_ / "notes" / "today.txt"), "xyz");
}

TEST_F(FsToolsTest, WriteRefusesLargeContentAndEscapes) {
  auto big = run("fs_write", {{"path", "big.txt"}, {"content", std::string(2000, 'x')}});
  EXPECT_EQ(big.status().code(), ErrorCode::kResourceExhausted);
  EXPECT_FALSE(fs::exists(root_ / "big.txt"));
  auto escape = run("fs_write", {{"path", "../escape.txt"}, {"content", "x"}});
  EXPECT_EQ(escape.status().code(), ErrorCode::kPermissionDenied);
  EXPECT_FALSE(fs::exists(tmp_.path() / "escape.txt"));
  auto dir = run("fs_write", {{"path", "."}, {"content", "x"}});
  EXPECT_FALSE(dir.ok());
}

TEST_F(FsToolsTest, SymlinkOutsideIsRefusedForReadAndWrite) {
  tmp_.write("secret.txt", "top secret\n");
  fs::create_symlink(tmp_.path() / "secret.txt", root_ / "link.txt");
  fs::create_directory_symlink(tmp_.path(), root_ / "up");
  auto read = run("fs_read", {{"path", "link.txt"}});
  EXPECT_EQ(read.status().code(), ErrorCode::kPermissionDenied);
  auto write = run("fs_write", {{"path", "link.txt"}, {"content", "pwned"}});
  EXPECT_EQ(write.status().code(), ErrorCode::kPermissionDenied);
  EXPECT_EQ(testing::read_file(tmp_.path() / "secret.txt"), "top secret\n");
  auto through_dir = run("fs_write", {{"path", "up/new.txt"}, {"content", "x"}});
  EXPECT_EQ(through_dir.status().code(), ErrorCode::kPermissionDenied);
  EXPECT_FALSE(fs::exists(tmp_.path() / "new.txt"));
  auto list = run("fs_list", {{"path", "up"}});
  EXPECT_EQ(list.status().code(), ErrorCode::kPermissionDenied);
}

TEST_F(FsToolsTest, ReadRefusesBinaryFiles) {
  write("blob.bin", std::string("PK\x03\x04\0\0data", 10));
  auto r = run("fs_read", {{"path", "blob.bin"}});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("binary file"), std::string::npos) << r.status().message();
}

TEST_F(FsToolsTest, ReadPagesThroughLines) {
  std::string text;
  for (int i = 1; i <= 10; ++i) text += "line " + std::to_string(i) + "\n";
  write("ten.txt", text);
  auto r = run("fs_read", {{"path", "ten.txt"}, {"offset_line", 3}, {"max_lines", 2}});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(*r, "line 3\nline 4\n[showing lines 3-4; more lines follow: use offset_line=5 to read on]");
  auto tail = run("fs_read", {{"path", "ten.txt"}, {"offset_line", 9}});
  ASSERT_TRUE(tail.ok());
  EXPECT_EQ(*tail, "line 9\nline 10\n");
  auto past = run("fs_read", {{"path", "ten.txt"}, {"offset_line", 50}});
  ASSERT_TRUE(past.ok());
  EXPECT_EQ(*past, "[offset_line 50 is past the end of 'ten.txt', which has 10 lines]");
  auto bad = run("fs_read", {{"path", "ten.txt"}, {"offset_line", 0}});
  EXPECT_EQ(bad.status().code(), ErrorCode::kInvalidArgument);
  write("empty.txt", "");
  EXPECT_EQ(*run("fs_read", {{"path", "empty.txt"}}), "[empty file: 0 bytes]");
}

TEST_F(FsToolsTest, ReadTakesAStartAndEndLine) {
  std::string text;
  for (int i = 1; i <= 10; ++i) text += "line " + std::to_string(i) + "\n";
  write("ten.txt", text);
  auto mid = run("fs_read", {{"path", "ten.txt"}, {"start_line", 4}, {"end_line", 6}});
  ASSERT_TRUE(mid.ok()) << mid.status().message();
  EXPECT_EQ(*mid, "line 4\nline 5\nline 6\n[showing lines 4-6; more lines follow: use offset_line=7 to read on]");
  auto to_end = run("fs_read", {{"path", "ten.txt"}, {"start_line", 9}, {"end_line", 10}});
  ASSERT_TRUE(to_end.ok());
  EXPECT_EQ(*to_end, "line 9\nline 10\n");
  auto past_end = run("fs_read", {{"path", "ten.txt"}, {"start_line", 10}, {"end_line", 30}});
  ASSERT_TRUE(past_end.ok());
  EXPECT_EQ(*past_end, "line 10\n");
  auto head = run("fs_read", {{"path", "ten.txt"}, {"end_line", 2}});
  ASSERT_TRUE(head.ok());
  EXPECT_EQ(*head, "line 1\nline 2\n[showing lines 1-2; more lines follow: use offset_line=3 to read on]");
  auto from = run("fs_read", {{"path", "ten.txt"}, {"start_line", 10}});
  ASSERT_TRUE(from.ok());
  EXPECT_EQ(*from, "line 10\n");

  auto backwards = run("fs_read", {{"path", "ten.txt"}, {"start_line", 5}, {"end_line", 4}});
  EXPECT_EQ(backwards.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(backwards.status().message().find("end_line 4 is before start_line 5"), std::string::npos)
      << backwards.status().message();
  auto mixed = run("fs_read", {{"path", "ten.txt"}, {"start_line", 2}, {"max_lines", 2}});
  EXPECT_EQ(mixed.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(mixed.status().message().find("not both"), std::string::npos) << mixed.status().message();
}

TEST_F(FsToolsTest, ReadRefusesBinaryFilesWhateverTheRange) {
  std::string blob = "text line\n";
  blob += std::string("\0\x01\x02", 3);
  write("mixed.bin", blob);
  auto r = run("fs_read", {{"path", "mixed.bin"}, {"start_line", 1}, {"end_line", 1}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("binary file"), std::string::npos) << r.status().message();
}

TEST_F(FsToolsTest, ReadCapsOutputWithANote) {
  std::string text;
  for (int i = 0; i < 1000; ++i) text += "0123456789 line " + std::to_string(i) + "\n";
  write("long.txt", text);
  auto r = run("fs_read", {{"path", "long.txt"}});
  ASSERT_TRUE(r.ok());
  EXPECT_LE(r->size(), options_.max_output_bytes + 200);
  EXPECT_NE(r->find("[output truncated at 4096 bytes"), std::string::npos) << r->substr(r->size() - 200);
  EXPECT_NE(r->find("use offset_line="), std::string::npos);
  write("one-line.txt", std::string(10000, 'a'));
  auto one = run("fs_read", {{"path", "one-line.txt"}});
  ASSERT_TRUE(one.ok());
  EXPECT_NE(one->find("is longer than 4096 bytes"), std::string::npos);
}

TEST_F(FsToolsTest, ReadErrorsAreActionable) {
  fs::create_directories(root_ / "dir");
  auto dir = run("fs_read", {{"path", "dir"}});
  EXPECT_NE(dir.status().message().find("use fs_list"), std::string::npos) << dir.status().message();
  auto missing = run("fs_read", {{"path", "nope.txt"}});
  EXPECT_EQ(missing.status().code(), ErrorCode::kNotFound);
}

TEST_F(FsToolsTest, ListShowsSortedEntriesWithTypeAndSize) {
  write("b.txt", "12345");
  write("a.txt", "");
  fs::create_directories(root_ / "src");
  fs::create_symlink("a.txt", root_ / "link");
  auto r = run("fs_list", nlohmann::json::object());
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(*r,
            "./ (4 entries)\n"
            "file  a.txt (0 bytes)\n"
            "file  b.txt (5 bytes)\n"
            "link  link -> a.txt\n"
            "dir   src/\n");
  auto empty = run("fs_list", {{"path", "src"}});
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(*empty, "src/ is empty");
  auto file = run("fs_list", {{"path", "b.txt"}});
  EXPECT_EQ(file.status().code(), ErrorCode::kInvalidArgument);
}

TEST_F(FsToolsTest, ListCapsAtAThousandEntries) {
  fs::create_directories(root_ / "many");
  for (int i = 0; i < 1005; ++i) write("many/f" + std::to_string(i), "");
  auto r = run("fs_list", {{"path", "many"}});
  ASSERT_TRUE(r.ok());
  EXPECT_NE(r->find("[listing truncated: showing the first 1000 of 1005 entries"), std::string::npos);
}

TEST_F(FsToolsTest, SearchFindsLinesWithRe2Syntax) {
  write("src/a.cpp", "int main() {\n  return 42;\n}\n");
  write("src/b.hpp", "// returns 7\nint seven();\n");
  write("notes.md", "Return policy\n");
  write(".git/config", "return in git\n");
  write("bin.dat", std::string("return\0\0", 8));
  auto r = run("fs_search", {{"pattern", R"(\breturn\s+\d+)"}});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(*r, "src/a.cpp:2:   return 42;\n");
  auto ci = run("fs_search", {{"pattern", "(?i)^return"}, {"path", "."}});
  ASSERT_TRUE(ci.ok());
  EXPECT_EQ(*ci, "notes.md:1: Return policy\n");
  auto glob = run("fs_search", {{"pattern", "int"}, {"glob", "*.hpp"}});
  ASSERT_TRUE(glob.ok());
  EXPECT_EQ(*glob, "src/b.hpp:2: int seven();\n");
  auto none = run("fs_search", {{"pattern", "zzz"}, {"path", "src"}});
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(*none, "no matches for 'zzz' in 2 files under src");
}

TEST_F(FsToolsTest, SearchReportsInvalidRegexAndStopsAtTheMatchLimit) {
  auto bad = run("fs_search", {{"pattern", "a(b"}});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("invalid regular expression 'a(b': missing )"), std::string::npos)
      << bad.status().message();
  std::string many;
  for (int i = 0; i < 20; ++i) many += "match\n";
  write("many.txt", many);
  auto r = run("fs_search", {{"pattern", "match"}});
  ASSERT_TRUE(r.ok());
  EXPECT_NE(r->find("many.txt:5: match\n[stopped after 5 matches"), std::string::npos) << *r;
  EXPECT_EQ(r->find("many.txt:6:"), std::string::npos);
}

TEST_F(FsToolsTest, SearchHonorsTheStopToken) {
  write("a.txt", "x\n");
  stop_.request_stop();
  auto r = run("fs_search", {{"pattern", "x"}});
  EXPECT_EQ(r.status().code(), ErrorCode::kCancelled);
}

TEST_F(FsToolsTest, StatReportsTypeSizeTimeAndPermissions) {
  const auto file = write("s.txt", "hello");
  fs::permissions(file, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  auto r = run("fs_stat", {{"path", "s.txt"}});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_NE(r->find("path: s.txt\ntype: file\nsize: 5 bytes\nmodified: "), std::string::npos) << *r;
  EXPECT_NE(r->find("permissions: rw-r----- (0640)"), std::string::npos) << *r;
  EXPECT_TRUE(std::regex_search(*r, std::regex(R"(modified: \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)"))) << *r;
  auto dir = run("fs_stat", {{"path", "."}});
  ASSERT_TRUE(dir.ok());
  EXPECT_NE(dir->find("type: directory"), std::string::npos);
}

TEST_F(FsToolsTest, ExecutorChecksSchemasOfBuiltins) {
  ToolExecutorOptions o;
  o.workspace_root = root_.string();
  ToolExecutor executor(registry_, o);
  std::vector<ToolCall> calls = {{"1", "fs_read", R"({"path": 5})"}, {"2", "fs_write", R"({"path":"a"})"}};
  auto results = executor.run_batch(calls, {}, {});
  EXPECT_EQ(results[0].content, "invalid arguments for fs_read: /path: expected string, got integer");
  EXPECT_EQ(results[1].content, "invalid arguments for fs_write: /content: missing required property");
}

}  // namespace
}  // namespace keel
