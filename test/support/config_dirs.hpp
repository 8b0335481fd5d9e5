// Test fixture for configuration resolution: a workspace folder and a HOME folder inside one temp
// folder, keel.yaml files written on demand, resolve_config() over them.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "keel/config.hpp"
#include "support/temp_dir.hpp"

namespace keel::testing {

class ConfigDirsTest : public ::testing::Test {
 protected:
  ConfigDirsTest() {
    in.workspace = (dir.path() / "ws").string();
    in.home = (dir.path() / "home").string();
    dir.write("ws/.keep", "");
    dir.write("home/.keep", "");
  }
  void workspace_yaml(std::string_view text) { dir.write("ws/keel.yaml", text); }
  void user_yaml(std::string_view text) { dir.write("home/.config/keel/config.yaml", text); }
  std::string workspace_path() const { return in.workspace + "/keel.yaml"; }
  std::string user_path() const { return in.home + "/.config/keel/config.yaml"; }
  Result<KeelConfig> resolve() { return resolve_config(in); }

  TempDir dir;
  ConfigInputs in;
};

}  // namespace keel::testing
