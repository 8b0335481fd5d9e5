// Helpers shared by the store tests: a database in a temporary folder with a hand-driven clock.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "keel/store/sqlite_store.hpp"
#include "support/temp_dir.hpp"

#define KEEL_ASSERT_OK(expr)                                                  \
  do {                                                                        \
    ::keel::Status keel_assert_status_ = ::keel::detail::to_status(expr);     \
    ASSERT_TRUE(keel_assert_status_.ok()) << keel_assert_status_.to_string(); \
  } while (0)

namespace keel::testing {

class StoreTest : public ::testing::Test {
 protected:
  StoreTest() { reopen(); }

  // Options for a store on db_path() whose clock reads clock_.
  StoreOptions options() {
    StoreOptions o;
    o.path = db_path();
    o.now_ms = [this] { return clock_; };
    return o;
  }
  void reopen() { reopen(options()); }
  void reopen(const StoreOptions& o) {
    store_.reset();
    auto opened = open_sqlite_store(o);
    ASSERT_TRUE(opened.ok()) << opened.status().to_string();
    store_ = std::move(opened).value();
  }
  std::string db_path() const { return (tmp_.path() / "keel.db").string(); }

  std::string new_session(const std::string& title = "t", const std::string& workspace = "/ws") {
    SessionInfo info;
    info.title = title;
    info.workspace = workspace;
    auto id = store_->create_session(info);
    EXPECT_TRUE(id.ok()) << id.status().to_string();
    return id.value_or("");
  }

  TempDir tmp_;
  int64_t clock_ = 1'700'000'000'000;
  std::unique_ptr<Store> store_;
};

}  // namespace keel::testing
