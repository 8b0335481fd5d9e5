#include "tools/workspace.hpp"

#include <gtest/gtest.h>

#include <filesystem>

#include "support/temp_dir.hpp"

namespace keel::detail {
namespace {
namespace fs = std::filesystem;

class WorkspaceTest : public ::testing::Test {
 protected:
  WorkspaceTest() : root_(tmp_.path() / "ws"), outside_(tmp_.path() / "outside"), ws_(make()) {}

  Workspace make() {
    fs::create_directories(root_ / "sub");
    fs::create_directories(outside_);
    tmp_.write("ws/sub/file.txt", "inside\n");
    tmp_.write("outside/secret.txt", "secret\n");
    return Workspace(root_);
  }

  void expect_refused(std::string_view path, bool must_exist = false) {
    auto r = ws_.resolve(path, must_exist);
    ASSERT_FALSE(r.ok()) << path << " resolved to " << r->string();
    EXPECT_EQ(r.status().code(), ErrorCode::kPermissionDenied) << r.status().message();
    EXPECT_NE(r.status().message().find("outside the workspace"), std::string::npos) << r.status().message();
  }

  testing::TempDir tmp_;
  fs::path root_;
  fs::path outside_;
  Workspace ws_;
};

TEST_F(WorkspaceTest, RelativePathsAreTakenFromTheRoot) {
  auto r = ws_.resolve("sub/file.txt", true);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(*r, root_ / "sub" / "file.txt");
  auto dot = ws_.resolve(".", true);
  ASSERT_TRUE(dot.ok());
  EXPECT_EQ(*dot, root_);
  EXPECT_EQ(ws_.display(*dot), ".");
  EXPECT_EQ(ws_.display(*r), "sub/file.txt");
  auto inner = ws_.resolve("sub/../sub/./file.txt", true);
  ASSERT_TRUE(inner.ok());
  EXPECT_EQ(*inner, root_ / "sub" / "file.txt");
}

TEST_F(WorkspaceTest, MessageNamesThePathAndTheRoot) {
  auto r = ws_.resolve("../etc/passwd", false);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "path '../etc/passwd' is outside the workspace " + root_.string() + "; use a path inside it");
}

TEST_F(WorkspaceTest, DotDotLeavingTheRootIsRefused) {
  expect_refused("../x");
  expect_refused("a/../../x");
  expect_refused("sub/../../outside/secret.txt");
  expect_refused("../ws/sub/file.txt");  // leaves, even if it comes back
}

TEST_F(WorkspaceTest, AbsolutePathsOnlyInsideTheRoot) {
  expect_refused("/etc/passwd");
  expect_refused(outside_.string());
  auto inside = ws_.resolve((root_ / "sub" / "file.txt").string(), true);
  ASSERT_TRUE(inside.ok()) << inside.status().message();
  EXPECT_EQ(*inside, root_ / "sub" / "file.txt");
  auto root = ws_.resolve(root_.string() + "/", true);
  ASSERT_TRUE(root.ok()) << root.status().message();
  EXPECT_EQ(*root, root_);
}

TEST_F(WorkspaceTest, PrefixOfTheRootIsNotInsideIt) {
  fs::create_directories(tmp_.path() / "a");
  fs::create_directories(tmp_.path() / "ab");
  tmp_.write("ab/f.txt", "x");
  Workspace ws(tmp_.path() / "a");
  auto r = ws.resolve((tmp_.path() / "ab" / "f.txt").string(), false);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kPermissionDenied);
  auto rel = ws.resolve("../ab/f.txt", false);
  EXPECT_FALSE(rel.ok());
}

TEST_F(WorkspaceTest, SymlinkedFileLeadingOutsideIsRefused) {
  fs::create_symlink(outside_ / "secret.txt", root_ / "leak.txt");
  expect_refused("leak.txt", true);
  expect_refused("leak.txt", false);  // writing through it is refused too
  auto r = ws_.resolve("leak.txt", false);
  EXPECT_NE(r.status().message().find("symbolic link"), std::string::npos) << r.status().message();
}

TEST_F(WorkspaceTest, DanglingSymlinkLeadingOutsideIsRefused) {
  fs::create_symlink(outside_ / "not-yet.txt", root_ / "dangling.txt");
  expect_refused("dangling.txt", false);
}

TEST_F(WorkspaceTest, SymlinkedDirectoryLeadingOutsideIsRefused) {
  fs::create_directory_symlink(outside_, root_ / "out");
  expect_refused("out", true);
  expect_refused("out/secret.txt", true);
  expect_refused("out/new/file.txt", false);  // nearest existing ancestor is outside
  // `..` after a link is applied to the link's target, as the kernel does.
  fs::create_directory_symlink(outside_, root_ / "sub" / "deep");
  expect_refused("sub/deep/../outside/secret.txt", false);
}

TEST_F(WorkspaceTest, SymlinksInsideTheRootAreFollowed) {
  fs::create_symlink("sub/file.txt", root_ / "alias.txt");
  fs::create_directory_symlink(root_ / "sub", root_ / "subdir");
  auto file = ws_.resolve("alias.txt", true);
  ASSERT_TRUE(file.ok()) << file.status().message();
  EXPECT_EQ(*file, root_ / "sub" / "file.txt");
  auto dir = ws_.resolve("subdir/file.txt", true);
  ASSERT_TRUE(dir.ok()) << dir.status().message();
  EXPECT_EQ(*dir, root_ / "sub" / "file.txt");
}

TEST_F(WorkspaceTest, RootGivenThroughASymlinkStillConfines) {
  fs::create_directory_symlink(root_, tmp_.path() / "ws-link");
  Workspace ws(tmp_.path() / "ws-link");
  EXPECT_EQ(ws.root(), root_);
  auto via_link = ws.resolve((tmp_.path() / "ws-link" / "sub" / "file.txt").string(), true);
  ASSERT_TRUE(via_link.ok()) << via_link.status().message();
  EXPECT_EQ(*via_link, root_ / "sub" / "file.txt");
  EXPECT_FALSE(ws.resolve("../outside/secret.txt", false).ok());
}

TEST_F(WorkspaceTest, MissingPathsAndBadInput) {
  auto missing = ws_.resolve("nope/file.txt", true);
  EXPECT_EQ(missing.status().code(), ErrorCode::kNotFound);
  auto later = ws_.resolve("nope/file.txt", false);
  ASSERT_TRUE(later.ok());
  EXPECT_EQ(*later, root_ / "nope" / "file.txt");
  EXPECT_EQ(ws_.resolve(std::string_view("a\0b", 3), false).status().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(ws_.resolve("", false).status().code(), ErrorCode::kInvalidArgument);
}

TEST_F(WorkspaceTest, SymlinkLoopIsReported) {
  fs::create_symlink("loop2", root_ / "loop1");
  fs::create_symlink("loop1", root_ / "loop2");
  auto r = ws_.resolve("loop1", false);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("symbolic links"), std::string::npos) << r.status().message();
}

TEST(WorkspaceOpenTest, RequiresAnExistingDirectory) {
  testing::TempDir tmp;
  EXPECT_TRUE(Workspace::open(tmp.path().string()).ok());
  EXPECT_EQ(Workspace::open((tmp.path() / "missing").string()).status().code(), ErrorCode::kInvalidArgument);
  auto file = tmp.write("f.txt", "x");
  EXPECT_EQ(Workspace::open(file.string()).status().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(Workspace::open("").status().code(), ErrorCode::kInvalidArgument);
}

}  // namespace
}  // namespace keel::detail
