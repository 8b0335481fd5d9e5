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

namespace keel::detail {
namespace {

// A workspace with two extra roots: "docs" (read-only) and "notes", plus a folder outside.
class RootsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* d : {"ws/sub", "docs/guide", "notes", "outside"}) fs::create_directories(tmp_.path() / d);
    tmp_.write("ws/sub/file.txt", "inside\n");
    tmp_.write("docs/guide/intro.md", "# intro\n");
    tmp_.write("outside/secret.txt", "secret\n");
    std::vector<FsRoot> extra = {FsRoot{"docs", (tmp_.path() / "docs").string(), true},
                                 FsRoot{"notes", (tmp_.path() / "notes").string(), false}};
    auto ws = Workspace::open((tmp_.path() / "ws").string(), extra);
    ASSERT_TRUE(ws.ok()) << ws.status().message();
    ws_ = std::make_unique<Workspace>(std::move(ws).value());
  }
  fs::path at(std::string_view rel) const { return tmp_.path() / rel; }
  Result<ResolvedPath> resolve(std::string_view p, Access access = Access::kRead, bool must_exist = false,
                               bool follow_last = true) const {
    ResolveOptions o;
    o.access = access;
    o.must_exist = must_exist;
    o.follow_last = follow_last;
    return ws_->resolve_path(p, o);
  }

  testing::TempDir tmp_;
  std::unique_ptr<Workspace> ws_;
};

TEST_F(RootsTest, ListsTheRootsWorkspaceFirst) {
  ASSERT_EQ(ws_->roots().size(), 3u);
  EXPECT_EQ(ws_->roots()[0].name, "workspace");
  EXPECT_EQ(ws_->roots()[0].path, at("ws"));
  EXPECT_FALSE(ws_->roots()[0].read_only);
  EXPECT_EQ(ws_->roots()[1].name, "docs");
  EXPECT_TRUE(ws_->roots()[1].read_only);
  EXPECT_EQ(ws_->roots()[2].name, "notes");
}

TEST_F(RootsTest, PrefixNamesARootAndRelativePathsStayInTheWorkspace) {
  auto doc = resolve("docs:guide/intro.md", Access::kRead, true);
  ASSERT_TRUE(doc.ok()) << doc.status().message();
  EXPECT_EQ(doc->path, at("docs/guide/intro.md"));
  EXPECT_EQ(doc->root, 1u);
  EXPECT_EQ(ws_->display(doc->path), "docs:guide/intro.md");
  auto top = resolve("docs:", Access::kRead, true);
  ASSERT_TRUE(top.ok());
  EXPECT_EQ(top->path, at("docs"));
  EXPECT_EQ(ws_->display(top->path), "docs:");
  auto explicit_ws = resolve("workspace:sub/file.txt", Access::kRead, true);
  ASSERT_TRUE(explicit_ws.ok());
  EXPECT_EQ(explicit_ws->path, at("ws/sub/file.txt"));
  EXPECT_EQ(ws_->display(explicit_ws->path), "sub/file.txt");
  // Relative paths never reach another root, even one named like the first component.
  auto plain = resolve("docs/guide/intro.md", Access::kRead, false);
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->path, at("ws/docs/guide/intro.md"));
  EXPECT_FALSE(plain->exists);
}

TEST_F(RootsTest, AbsolutePathsPickTheRootHoldingThem) {
  auto doc = resolve(at("docs/guide/intro.md").string(), Access::kRead, true);
  ASSERT_TRUE(doc.ok()) << doc.status().message();
  EXPECT_EQ(doc->root, 1u);
  auto outside = resolve(at("outside/secret.txt").string());
  ASSERT_FALSE(outside.ok());
  EXPECT_EQ(outside.status().code(), ErrorCode::kPermissionDenied);
  EXPECT_EQ(outside.status().message(),
            "path '" + at("outside/secret.txt").string() + "' is outside every root (workspace: " +
                at("ws").string() + ", docs: " + at("docs").string() + ", notes: " + at("notes").string() +
                "); use a path inside one of them");
}

TEST_F(RootsTest, UnknownRootsAndColonNames) {
  auto unknown = resolve("secrets:key.pem");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(unknown.status().message(),
            "unknown root 'secrets' in path 'secrets:key.pem'; the roots are: workspace, docs, notes (fs_roots lists "
            "them); a workspace file whose name contains ':' is written './secrets:key.pem'");
  auto dotted = resolve("./secrets:key.pem");
  ASSERT_TRUE(dotted.ok()) << dotted.status().message();
  EXPECT_EQ(dotted->path, at("ws/secrets:key.pem"));
  auto not_a_name = resolve("v1.2:notes.txt");  // '.' cannot be in a root name: a plain file name
  ASSERT_TRUE(not_a_name.ok()) << not_a_name.status().message();
  EXPECT_EQ(not_a_name->path, at("ws/v1.2:notes.txt"));
}

TEST_F(RootsTest, DotDotCannotLeaveTheNamedRoot) {
  auto up = resolve("docs:../ws/sub/file.txt");
  ASSERT_FALSE(up.ok());
  EXPECT_EQ(up.status().message(), "path 'docs:../ws/sub/file.txt' is outside the root 'docs' (" + at("docs").string() +
                                       "); use a path inside it");
  EXPECT_TRUE(resolve("docs:guide/../guide/intro.md", Access::kRead, true).ok());
}

TEST_F(RootsTest, WritesIntoAReadOnlyRootAreRefused) {
  auto w = resolve("docs:guide/new.md", Access::kWrite);
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.status().code(), ErrorCode::kPermissionDenied);
  EXPECT_NE(w.status().message().find("read-only root 'docs'"), std::string::npos) << w.status().message();
  // Also when reached through a link in the workspace.
  fs::create_directory_symlink(at("docs"), at("ws/docs-link"));
  auto via_link = resolve("docs-link/guide/intro.md", Access::kWrite);
  ASSERT_FALSE(via_link.ok());
  EXPECT_NE(via_link.status().message().find("read-only root 'docs'"), std::string::npos);
  auto read = resolve("docs-link/guide/intro.md", Access::kRead, true);
  ASSERT_TRUE(read.ok()) << read.status().message();
  EXPECT_EQ(read->root, 1u);
  EXPECT_TRUE(resolve("notes:todo.md", Access::kWrite).ok());
}

TEST_F(RootsTest, TheMostSpecificRootDecides) {
  fs::create_directories(at("ws/vendor"));
  auto nested = Workspace::open(at("ws").string(), std::vector<FsRoot>{{"vendor", at("ws/vendor").string(), true}});
  ASSERT_TRUE(nested.ok()) << nested.status().message();
  ResolveOptions write;
  write.access = Access::kWrite;
  write.must_exist = false;
  auto in_vendor = nested->resolve_path("vendor/lib.c", write);
  ASSERT_FALSE(in_vendor.ok());
  EXPECT_NE(in_vendor.status().message().find("read-only root 'vendor'"), std::string::npos);
  EXPECT_TRUE(nested->resolve_path("src/main.c", write).ok());
  EXPECT_EQ(nested->roots_within(at("ws")), (std::vector<std::string>{"workspace", "vendor"}));
  EXPECT_EQ(nested->roots_within(at("ws/vendor")), std::vector<std::string>{"vendor"});
  EXPECT_TRUE(nested->roots_within(at("ws/src")).empty());
  EXPECT_EQ(nested->display(at("ws/vendor/lib.c")), "vendor:lib.c");
}

TEST_F(RootsTest, LinksMayLeadIntoAnotherRootButNotOutAndBack) {
  fs::create_symlink(at("notes"), at("ws/to-notes"));
  auto into = resolve("to-notes/a.md", Access::kWrite);
  ASSERT_TRUE(into.ok()) << into.status().message();
  EXPECT_EQ(into->root, 2u);
  EXPECT_EQ(ws_->display(into->path), "notes:a.md");
  // outside/back -> ws/sub/file.txt; ws/roundtrip -> outside/back. The walk leaves the roots.
  fs::create_symlink(at("ws/sub/file.txt"), at("outside/back"));
  fs::create_symlink(at("outside/back"), at("ws/roundtrip"));
  auto round = resolve("roundtrip", Access::kRead, true);
  ASSERT_FALSE(round.ok());
  EXPECT_NE(round.status().message().find("symbolic link to " + at("outside").string()), std::string::npos)
      << round.status().message();
}

TEST_F(RootsTest, EntryResolutionKeepsTheLastLink) {
  fs::create_symlink(at("outside/secret.txt"), at("ws/leak"));
  auto followed = resolve("leak");
  EXPECT_FALSE(followed.ok());
  auto entry = resolve("leak", Access::kWrite, true, /*follow_last=*/false);
  ASSERT_TRUE(entry.ok()) << entry.status().message();
  EXPECT_EQ(entry->path, at("ws/leak"));
  EXPECT_TRUE(entry->exists);
  fs::create_directory_symlink(at("outside"), at("ws/out"));
  auto below = resolve("out/secret.txt", Access::kWrite, true, false);
  ASSERT_FALSE(below.ok());
  EXPECT_EQ(below.status().code(), ErrorCode::kPermissionDenied);
  auto missing = resolve("sub/nothing", Access::kWrite, false, false);
  ASSERT_TRUE(missing.ok());
  EXPECT_FALSE(missing->exists);
}

TEST_F(RootsTest, MalformedPathsAreRefusedWithTheReason) {
  const auto message = [&](std::string_view p) { return resolve(p).status().message(); };
  EXPECT_NE(message(std::string(256, 'a')).find("is longer than 255 bytes"), std::string::npos)
      << message(std::string(256, 'a'));
  EXPECT_TRUE(resolve(std::string(255, 'a')).ok());
  std::string deep;
  while (deep.size() < 4096) deep += "dir/";
  EXPECT_NE(message(deep).find("paths must be shorter than 4096 bytes"), std::string::npos);
  EXPECT_NE(message("a\tb").find("control character 0x09"), std::string::npos);
  EXPECT_NE(message("a\x7f").find("control character 0x7f"), std::string::npos);
  EXPECT_NE(message("evil\u202etxt.exe").find("U+202E"), std::string::npos);
  EXPECT_NE(message("x\u200fy").find("U+200F"), std::string::npos);
  EXPECT_NE(message("x\u2066y").find("U+2066"), std::string::npos);
  // Look-alikes are ordinary names.
  auto fullwidth = resolve("\uff0e\uff0e/x");
  ASSERT_TRUE(fullwidth.ok());
  EXPECT_EQ(fullwidth->path, at("ws/\uff0e\uff0e/x"));
  auto percent = resolve("%2e%2e/x");
  ASSERT_TRUE(percent.ok());
  EXPECT_EQ(percent->path, at("ws/%2e%2e/x"));
}

TEST_F(RootsTest, OpenChecksTheRoots) {
  const std::string ws = at("ws").string();
  const auto open_with = [&](std::vector<FsRoot> extra) { return Workspace::open(ws, extra).status(); };
  EXPECT_EQ(open_with({{"bad name", at("docs").string(), false}}).code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(open_with({{"1docs", at("docs").string(), false}}).code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(open_with({{"workspace", at("docs").string(), false}}).code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(open_with({{"docs", at("missing").string(), false}}).message(),
            "the root 'docs' '" + at("missing").string() + "' is not an existing directory");
  EXPECT_EQ(open_with({{"a", at("docs").string(), false}, {"a", at("notes").string(), false}}).message(),
            "the root name 'a' is used twice");
  EXPECT_NE(open_with({{"same", ws, false}}).message().find("are the same directory"), std::string::npos);
  EXPECT_TRUE(open_with({{"my-docs_2", at("docs").string(), true}}).ok());
}

}  // namespace
}  // namespace keel::detail
