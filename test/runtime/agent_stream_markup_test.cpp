// A model that writes its tool calls as text, streamed: the agent shows only the answer text
// while the reply streams, announces the call by name before the reply ends, then runs it.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "keel/agent.hpp"
#include "support/temp_dir.hpp"

namespace keel {
namespace {

// Streams each scripted reply in small pieces through on_text, as an OpenAI-compatible server
// without a tool parser does, and returns the text unparsed.
class MarkupStreamingLlm final : public LlmClient {
 public:
  explicit MarkupStreamingLlm(std::vector<std::string> replies) : replies_(std::move(replies)) {}
  Result<ModelReply> complete(const ModelRequest&, const CallOptions& options) override {
    ModelReply r;
    r.text = next_ < replies_.size() ? replies_[next_++] : "done";
    for (size_t i = 0; i < r.text.size() && options.stream && options.on_text; i += 3) {
      options.on_text(std::string_view(r.text).substr(i, 3));
    }
    r.finish_reason = "stop";
    return r;
  }
  std::string describe() const override { return "markup-streaming"; }

 private:
  std::vector<std::string> replies_;
  size_t next_ = 0;
};

struct StreamSeen : Hooks {
  std::vector<std::string> events;
  std::string shown;
  void on_model_delta(RunContext&, std::string_view text) override {
    shown.append(text);
    events.push_back("delta");
  }
  void on_call_announced(RunContext&, std::string_view name) override { events.push_back("announced:" + std::string(name)); }
  void on_model_reply(RunContext&, const ModelReply&) override { events.push_back("model_reply"); }
  void on_tool_call(RunContext&, const ToolCall& c) override { events.push_back("tool_call:" + c.name); }
};

std::unique_ptr<Tool> weather_tool() {
  ToolSpec s;
  s.name = "get_weather";
  s.description = "weather";
  s.parameters_schema = R"({"type":"object","properties":{"city":{"type":"string"}},"required":["city"]})";
  s.read_only = true;
  s.risk = Risk::kLow;
  return make_tool(s, [](const nlohmann::json& args, const ToolContext&) -> Result<std::string> {
    return "sunny in " + args["city"].get<std::string>();
  });
}

TEST(AgentStreamMarkupTest, MarkupNeverReachesTheAnswerAndTheCallIsAnnouncedFirst) {
  testing::TempDir dir;
  ToolRegistry tools;
  ASSERT_TRUE(tools.add(weather_tool()).ok());
  MarkupStreamingLlm llm({"Let me check.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Oslo\"}}\n</tool_call>",
                          "It is sunny in Oslo."});
  AgentOptions o;
  o.workspace = dir.path().string();
  Agent agent(llm, tools, o);
  auto seen = std::make_shared<StreamSeen>();
  agent.add_hooks(seen);
  auto out = agent.run("weather in Oslo?");
  ASSERT_TRUE(out.ok());
  ASSERT_TRUE(out->ok) << out->error;
  EXPECT_EQ(out->answer, "It is sunny in Oslo.");
  EXPECT_EQ(seen->shown, "Let me check.It is sunny in Oslo.");
  EXPECT_EQ(seen->shown.find("tool_call"), std::string::npos);
  auto at = [&](const std::string& e) {
    return std::find(seen->events.begin(), seen->events.end(), e) - seen->events.begin();
  };
  ASSERT_LT(at("announced:get_weather"), static_cast<long>(seen->events.size()));
  EXPECT_LT(at("announced:get_weather"), at("model_reply"));
  EXPECT_LT(at("model_reply"), at("tool_call:get_weather"));
}

TEST(AgentStreamMarkupTest, WithoutToolsTheTextStreamsAsItComes) {
  testing::TempDir dir;
  ToolRegistry tools;
  MarkupStreamingLlm llm({"{\"answer\": 42}"});
  AgentOptions o;
  o.workspace = dir.path().string();
  Agent agent(llm, tools, o);
  auto seen = std::make_shared<StreamSeen>();
  agent.add_hooks(seen);
  auto out = agent.run("json please");
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(seen->shown, "{\"answer\": 42}");
  EXPECT_GT(std::count(seen->events.begin(), seen->events.end(), "delta"), 1);  // piece by piece
}

}  // namespace
}  // namespace keel
