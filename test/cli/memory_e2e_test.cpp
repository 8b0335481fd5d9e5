// End-to-end tests of `keel memory list|search|rm`.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli/store_cli_fixture.hpp"

namespace keel {
namespace {

using nlohmann::json;
using testing::CliRun;
using testing::lines_of;
using testing::lines_with;

class MemoryE2eTest : public testing::StoreCliTest {
 protected:
  int64_t note(const std::string& workspace, const std::string& text, const std::string& tags = "") {
    clock_ += 1000;
    auto id = store_->memory_write(workspace, text, tags);
    EXPECT_TRUE(id.ok()) << id.status().to_string();
    return id.value_or(0);
  }
  testing::TempDir other_;
};

TEST_F(MemoryE2eTest, ListShowsTheWorkspaceAndSharedNotesNewestFirst) {
  const int64_t here = note(workspace(), "build with ninja, not make", "build");
  const int64_t shared = note("", "the user prefers short answers", "style");
  const int64_t elsewhere = note(other_.path().string(), "other project uses bazel", "build");

  CliRun r = keel({"memory", "list"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto lines = lines_of(r.out);
  ASSERT_EQ(lines.size(), 3u) << r.out;
  EXPECT_NE(lines[0].find("TEXT"), std::string::npos);
  EXPECT_NE(lines[1].find("the user prefers short answers"), std::string::npos) << "newest first: " << r.out;
  EXPECT_NE(lines[1].find("shared"), std::string::npos);
  EXPECT_NE(lines[2].find("build with ninja"), std::string::npos);
  EXPECT_EQ(r.out.find("bazel"), std::string::npos);

  CliRun j = keel({"memory", "list", "--json", "--workspace", other_.path().string()});
  ASSERT_EQ(j.exit_code, 0) << j.err;
  json notes = json::parse(j.out);
  ASSERT_EQ(notes.size(), 2u) << notes;
  EXPECT_EQ(notes[0]["id"], elsewhere);
  EXPECT_EQ(notes[0]["workspace"], other_.path().string());
  EXPECT_EQ(notes[0]["tags"], "build");
  EXPECT_EQ(notes[1]["id"], shared);
  EXPECT_EQ(notes[1]["workspace"], "");

  CliRun one = keel({"memory", "list", "--limit", "1", "--json"});
  ASSERT_EQ(json::parse(one.out).size(), 1u);
  EXPECT_NE(lines[2].find(std::to_string(here)), std::string::npos);
}

TEST_F(MemoryE2eTest, SearchFindsMatchingNotesOfTheWorkspace) {
  const int64_t ninja = note(workspace(), "build with ninja, not make", "build");
  note(workspace(), "tests live in test/", "layout");
  note(other_.path().string(), "ninja is also used elsewhere", "build");

  CliRun r = keel({"memory", "search", "ninja"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_EQ(lines_with(r.out, "ninja").size(), 1u) << r.out;
  EXPECT_EQ(r.out.find("elsewhere"), std::string::npos);

  CliRun j = keel({"memory", "search", "ninja OR layout", "--json"});
  ASSERT_EQ(j.exit_code, 0) << j.err;
  json hits = json::parse(j.out);
  ASSERT_EQ(hits.size(), 2u) << hits;
  EXPECT_TRUE(hits[0]["score"].is_number());
  bool found = false;
  for (const json& h : hits) found = found || h["id"] == ninja;
  EXPECT_TRUE(found);

  CliRun none = keel({"memory", "search", "kubernetes"});
  EXPECT_EQ(none.exit_code, 0);
  EXPECT_TRUE(none.out.empty()) << none.out;
  EXPECT_EQ(keel({"memory", "search", "   "}).exit_code, 2);
}

TEST_F(MemoryE2eTest, RmDeletesAndAMissingNoteIsExitOne) {
  const int64_t id = note(workspace(), "temporary fact");
  CliRun r = keel({"memory", "rm", std::to_string(id)});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "deleted note " + std::to_string(id) + "\n");
  auto left = store_->memory_list(workspace(), 0);
  ASSERT_TRUE(left.ok());
  EXPECT_TRUE(left->empty());

  CliRun again = keel({"memory", "rm", std::to_string(id)});
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_EQ(again.err.find("keel: "), 0u) << again.err;
  EXPECT_EQ(keel({"memory", "rm", "twelve"}).exit_code, 2);
  EXPECT_EQ(keel({"memory", "rm", "-3"}).exit_code, 2);
}

TEST_F(MemoryE2eTest, CorruptDatabaseIsExitTwoAndLeftUntouched) {
  store_.reset();
  std::filesystem::remove(db_path().string() + "-wal");
  std::filesystem::remove(db_path().string() + "-shm");
  const std::string garbage(8192, '\x7f');
  home_.write("keel.db", garbage);
  CliRun r = keel({"memory", "list"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find(db_path().string()), std::string::npos) << r.err;
  EXPECT_EQ(testing::read_file(db_path()), garbage);
}

}  // namespace
}  // namespace keel
