// Shared fixture of the web tool tests: a StaticHttpServer on 127.0.0.1, a registry with the web
// tools (127.0.0.1 explicitly allowed unless a test says otherwise), a way to run a tool as the
// executor would (schema first) and the HTML fixtures from test/fixtures/html.
//
// Thread-safety: a fixture belongs to one test on one thread (the server it owns is thread-safe).
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stop_token>
#include <string>

#include "keel/web_tools.hpp"
#include "support/static_http_server.hpp"

namespace keel::testing {

// The bytes of test/fixtures/html/<name>; fails the test when missing.
inline std::string html_fixture(const std::string& name) {
  std::ifstream in(std::string(KEEL_SOURCE_DIR) + "/test/fixtures/html/" + name, std::ios::binary);
  EXPECT_TRUE(in.good()) << "missing fixture " << name;
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

class WebToolsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(server_.running());
    options_.allowed = {"127.0.0.1"};
    options_.timeout_ms = 5000;
    options_.connect_timeout_ms = 2000;
  }

  // Registers the tools with options_ (call after adjusting them).
  void register_tools() {
    registry_ = ToolRegistry();
    const Status s = register_web_tools(registry_, options_);
    ASSERT_TRUE(s.ok()) << s.to_string();
  }

  // Runs a tool as the executor would: the schema check first, then execute().
  Result<std::string> run(std::string_view tool, const nlohmann::json& args) {
    if (registry_.size() == 0) register_tools();
    Status valid = registry_.validate_arguments(tool, args);
    if (!valid.ok()) return valid;
    ToolContext ctx;
    ctx.stop = stop_.get_token();
    ctx.workspace_root = "/";
    ctx.call_id = "call_1";
    return registry_.find(tool)->execute(args, ctx);
  }

  // Runs a tool whose output is JSON and parses it; fails the test on an error.
  nlohmann::json run_json(std::string_view tool, const nlohmann::json& args) {
    Result<std::string> r = run(tool, args);
    EXPECT_TRUE(r.ok()) << r.status().to_string();
    if (!r.ok()) return nlohmann::json();
    return nlohmann::json::parse(r.value());
  }

  StaticHttpServer server_;
  WebToolOptions options_;
  ToolRegistry registry_;
  std::stop_source stop_;
};

}  // namespace keel::testing
