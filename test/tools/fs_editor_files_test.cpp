// fs_read and fs_write through an editor (BuiltinToolOptions::text_files, ACP's fs capability):
// the editor's buffer is read instead of the disk, writes go to it, line ranges and the output cap
// still apply, and paths are confined to the roots before the editor is asked.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include "keel/builtin_tools.hpp"
#include "support/temp_dir.hpp"

namespace keel {
namespace {
namespace fs = std::filesystem;

// An editor holding buffers in memory, recording what it was asked.
class FakeEditor final : public TextFileAccess {
 public:
  bool reads() const override { return true; }
  bool writes() const override { return true; }
  Result<std::string> read(const std::string& path) override {
    asked.push_back("read " + path);
    auto it = buffers.find(path);
    if (it == buffers.end()) return Status::NotFound("no buffer for " + path);
    return it->second;
  }
  Status write(const std::string& path, const std::string& content) override {
    asked.push_back("write " + path);
    buffers[path] = content;
    return Status::Ok();
  }
  std::map<std::string, std::string> buffers;
  std::vector<std::string> asked;
};

class FsEditorFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(tmp_.path() / "ws");
    root_ = fs::canonical(tmp_.path() / "ws");
    options_.workspace_root = root_.string();
    options_.max_output_bytes = 64;
    options_.text_files = editor_;
    ASSERT_TRUE(register_builtin_tools(registry_, options_).ok());
  }
  Result<std::string> run(std::string_view tool, const nlohmann::json& args) {
    ToolContext ctx;
    ctx.workspace_root = root_.string();
    return registry_.find(tool)->execute(args, ctx);
  }

  testing::TempDir tmp_;
  fs::path root_;
  std::shared_ptr<FakeEditor> editor_ = std::make_shared<FakeEditor>();
  BuiltinToolOptions options_;
  ToolRegistry registry_;
};

TEST_F(FsEditorFilesTest, ReadsTheEditorsBufferWithLineRangesAndTheCap) {
  tmp_.write("ws/a.txt", "on disk\n");
  const std::string a = (root_ / "a.txt").string();
  editor_->buffers[a] = "one\ntwo\nthree\n";
  Result<std::string> all = run("fs_read", {{"path", "a.txt"}});
  ASSERT_TRUE(all.ok()) << all.status().message();
  EXPECT_EQ(*all, "one\ntwo\nthree\n");
  Result<std::string> two = run("fs_read", {{"path", "a.txt"}, {"start_line", 2}, {"end_line", 2}});
  ASSERT_TRUE(two.ok());
  EXPECT_EQ(two->substr(0, 4), "two\n");
  EXPECT_NE(two->find("offset_line=3"), std::string::npos) << *two;
  editor_->buffers[a] = std::string(200, 'x') + "\n";  // longer than the 64-byte cap
  Result<std::string> cut = run("fs_read", {{"path", "a.txt"}});
  ASSERT_TRUE(cut.ok());
  EXPECT_NE(cut->find("longer than 64 bytes"), std::string::npos) << *cut;
  editor_->buffers[a] = std::string("bin\0ary", 7);
  EXPECT_FALSE(run("fs_read", {{"path", "a.txt"}}).ok());
}

TEST_F(FsEditorFilesTest, WritesAndAppendsThroughTheEditorNotTheDisk) {
  Result<std::string> made = run("fs_write", {{"path", "sub/new.txt"}, {"content", "hello"}});
  ASSERT_TRUE(made.ok()) << made.status().message();
  const std::string p = (root_ / "sub" / "new.txt").string();
  EXPECT_EQ(editor_->buffers[p], "hello");
  EXPECT_FALSE(fs::exists(p));  // the editor saves it, not keel
  tmp_.write("ws/log.txt", "disk\n");
  const std::string log = (root_ / "log.txt").string();
  editor_->buffers[log] = "buffer\n";
  ASSERT_TRUE(run("fs_write", {{"path", "log.txt"}, {"content", "more\n"}, {"append", true}}).ok());
  EXPECT_EQ(editor_->buffers[log], "buffer\nmore\n");
}

TEST_F(FsEditorFilesTest, PathsOutsideTheRootsNeverReachTheEditor) {
  EXPECT_FALSE(run("fs_read", {{"path", "../outside.txt"}}).ok());
  EXPECT_FALSE(run("fs_write", {{"path", "/etc/passwd"}, {"content", "x"}}).ok());
  EXPECT_FALSE(run("fs_read", {{"path", "missing.txt"}}).ok());  // not on disk: not asked either
  EXPECT_TRUE(editor_->asked.empty()) << editor_->asked.front();
}

}  // namespace
}  // namespace keel
