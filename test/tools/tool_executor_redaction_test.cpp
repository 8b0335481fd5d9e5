// ToolExecutorOptions::redactor: a secret's value is replaced in every result (output, a failure's
// message, an exception's text) before the on_finish callback or the caller see it.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <stdexcept>

#include "keel/tool_executor.hpp"

namespace keel {
namespace {

constexpr const char* kRedactedSecret = "tok-0123456789abcdef";

// `prefix` then the secret (built in place: GCC 12's -Warray-bounds misreads string + literal here).
std::string with_prefix(std::string_view prefix) {
  std::string text(kRedactedSecret);
  text.insert(0, prefix);
  return text;
}

ToolSpec redaction_spec(std::string name) {
  ToolSpec spec;
  spec.name = std::move(name);
  spec.description = "test";
  spec.concurrency_safe = true;
  spec.timeout_ms = 5000;
  spec.timeout_floor_ms = 0;
  return spec;
}

TEST(ToolExecutorRedaction, SecretsAreReplacedInOutputsErrorsAndCallbacks) {
  ToolRegistry registry;
  ASSERT_TRUE(registry.add(make_tool(redaction_spec("prints"), [](const nlohmann::json&, const ToolContext&)
                                         -> Result<std::string> { return with_prefix("env: API_TOKEN="); }))
                  .ok());
  ASSERT_TRUE(registry.add(make_tool(redaction_spec("fails"), [](const nlohmann::json&, const ToolContext&)
                                         -> Result<std::string> {
                    return Status::PermissionDenied(with_prefix("401 for token "));
                  }))
                  .ok());
  ASSERT_TRUE(registry.add(make_tool(redaction_spec("throws"), [](const nlohmann::json&, const ToolContext&)
                                         -> Result<std::string> { throw std::runtime_error(kRedactedSecret); }))
                  .ok());
  ToolExecutorOptions options;
  options.threads = 2;
  options.redactor = std::make_shared<const SecretRedactor>(std::vector<Secret>{{"API_TOKEN", kRedactedSecret}});
  ToolExecutor executor(registry, options);
  std::vector<ToolCall> calls = {{"1", "prints", "{}"}, {"2", "fails", "{}"}, {"3", "throws", "{}"}};
  std::vector<std::string> seen;
  BatchCallbacks callbacks;
  callbacks.on_finish = [&](const ToolCall&, const ToolResult& r) { seen.push_back(r.content); };
  std::vector<ToolResult> results = executor.run_batch(calls, callbacks, {});
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[0].content, "env: API_TOKEN=[REDACTED:API_TOKEN]");
  EXPECT_EQ(results[1].content, "401 for token [REDACTED:API_TOKEN]");
  EXPECT_EQ(results[2].content, "tool throws failed: [REDACTED:API_TOKEN]");
  ASSERT_EQ(seen.size(), 3u);
  for (const std::string& s : seen) EXPECT_EQ(s.find(kRedactedSecret), std::string::npos) << s;

  ToolExecutor plain(registry, ToolExecutorOptions{});  // without a redactor, output is as the tool gave it
  EXPECT_EQ(plain.run_batch(std::vector<ToolCall>{{"1", "prints", "{}"}}, {}, {})[0].content,
            std::string("env: API_TOKEN=") + kRedactedSecret);
}

}  // namespace
}  // namespace keel
