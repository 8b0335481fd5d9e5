// The path escape suite: every fs tool that takes a path, in every path argument (both ends of
// fs_copy and fs_move), against hostile paths. After each call nothing outside the roots (and
// nothing in the read-only root) may have changed, no output may carry what lies outside, and
// each refusal must say why.
#include <filesystem>
#include <string>
#include <vector>

#include "fs_fixture.hpp"

namespace keel::testing {
namespace {
namespace fs = std::filesystem;
using nlohmann::json;

constexpr const char* kSecret = "OUTSIDE-SECRET-CONTENT";
constexpr const char* kHiddenName = "listing-only-marker.txt";  // a name only a listing of outside/dir shows

// One path argument of one tool.
struct Slot {
  const char* name;  // for test names
  const char* tool;
  bool writes;       // changes something at the path
  bool entry;        // acts on the entry itself (a link there is not followed)
  json (*args)(const std::string& hostile);
};

const Slot kSlots[] = {
    {"fs_list", "fs_list", false, false, [](const std::string& p) { return json{{"path", p}}; }},
    {"fs_tree", "fs_tree", false, false, [](const std::string& p) { return json{{"path", p}, {"depth", 3}}; }},
    {"fs_read", "fs_read", false, false, [](const std::string& p) { return json{{"path", p}}; }},
    {"fs_stat", "fs_stat", false, false, [](const std::string& p) { return json{{"path", p}}; }},
    {"fs_search", "fs_search", false, false,
     [](const std::string& p) { return json{{"pattern", "SECRET|marker"}, {"path", p}}; }},
    {"fs_walk", "fs_walk", false, false, [](const std::string& p) { return json{{"path", p}}; }},
    {"fs_write", "fs_write", true, false,
     [](const std::string& p) { return json{{"path", p}, {"content", "PWNED"}}; }},
    {"fs_copy_from", "fs_copy", false, false,
     [](const std::string& p) { return json{{"from", p}, {"to", "copy_dst"}}; }},
    {"fs_copy_to", "fs_copy", true, false,
     [](const std::string& p) { return json{{"from", "inside.txt"}, {"to", p}, {"overwrite", true}}; }},
    {"fs_move_from", "fs_move", true, true,
     [](const std::string& p) { return json{{"from", p}, {"to", "moved_dst"}}; }},
    {"fs_move_to", "fs_move", true, true,
     [](const std::string& p) { return json{{"from", "inside.txt"}, {"to", p}, {"overwrite", true}}; }},
    {"fs_delete", "fs_delete", true, true,
     [](const std::string& p) { return json{{"path", p}, {"recursive", true}}; }},
};

enum class Expect {
  kRefused,             // every slot refuses, with `why` in the message
  kRefusedUnlessEntry,  // refused, except slots acting on the entry itself (a link is removed,
                        // moved or replaced, never followed), which may succeed
  kReadOnly,            // reads are allowed; writes are refused as read-only
  kAllowed,             // inside the roots (an odd but ordinary name, or a link that stays inside): the
                        // call may fail for ordinary reasons (missing, wrong type), never as a refusal
};

struct Case {
  const char* name;
  std::string path;  // "@" is replaced by the temporary folder
  Expect expect;
  const char* why;  // in the refusal message
};

std::vector<Case> cases() {
  const std::string long_path = [] {
    std::string p;
    while (p.size() <= 4200) p += "abcdefgh/";
    return p + "x.txt";
  }();
  return {
      {"DotDotOut", "../outside/secret.txt", Expect::kRefused, "outside the workspace"},
      {"DotDotFar", "../../../../../../etc/passwd", Expect::kRefused, "outside the workspace"},
      {"DotDotAfterDir", "sub/../../outside/secret.txt", Expect::kRefused, "outside the workspace"},
      {"DotSlashDotDot", "./../outside", Expect::kRefused, "outside the workspace"},
      {"LeaveAndComeBack", "sub/../../ws/inside.txt", Expect::kRefused, "outside the workspace"},
      {"DotDotAfterFile", "inside.txt/../../outside/secret.txt", Expect::kRefused, "outside the workspace"},
      {"AbsoluteOutsideFile", "@/outside/secret.txt", Expect::kRefused, "outside every root"},
      {"AbsoluteOutsideDir", "@/outside", Expect::kRefused, "outside every root"},
      {"AbsoluteParentOfRoots", "@", Expect::kRefused, "outside every root"},
      {"AbsoluteEtc", "/etc/passwd", Expect::kRefused, "outside every root"},
      {"AbsoluteDotDotOut", "@/ws/../outside/secret.txt", Expect::kRefused, "outside every root"},
      {"LinkToOutsideFile", "leak.txt", Expect::kRefusedUnlessEntry, "symbolic link"},
      {"LinkToOutsideDir", "leak_dir", Expect::kRefusedUnlessEntry, "symbolic link"},
      {"ThroughLinkedDir", "leak_dir/inner.txt", Expect::kRefused, "symbolic link"},
      {"NewFileThroughLinkedDir", "leak_dir/new.txt", Expect::kRefused, "symbolic link"},
      {"DanglingLinkOut", "dangling_out", Expect::kRefusedUnlessEntry, "symbolic link"},
      {"RelativeLinkOut", "rel_up", Expect::kRefusedUnlessEntry, "symbolic link"},
      {"LinkToParentOfRoot", "up", Expect::kRefusedUnlessEntry, "symbolic link"},
      {"LinkChainOut", "chain1", Expect::kRefusedUnlessEntry, "symbolic link"},
      {"LinkOutAndBackIn", "roundtrip", Expect::kRefusedUnlessEntry, "symbolic link"},
      {"SwappedParentDir", "swapped/inner.txt", Expect::kRefused, "symbolic link"},
      {"SwappedParentNewFile", "swapped/new/deeper.txt", Expect::kRefused, "symbolic link"},
      {"LinkInSubdirOut", "sub/deep_out/secret.txt", Expect::kRefused, "symbolic link"},
      {"NameOf256Bytes", std::string(256, 'n'), Expect::kRefused, "255 bytes"},
      {"PathOver4096Bytes", long_path, Expect::kRefused, "4096 bytes"},
      {"NulByte", std::string("inside.txt\0/../../outside/secret.txt", 36), Expect::kRefused, "NUL byte"},
      {"Newline", "inside\n.txt", Expect::kRefused, "control character"},
      {"RightToLeftOverride", "\u202e../outside/secret.txt", Expect::kRefused, "U+202E"},
      {"RightToLeftIsolate", "sub/\u2067txt.exe", Expect::kRefused, "U+2067"},
      {"FullwidthDots", "\uff0e\uff0e/outside/secret.txt", Expect::kAllowed, ""},
      {"DivisionSlash", "..\u2215outside\u2215secret.txt", Expect::kAllowed, ""},
      {"CombiningDot", ".\u0307./outside/secret.txt", Expect::kAllowed, ""},
      {"OnePointLeader", "\u2024\u2024/outside/secret.txt", Expect::kAllowed, ""},
      {"PercentEncoded", "%2e%2e/outside/secret.txt", Expect::kAllowed, ""},
      {"PercentEncodedSlashes", "%2e%2e%2foutside%2fsecret.txt", Expect::kAllowed, ""},
      {"Backslashes", "..\\outside\\secret.txt", Expect::kAllowed, ""},
      {"Tilde", "~/outside/secret.txt", Expect::kAllowed, ""},
      {"AbsoluteOutAndBackLexically", "@/outside/../ws/inside.txt", Expect::kAllowed, ""},
      {"InsideLinkToFile", "alias.txt", Expect::kAllowed, ""},
      {"InsideLinkToDir", "sub_alias", Expect::kAllowed, ""},
      {"ThroughInsideLinkToDir", "sub_alias/file.txt", Expect::kAllowed, ""},
      {"InsideAbsoluteLink", "abs_alias", Expect::kAllowed, ""},
      {"InsideLinkWithDotDot", "sub/up_alias", Expect::kAllowed, ""},
      {"LinkIntoWritableRoot", "to_notes/n.md", Expect::kAllowed, ""},
      {"UnknownRoot", "secrets:passwd", Expect::kRefused, "unknown root 'secrets'"},
      {"UnknownRootDotDot", "etc:../passwd", Expect::kRefused, "unknown root 'etc'"},
      {"RootThenDotDot", "docs:../outside/secret.txt", Expect::kRefused, "outside the root 'docs'"},
      {"WritableRootThenDotDot", "notes:../../etc/passwd", Expect::kRefused, "outside the root 'notes'"},
      {"WorkspacePrefixDotDot", "workspace:../outside/secret.txt", Expect::kRefused, "outside the workspace"},
      {"RootThenAbsolute", "docs:/etc/passwd", Expect::kRefused, "relative to that root"},
      {"RootThenLinkOut", "notes:leak_note", Expect::kRefusedUnlessEntry, "symbolic link"},
      {"ReadOnlyRootFile", "docs:guide.md", Expect::kReadOnly, "read-only root 'docs'"},
      {"ReadOnlyRootThroughWorkspaceLink", "to_docs/guide.md", Expect::kReadOnly, "read-only root 'docs'"},
  };
}

// Readable parameters in failure messages.
void PrintTo(const Slot& slot, std::ostream* os) { *os << slot.name; }
void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

class PathEscapeTest : public FsFixture, public ::testing::WithParamInterface<std::tuple<Slot, Case>> {
 protected:
  void SetUp() override {
    FsFixture::SetUp();
    put("outside/secret.txt", std::string(kSecret) + "\n");
    put("outside/dir/inner.txt", std::string(kSecret) + " inner\n");
    put(std::string("outside/dir/") + kHiddenName, "x");
    put("ws/inside.txt", "inside content\n");
    put("ws/sub/file.txt", "sub content\n");
    put("docs/guide.md", "# guide\n");
    fs::create_symlink(outside_ / "secret.txt", ws_ / "leak.txt");
    fs::create_directory_symlink(outside_ / "dir", ws_ / "leak_dir");
    fs::create_symlink(outside_ / "not_yet.txt", ws_ / "dangling_out");
    fs::create_symlink("../outside/secret.txt", ws_ / "rel_up");
    fs::create_directory_symlink("..", ws_ / "up");
    fs::create_symlink("chain2", ws_ / "chain1");
    fs::create_symlink("sub/chain3", ws_ / "chain2");
    fs::create_symlink(outside_ / "secret.txt", ws_ / "sub" / "chain3");
    fs::create_symlink(ws_ / "inside.txt", outside_ / "back");
    fs::create_symlink(outside_ / "back", ws_ / "roundtrip");
    fs::create_directory_symlink(outside_, ws_ / "sub" / "deep_out");
    fs::create_directory_symlink(docs_, ws_ / "to_docs");
    fs::create_symlink(outside_ / "secret.txt", notes_ / "leak_note");
    fs::create_symlink("inside.txt", ws_ / "alias.txt");
    fs::create_directory_symlink("sub", ws_ / "sub_alias");
    fs::create_symlink(ws_ / "inside.txt", ws_ / "abs_alias");
    fs::create_symlink("../inside.txt", ws_ / "sub" / "up_alias");
    fs::create_directory_symlink(notes_, ws_ / "to_notes");
    put("notes/n.md", "note\n");
    // A directory that is replaced by a link to the outside after the tools were set up.
    fs::create_directories(ws_ / "swapped");
    fs::remove(ws_ / "swapped");
    fs::create_directory_symlink(outside_ / "dir", ws_ / "swapped");
  }

  // Everything in the temporary folder except the writable roots' contents.
  std::map<std::string, std::string> protected_state() {
    std::map<std::string, std::string> all = snapshot(tmp_.path());
    std::erase_if(all, [](const auto& kv) {
      const std::string& p = kv.first;
      return p.starts_with("ws/") || p.starts_with("notes/");
    });
    return all;
  }
};

TEST_P(PathEscapeTest, NoEscape) {
  const auto& [slot, c] = GetParam();
  std::string path = c.path;
  if (const size_t at = path.find('@'); at != std::string::npos) path.replace(at, 1, tmp_.path().string());

  const auto before = protected_state();
  Result<std::string> r = run(slot.tool, slot.args(path));
  const auto after = protected_state();

  EXPECT_EQ(before, after) << slot.tool << " changed something outside the writable roots";
  EXPECT_FALSE(fs::exists(outside_ / "not_yet.txt"));
  if (r.ok()) {
    EXPECT_EQ(r->find(kSecret), std::string::npos) << "output carries outside content: " << *r;
    EXPECT_EQ(r->find(kHiddenName), std::string::npos) << "output lists an outside directory: " << *r;
  }
  if (!r.ok()) {
    EXPECT_EQ(r.status().message().find(kSecret), std::string::npos) << r.status().message();
    EXPECT_EQ(r.status().message().find(kHiddenName), std::string::npos) << r.status().message();
  }

  if (c.expect == Expect::kRefusedUnlessEntry && slot.entry) return;  // removing or replacing a link is fine
  if (c.expect == Expect::kAllowed || (c.expect == Expect::kReadOnly && !slot.writes)) {
    if (!r.ok()) {
      EXPECT_NE(r.status().code(), ErrorCode::kPermissionDenied) << "wrongly refused: " << r.status().message();
      EXPECT_NE(r.status().code(), ErrorCode::kInternal) << r.status().message();
    }
    return;
  }
  ASSERT_FALSE(r.ok()) << slot.tool << " accepted '" << c.path << "': " << *r;
  EXPECT_NE(r.status().message().find(c.why), std::string::npos)
      << "refusal of '" << c.path << "' does not say \"" << c.why << "\": " << r.status().message();
  EXPECT_TRUE(r.status().code() == ErrorCode::kPermissionDenied || r.status().code() == ErrorCode::kInvalidArgument)
      << error_code_name(r.status().code()) << ": " << r.status().message();
}

std::string case_name(const ::testing::TestParamInfo<std::tuple<Slot, Case>>& info) {
  return std::string(std::get<0>(info.param).name) + "_" + std::get<1>(info.param).name;
}

INSTANTIATE_TEST_SUITE_P(EveryPathArgument, PathEscapeTest,
                         ::testing::Combine(::testing::ValuesIn(kSlots), ::testing::ValuesIn(cases())), case_name);

// The table above is only meaningful if legitimate calls get through the same checks.
TEST_F(FsFixture, InsideLinksAndOtherRootsStillWork) {
  put("ws/inside.txt", "inside content\n");
  put("docs/guide.md", "# guide\n");
  fs::create_symlink("inside.txt", ws_ / "alias.txt");
  fs::create_directory_symlink(docs_, ws_ / "to_docs");
  auto via_alias = run("fs_read", {{"path", "alias.txt"}});
  ASSERT_TRUE(via_alias.ok()) << via_alias.status().message();
  EXPECT_EQ(*via_alias, "inside content\n");
  auto via_root = run("fs_read", {{"path", "docs:guide.md"}});
  ASSERT_TRUE(via_root.ok()) << via_root.status().message();
  EXPECT_EQ(*via_root, "# guide\n");
  auto via_link_to_root = run("fs_read", {{"path", "to_docs/guide.md"}});
  ASSERT_TRUE(via_link_to_root.ok()) << via_link_to_root.status().message();
  auto absolute = run("fs_read", {{"path", (docs_ / "guide.md").string()}});
  ASSERT_TRUE(absolute.ok()) << absolute.status().message();
  auto write_alias = run("fs_write", {{"path", "alias.txt"}, {"content", "changed\n"}});
  ASSERT_TRUE(write_alias.ok()) << write_alias.status().message();
  EXPECT_EQ(read_file(ws_ / "inside.txt"), "changed\n");
  auto write_notes = run("fs_write", {{"path", "notes:todo.md"}, {"content", "x"}});
  ASSERT_TRUE(write_notes.ok()) << write_notes.status().message();
  EXPECT_EQ(*write_notes, "created notes:todo.md (1 bytes)");
}

}  // namespace
}  // namespace keel::testing
