// Fixture of the e2e tests of the database commands (sessions, fork, trace, memory): a database
// at $KEEL_HOME/keel.db that the test fills through the Store API, and the keel binary run with
// KEEL_HOME pointing at it, TZ=UTC (so local times are predictable) and a workspace as its cwd.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "keel/store/sqlite_store.hpp"
#include "support/cli_runner.hpp"
#include "support/temp_dir.hpp"

namespace keel::testing {

class StoreCliTest : public ::testing::Test {
 protected:
  // 2023-11-14 22:13:20 UTC.
  static constexpr int64_t kT0 = 1'700'000'000'000;

  void SetUp() override {
    StoreOptions o;
    o.path = db_path();
    o.now_ms = [this] { return clock_; };
    auto opened = open_sqlite_store(o);
    ASSERT_TRUE(opened.ok()) << opened.status().to_string();
    store_ = std::move(opened).value();
  }

  std::filesystem::path db_path() const { return home_.path() / "keel.db"; }
  std::string workspace() const { return ws_.path().string(); }

  CliRun keel(const std::vector<std::string>& args, std::string cwd = "") {
    CliOptions o;
    o.env["KEEL_HOME"] = home_.path().string();
    o.env["TZ"] = "UTC";
    o.cwd = cwd.empty() ? workspace() : std::move(cwd);
    return run_cli(KEEL_BINARY, args, o);
  }

  std::string new_session(const std::string& title, const std::string& workspace, bool hidden = false) {
    SessionInfo info;
    info.title = title;
    info.workspace = workspace;
    info.model = "openai/gpt-test";
    info.hidden = hidden;
    info.created_ms = clock_;
    auto id = store_->create_session(info);
    EXPECT_TRUE(id.ok()) << id.status().to_string();
    return id.value_or("");
  }

  std::string new_run(const std::string& session_id, const std::string& task) {
    RunInfo info;
    info.session_id = session_id;
    info.task = task;
    info.started_ms = clock_;
    auto id = store_->create_run(info);
    EXPECT_TRUE(id.ok()) << id.status().to_string();
    return id.value_or("");
  }

  void append(const std::string& session_id, const std::string& run_id, const Message& m, int64_t tokens = 0) {
    auto seq = store_->append_message(session_id, run_id, m, tokens);
    EXPECT_TRUE(seq.ok()) << seq.status().to_string();
  }

  TempDir home_;
  TempDir ws_;
  int64_t clock_ = kT0;
  std::unique_ptr<Store> store_;
};

// The lines of `text` that contain `needle`.
inline std::vector<std::string> lines_with(const std::string& text, const std::string& needle) {
  std::vector<std::string> out;
  for (const std::string& l : lines_of(text)) {
    if (l.find(needle) != std::string::npos) out.push_back(l);
  }
  return out;
}

}  // namespace keel::testing
