// fs_copy, fs_move and fs_delete: what they do, what they refuse, and that links are never
// followed where they should not be.
#include <sys/stat.h>

#include <filesystem>

#include "fs_fixture.hpp"

namespace keel::testing {
namespace {
namespace fs = std::filesystem;
using nlohmann::json;

using FsChangeTest = FsFixture;

TEST_F(FsChangeTest, CopiesAFileKeepingItsPermissions) {
  const auto src = put("ws/a.sh", "#!/bin/sh\necho hi\n");
  fs::permissions(src, fs::perms::owner_all | fs::perms::group_read);
  auto r = run("fs_copy", {{"from", "a.sh"}, {"to", "bin/b.sh"}});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(*r, "copied file a.sh to bin/b.sh (1 file, 18 bytes)");
  EXPECT_EQ(read_file(ws_ / "bin/b.sh"), "#!/bin/sh\necho hi\n");
  EXPECT_EQ(fs::status(ws_ / "bin/b.sh").permissions(), fs::perms::owner_all | fs::perms::group_read);
  EXPECT_EQ(read_file(src), "#!/bin/sh\necho hi\n");
}

TEST_F(FsChangeTest, CopyReplacesAFileOnlyWithOverwrite) {
  put("ws/a.txt", "new");
  put("ws/b.txt", "old");
  auto refused = run("fs_copy", {{"from", "a.txt"}, {"to", "b.txt"}});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), ErrorCode::kFailedPrecondition);
  EXPECT_EQ(refused.status().message(), "'b.txt' already exists; pass overwrite=true to replace it");
  EXPECT_EQ(read_file(ws_ / "b.txt"), "old");
  auto replaced = run("fs_copy", {{"from", "a.txt"}, {"to", "b.txt"}, {"overwrite", true}});
  ASSERT_TRUE(replaced.ok()) << replaced.status().message();
  EXPECT_EQ(*replaced, "copied file a.txt to b.txt (replacing the file there) (1 file, 3 bytes)");
  EXPECT_EQ(read_file(ws_ / "b.txt"), "new");
  auto same = run("fs_copy", {{"from", "a.txt"}, {"to", "./a.txt"}, {"overwrite", true}});
  EXPECT_EQ(same.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(read_file(ws_ / "a.txt"), "new");
  fs::create_directories(ws_ / "dir");
  auto onto_dir = run("fs_copy", {{"from", "a.txt"}, {"to", "dir"}, {"overwrite", true}});
  ASSERT_FALSE(onto_dir.ok());
  EXPECT_NE(onto_dir.status().message().find("name the new path inside it (e.g. 'dir/a.txt')"), std::string::npos)
      << onto_dir.status().message();
}

TEST_F(FsChangeTest, CopiesADirectoryTreeAcrossRootsWithoutFollowingLinks) {
  put("ws/proj/a.txt", "A");
  put("ws/proj/sub/b.txt", "BB");
  put("outside/secret.txt", "OUTSIDE");
  fs::create_symlink("a.txt", ws_ / "proj/alias");                        // stays inside: kept
  fs::create_symlink(outside_ / "secret.txt", ws_ / "proj/leak");          // leads out: skipped
  fs::create_directory_symlink(outside_, ws_ / "proj/sub/out");            // leads out: skipped
  auto r = run("fs_copy", {{"from", "proj"}, {"to", "notes:backup/proj"}});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(*r,
            "copied directory proj to notes:backup/proj (2 files, 2 directories, 1 link, 3 bytes); skipped 2: leak "
            "(a symbolic link that leads outside the roots), sub/out (a symbolic link that leads outside the roots)");
  EXPECT_EQ(read_file(notes_ / "backup/proj/a.txt"), "A");
  EXPECT_EQ(read_file(notes_ / "backup/proj/sub/b.txt"), "BB");
  EXPECT_EQ(fs::read_symlink(notes_ / "backup/proj/alias"), "a.txt");
  EXPECT_FALSE(fs::exists(fs::symlink_status(notes_ / "backup/proj/leak")));
  EXPECT_FALSE(fs::exists(fs::symlink_status(notes_ / "backup/proj/sub/out")));
  auto into_itself = run("fs_copy", {{"from", "proj"}, {"to", "proj/sub/again"}});
  ASSERT_FALSE(into_itself.ok());
  EXPECT_NE(into_itself.status().message().find("into itself"), std::string::npos);
  EXPECT_FALSE(fs::exists(ws_ / "proj/sub/again"));
}

TEST_F(FsChangeTest, CopyOutOfAReadOnlyRootWorksButNotIntoIt) {
  put("docs/guide.md", "# guide\n");
  auto out = run("fs_copy", {{"from", "docs:guide.md"}, {"to", "guide.md"}});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(read_file(ws_ / "guide.md"), "# guide\n");
  auto in = run("fs_copy", {{"from", "guide.md"}, {"to", "docs:copy.md"}});
  ASSERT_FALSE(in.ok());
  EXPECT_EQ(in.status().code(), ErrorCode::kPermissionDenied);
  EXPECT_FALSE(fs::exists(docs_ / "copy.md"));
}

TEST_F(FsChangeTest, MovesFilesDirectoriesAndLinksThemselves) {
  put("ws/a.txt", "A");
  put("ws/dir/x.txt", "X");
  auto file = run("fs_move", {{"from", "a.txt"}, {"to", "archive/a.txt"}});
  ASSERT_TRUE(file.ok()) << file.status().message();
  EXPECT_EQ(*file, "moved a.txt to archive/a.txt");
  EXPECT_FALSE(fs::exists(ws_ / "a.txt"));
  EXPECT_EQ(read_file(ws_ / "archive/a.txt"), "A");
  auto dir = run("fs_move", {{"from", "dir"}, {"to", "notes:dir"}});
  ASSERT_TRUE(dir.ok()) << dir.status().message();
  EXPECT_EQ(*dir, "moved directory dir to notes:dir");
  EXPECT_EQ(read_file(notes_ / "dir/x.txt"), "X");
  // A link is moved as a link: what it points to stays where it is.
  put("outside/secret.txt", "OUTSIDE");
  fs::create_symlink(outside_ / "secret.txt", ws_ / "leak");
  auto link = run("fs_move", {{"from", "leak"}, {"to", "moved-leak"}});
  ASSERT_TRUE(link.ok()) << link.status().message();
  EXPECT_EQ(*link, "moved link leak to moved-leak");
  EXPECT_EQ(fs::read_symlink(ws_ / "moved-leak"), outside_ / "secret.txt");
  EXPECT_EQ(read_file(outside_ / "secret.txt"), "OUTSIDE");
}

TEST_F(FsChangeTest, MoveReplacesOnlyWithOverwriteAndNeverARoot) {
  put("ws/a.txt", "A");
  put("ws/b.txt", "B");
  auto refused = run("fs_move", {{"from", "a.txt"}, {"to", "b.txt"}});
  EXPECT_EQ(refused.status().code(), ErrorCode::kFailedPrecondition);
  auto replaced = run("fs_move", {{"from", "a.txt"}, {"to", "b.txt"}, {"overwrite", true}});
  ASSERT_TRUE(replaced.ok()) << replaced.status().message();
  EXPECT_EQ(*replaced, "moved a.txt to b.txt (replacing what was there)");
  EXPECT_EQ(read_file(ws_ / "b.txt"), "A");
  auto root = run("fs_move", {{"from", "notes:"}, {"to", "notes-moved"}});
  ASSERT_FALSE(root.ok());
  EXPECT_EQ(root.status().message(), "'notes:' is the root 'notes', which cannot be moved; name something inside it");
  EXPECT_TRUE(fs::is_directory(notes_));
  put("docs/guide.md", "# guide\n");
  auto from_read_only = run("fs_move", {{"from", "docs:guide.md"}, {"to", "guide.md"}});
  EXPECT_EQ(from_read_only.status().code(), ErrorCode::kPermissionDenied);
  EXPECT_TRUE(fs::exists(docs_ / "guide.md"));
}

TEST_F(FsChangeTest, DeletesFilesLinksAndDirectories) {
  put("ws/a.txt", "A");
  auto file = run("fs_delete", {{"path", "a.txt"}});
  ASSERT_TRUE(file.ok()) << file.status().message();
  EXPECT_EQ(*file, "deleted file a.txt");
  EXPECT_FALSE(fs::exists(ws_ / "a.txt"));

  put("outside/secret.txt", "OUTSIDE");
  fs::create_symlink(outside_ / "secret.txt", ws_ / "leak");
  auto link = run("fs_delete", {{"path", "leak"}});
  ASSERT_TRUE(link.ok()) << link.status().message();
  EXPECT_EQ(*link, "deleted the link leak (what it pointed to was not touched)");
  EXPECT_EQ(read_file(outside_ / "secret.txt"), "OUTSIDE");

  put("ws/tree/a/b/c.txt", "C");
  put("ws/tree/d.txt", "D");
  fs::create_directory_symlink(outside_, ws_ / "tree/a/out");
  auto not_recursive = run("fs_delete", {{"path", "tree"}});
  ASSERT_FALSE(not_recursive.ok());
  EXPECT_EQ(not_recursive.status().message(),
            "'tree' is a directory with 2 entries; pass recursive=true to delete it with everything in it");
  auto recursive = run("fs_delete", {{"path", "tree"}, {"recursive", true}});
  ASSERT_TRUE(recursive.ok()) << recursive.status().message();
  EXPECT_EQ(*recursive, "deleted directory tree (3 files and 3 directories removed)");
  EXPECT_FALSE(fs::exists(ws_ / "tree"));
  EXPECT_EQ(read_file(outside_ / "secret.txt"), "OUTSIDE");  // the link inside was removed, not followed

  fs::create_directories(ws_ / "empty");
  auto empty = run("fs_delete", {{"path", "empty"}});
  ASSERT_TRUE(empty.ok()) << empty.status().message();
  EXPECT_FALSE(fs::exists(ws_ / "empty"));
}

TEST_F(FsChangeTest, DeleteRefusesRootsTreesHoldingThemAndReadOnlyRoots) {
  for (const char* root : {".", "workspace:", "notes:", ws_.c_str()}) {
    auto r = run("fs_delete", {{"path", root}, {"recursive", true}});
    ASSERT_FALSE(r.ok()) << root;
    EXPECT_EQ(r.status().code(), ErrorCode::kPermissionDenied) << root;
    EXPECT_NE(r.status().message().find("cannot be deleted"), std::string::npos) << r.status().message();
  }
  EXPECT_TRUE(fs::is_directory(ws_));
  EXPECT_TRUE(fs::is_directory(notes_));
  put("docs/guide.md", "# guide\n");
  auto in_docs = run("fs_delete", {{"path", "docs:guide.md"}});
  ASSERT_FALSE(in_docs.ok());
  EXPECT_NE(in_docs.status().message().find("read-only root 'docs'"), std::string::npos);
  EXPECT_TRUE(fs::exists(docs_ / "guide.md"));

  // A root nested inside the workspace is taken along by nothing.
  fs::create_directories(ws_ / "vendor/lib");
  ToolRegistry nested;
  BuiltinToolOptions o;
  o.workspace_root = ws_.string();
  o.extra_roots = {FsRoot{"vendor", (ws_ / "vendor/lib").string(), false}};
  ASSERT_TRUE(register_builtin_tools(nested, o).ok());
  ToolContext ctx;
  ctx.workspace_root = ws_.string();
  auto holding = nested.find("fs_delete")->execute({{"path", "vendor"}, {"recursive", true}}, ctx);
  ASSERT_FALSE(holding.ok());
  EXPECT_EQ(holding.status().message(),
            "'vendor' holds the root 'vendor', which cannot be deleted; name something that holds no root");
  EXPECT_TRUE(fs::is_directory(ws_ / "vendor/lib"));
}

TEST_F(FsChangeTest, DeleteHonoursTheStopToken) {
  for (int i = 0; i < 5; ++i) put("ws/big/f" + std::to_string(i), "x");
  stop_.request_stop();
  auto r = run("fs_delete", {{"path", "big"}, {"recursive", true}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kCancelled);
  EXPECT_NE(r.status().message().find("were removed before it"), std::string::npos) << r.status().message();
  EXPECT_TRUE(fs::exists(ws_ / "big"));
}

}  // namespace
}  // namespace keel::testing
