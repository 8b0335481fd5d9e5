// Shared by the shell sandbox tests: a workspace, a fake $HOME with an SSH key and a fake
// $KEEL_HOME with a database file (both outside /tmp, so only the sandbox's hiding of $HOME and
// $KEEL_HOME can keep them out of reach, not its private /tmp), and a way to run the shell tool
// with adjusted options.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <filesystem>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "keel/builtin_tools.hpp"
#include "support/temp_dir.hpp"

namespace keel::testing {

inline bool has_text(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Sets environment variables for a test and restores them afterwards.
class EnvOverrides {
 public:
  EnvOverrides() = default;
  EnvOverrides(const EnvOverrides&) = delete;
  EnvOverrides& operator=(const EnvOverrides&) = delete;
  ~EnvOverrides() {
    for (const auto& [name, old] : saved_) {
      if (old) {
        ::setenv(name.c_str(), old->c_str(), 1);
      } else {
        ::unsetenv(name.c_str());
      }
    }
  }
  void set(const std::string& name, const std::string& value) {
    remember(name);
    ::setenv(name.c_str(), value.c_str(), 1);
  }
  void unset(const std::string& name) {
    remember(name);
    ::unsetenv(name.c_str());
  }

 private:
  void remember(const std::string& name) {
    if (saved_.count(name) != 0) return;
    const char* v = std::getenv(name.c_str());
    saved_[name] = v != nullptr ? std::optional<std::string>(v) : std::nullopt;
  }
  std::map<std::string, std::optional<std::string>> saved_;
};

// A fresh folder under /var/tmp (outside the sandbox's private /tmp), removed afterwards.
class VarTmpDir {
 public:
  VarTmpDir() {
    char name[] = "/var/tmp/keel-sandbox-test-XXXXXX";
    if (::mkdtemp(name) != nullptr) path_ = name;
  }
  ~VarTmpDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  VarTmpDir(const VarTmpDir&) = delete;
  VarTmpDir& operator=(const VarTmpDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

class ShellSandboxTest : public ::testing::Test {
 protected:
  static constexpr const char* kSshSecret = "SSH-KEY-SECRET-4f2a";
  static constexpr const char* kDbSecret = "DATABASE-SECRET-9c1e";

  void SetUp() override {
    ::prctl(PR_SET_CHILD_SUBREAPER, 1);  // adopt what a killed sandbox leaves, as the shell tests do
    ASSERT_FALSE(home_.path().empty());
    ASSERT_FALSE(keel_home_.path().empty());
    std::filesystem::create_directories(home_.path() / ".ssh");
    write(home_.path() / ".ssh/id_ed25519", kSshSecret);
    write(keel_home_.path() / "keel.db", kDbSecret);
    env_.set("HOME", home_.path().string());
    env_.set("KEEL_HOME", keel_home_.path().string());
    env_.unset("XDG_CONFIG_HOME");
    options_.workspace_root = workspace_.path().string();
    options_.shell_timeout_ms = 20000;
    options_.shell_sandbox.mode = SandboxMode::kWorkspaceWrite;
  }
  void TearDown() override { ::prctl(PR_SET_CHILD_SUBREAPER, 0); }

  static void write(const std::filesystem::path& path, const std::string& text) {
    FILE* f = std::fopen(path.c_str(), "w");
    ASSERT_NE(f, nullptr) << path;
    std::fputs(text.c_str(), f);
    std::fclose(f);
  }

  // Runs `command` with the shell tool under options_ (as adjusted by the test).
  Result<std::string> shell(const std::string& command, int64_t timeout_ms = 0) {
    ToolRegistry registry;
    Status added = register_builtin_tools(registry, options_);
    if (!added.ok()) return added;
    nlohmann::json args = {{"command", command}};
    if (timeout_ms > 0) args["timeout_ms"] = timeout_ms;
    ToolContext ctx;
    ctx.workspace_root = options_.workspace_root;
    ctx.call_id = "c";
    return registry.find("shell")->execute(args, ctx);
  }

  EnvOverrides env_;
  VarTmpDir home_;
  VarTmpDir keel_home_;
  TempDir workspace_;
  BuiltinToolOptions options_;
};

}  // namespace keel::testing
