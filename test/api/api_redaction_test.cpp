// Secrets never leave a tool's output: with keel serve's own agent factory, a tool that reads the
// value of OPENAI_API_KEY hands the model, the stored messages and tool runs, the events and the
// traces "[REDACTED:OPENAI_API_KEY]" instead; a credential shorter than 8 characters is left as is;
// a backend error that echoes the key is redacted too.
#include <gtest/gtest.h>

#include "support/api_harness.hpp"
#include "support/scoped_env.hpp"

namespace keel::testing {
namespace {

using nlohmann::json;

constexpr const char* kRedactKey = "sk-test-9f8e7d6c5b4a39281706";
constexpr const char* kRedactShort = "abc1234";  // 7 characters: not redacted

class ApiRedaction : public ::testing::Test {
 protected:
  ApiHarnessOptions options() {
    ApiHarnessOptions o;
    o.serve_factory = true;
    o.workspace_files = {{"creds.txt", std::string("key=") + kRedactKey + "\nshort=" + kRedactShort + "\n"}};
    return o;
  }
  TempDir home_;
  ScopedEnv home_env_{"HOME", home_.path().string()};
  ScopedEnv xdg_{"XDG_CONFIG_HOME", (home_.path() / "config").string()};
  ScopedEnv keel_home_{"KEEL_HOME", (home_.path() / "keel").string()};
  ScopedEnv model_{"KEEL_MODEL", std::nullopt};
  ScopedEnv key_{"OPENAI_API_KEY", std::string(kRedactKey)};
  ScopedEnv short_{"SHORT_TOKEN", std::string(kRedactShort)};
};

TEST_F(ApiRedaction, AToolsOutputReachesNobodyWithTheSecret) {
  ApiHarness h(options());
  std::string s = h.new_session();
  h.model().push(mock_tool_calls({ToolCall{"c1", "fs_read", R"({"path":"creds.txt"})"}}));
  h.model().push(mock_text("read it"));
  SseReader events(h.port(), "/api/sessions/" + s + "/events");
  std::string run = h.call_json("POST", "/api/sessions/" + s + "/messages", R"({"content":"read creds.txt"})", 202)["run_id"];
  ASSERT_TRUE(events.wait_for("run_finished"));

  // The transcript the model saw.
  ASSERT_EQ(h.model().request_count(), 2u);
  std::string seen = h.model().requests()[1].body;
  EXPECT_EQ(seen.find(kRedactKey), std::string::npos) << seen;
  EXPECT_NE(seen.find("key=[REDACTED:OPENAI_API_KEY]"), std::string::npos) << seen;
  EXPECT_NE(seen.find(std::string("short=") + kRedactShort), std::string::npos) << seen;

  // What was stored: messages, tool runs, spans, the event log.
  bool redacted_message = false;
  auto messages = h.store().load_messages(s);
  ASSERT_TRUE(messages.ok());
  for (const StoredMessage& m : *messages) {
    EXPECT_EQ(m.message.content.find(kRedactKey), std::string::npos) << m.message.content;
    redacted_message = redacted_message || m.message.content.find("[REDACTED:OPENAI_API_KEY]") != std::string::npos;
  }
  EXPECT_TRUE(redacted_message);
  auto tool_runs = h.store().list_tool_runs(run);
  ASSERT_TRUE(tool_runs.ok());
  ASSERT_EQ(tool_runs->size(), 1u);
  EXPECT_EQ((*tool_runs)[0].result.find(kRedactKey), std::string::npos);
  EXPECT_NE((*tool_runs)[0].result.find("[REDACTED:OPENAI_API_KEY]"), std::string::npos) << (*tool_runs)[0].result;
  auto spans = h.store().list_spans(run);
  ASSERT_TRUE(spans.ok());
  for (const SpanRecord& span : *spans) EXPECT_EQ(span.attributes.find(kRedactKey), std::string::npos) << span.attributes;
  auto stored_events = h.store().list_server_events(s, 0, 1000);
  ASSERT_TRUE(stored_events.ok());
  for (const ServerEvent& e : *stored_events) EXPECT_EQ(e.data.find(kRedactKey), std::string::npos) << e.data;

  // The events a client streamed.
  bool redacted_event = false;
  for (const SseEvent& e : events.events()) {
    std::string data = e.data.dump();
    EXPECT_EQ(data.find(kRedactKey), std::string::npos) << e.type << ": " << data;
    if (e.type == "tool_result") redacted_event = data.find("[REDACTED:OPENAI_API_KEY]") != std::string::npos;
  }
  EXPECT_TRUE(redacted_event);
}

TEST_F(ApiRedaction, ABackendErrorThatEchoesTheKeyIsRedacted) {
  ApiHarness h(options());
  std::string s = h.new_session();
  h.model().push(mock_error(401, std::string("Incorrect API key provided: ") + kRedactKey));
  SseReader events(h.port(), "/api/sessions/" + s + "/events");
  std::string run = h.call_json("POST", "/api/sessions/" + s + "/messages", R"({"content":"hi"})", 202)["run_id"];
  auto failed = events.wait_for("run_failed");
  ASSERT_TRUE(failed);
  std::string error = failed->data.dump();
  EXPECT_EQ(error.find(kRedactKey), std::string::npos) << error;
  EXPECT_NE(error.find("[REDACTED:OPENAI_API_KEY]"), std::string::npos) << error;
  auto stored = h.store().get_run(run);
  ASSERT_TRUE(stored.ok());
  EXPECT_EQ(stored->error.find(kRedactKey), std::string::npos) << stored->error;
  auto spans = h.store().list_spans(run);
  ASSERT_TRUE(spans.ok());
  bool error_span = false;
  for (const SpanRecord& span : *spans) {
    EXPECT_EQ(span.attributes.find(kRedactKey), std::string::npos) << span.attributes;
    error_span = error_span || span.attributes.find("[REDACTED:OPENAI_API_KEY]") != std::string::npos;
  }
  EXPECT_TRUE(error_span);
}

}  // namespace
}  // namespace keel::testing
