// Test helper: a registry holding the data tools, and calls that go through schema validation
// first, as the executor does.
#pragma once

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <stop_token>
#include <string>
#include <string_view>

#include "keel/data_tools.hpp"
#include "keel/tool_registry.hpp"

namespace keel::testing {

class DataToolHarness {
 public:
  explicit DataToolHarness(const DataToolOptions& options = DataToolOptions()) {
    const Status s = register_data_tools(registry_, options);
    EXPECT_TRUE(s.ok()) << s.to_string();
  }

  ToolRegistry& registry() { return registry_; }

  Result<std::string> run(std::string_view tool, const nlohmann::json& args, std::stop_token stop = {}) {
    Status valid = registry_.validate_arguments(tool, args);
    if (!valid.ok()) return valid;
    ToolContext ctx;
    ctx.stop = std::move(stop);
    ctx.workspace_root = "/";
    ctx.call_id = "call_1";
    return registry_.find(tool)->execute(args, ctx);
  }

  // The parsed JSON output of a call that must succeed (null after a test failure otherwise).
  nlohmann::json ok(std::string_view tool, const nlohmann::json& args) {
    Result<std::string> r = run(tool, args);
    EXPECT_TRUE(r.ok()) << tool << ": " << r.status().to_string();
    if (!r.ok()) return nullptr;
    nlohmann::json out = nlohmann::json::parse(*r, nullptr, /*allow_exceptions=*/false);
    EXPECT_FALSE(out.is_discarded()) << "not JSON: " << *r;
    return out;
  }

  // The result of a script that must succeed.
  nlohmann::json script(std::string_view code, const nlohmann::json& inputs = nullptr) {
    nlohmann::json args = {{"code", code}};
    if (!inputs.is_null()) args["inputs"] = inputs;
    nlohmann::json out = ok("script", args);
    return out.is_object() && out.contains("result") ? out["result"] : nlohmann::json("<no result>");
  }

  // The error of a script that must fail.
  Status script_error(std::string_view code, std::stop_token stop = {}) {
    Result<std::string> r = run("script", {{"code", code}}, std::move(stop));
    EXPECT_FALSE(r.ok()) << "script unexpectedly succeeded with " << (r.ok() ? *r : "") << "\ncode: " << code;
    return r.status();
  }

 private:
  ToolRegistry registry_;
};

// Whether `text` contains `part` (for EXPECT_TRUE with a readable failure via the << message).
inline bool has(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }

}  // namespace keel::testing
