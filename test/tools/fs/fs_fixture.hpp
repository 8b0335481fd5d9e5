// Shared set-up for the fs tool tests: a temporary folder holding the workspace "ws", a read-only
// root "docs", a writable root "notes" and a folder "outside" that no tool may touch, with the
// built-in tools registered on those roots.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <stop_token>
#include <string>

#include "keel/builtin_tools.hpp"
#include "keel/tool_registry.hpp"
#include "support/temp_dir.hpp"

namespace keel::testing {

class FsFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    namespace fs = std::filesystem;
    ws_ = tmp_.path() / "ws";
    docs_ = tmp_.path() / "docs";
    notes_ = tmp_.path() / "notes";
    outside_ = tmp_.path() / "outside";
    for (const fs::path& p : {ws_, docs_, notes_, outside_}) fs::create_directories(p);
    options_.workspace_root = ws_.string();
    options_.extra_roots = {FsRoot{"docs", docs_.string(), true}, FsRoot{"notes", notes_.string(), false}};
    options_.enable_shell = false;
    Status s = register_builtin_tools(registry_, options_);
    ASSERT_TRUE(s.ok()) << s.to_string();
  }

  // Validates the arguments as the executor would, then runs the tool.
  Result<std::string> run(std::string_view tool, const nlohmann::json& args) {
    Status valid = registry_.validate_arguments(tool, args);
    if (!valid.ok()) return valid;
    ToolContext ctx;
    ctx.stop = stop_.get_token();
    ctx.workspace_root = ws_.string();
    ctx.call_id = "call_1";
    return registry_.find(tool)->execute(args, ctx);
  }

  // Writes `content` to `relative` (under the temporary folder, e.g. "ws/a.txt").
  std::filesystem::path put(std::string_view relative, std::string_view content) {
    return tmp_.write(relative, content);
  }

  // Every entry under `dir` (links not followed): relative path → "file:<content>",
  // "dir", "link:<target>" or "other".
  static std::map<std::string, std::string> snapshot(const std::filesystem::path& dir) {
    namespace fs = std::filesystem;
    std::map<std::string, std::string> out;
    std::error_code ec;
    for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      const std::string rel = it->path().lexically_relative(dir).generic_string();
      const fs::file_status st = it->symlink_status(ec);
      if (fs::is_symlink(st)) {
        out[rel] = "link:" + fs::read_symlink(it->path(), ec).string();
      } else if (fs::is_directory(st)) {
        out[rel] = "dir";
      } else if (fs::is_regular_file(st)) {
        out[rel] = "file:" + read_file(it->path());
      } else {
        out[rel] = "other";
      }
    }
    return out;
  }

  TempDir tmp_;
  std::filesystem::path ws_, docs_, notes_, outside_;
  BuiltinToolOptions options_;
  ToolRegistry registry_;
  std::stop_source stop_;
};

}  // namespace keel::testing
