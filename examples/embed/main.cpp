// Embedding keel in a program, through public headers only.
//
//   keel_embed_example "count the words in: the quick brown fox"                  # rules model
//   keel_embed_example --base-url http://127.0.0.1:11434/v1 --model qwen2.5:7b "count the words in: a b c"
//
// It registers a custom tool (word_count), adds a custom hook that logs tool activity and keeps
// per-run statistics in the run context, and runs one agent to an answer.
#include <cstdio>
#include <cstring>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "keel/agent.hpp"
#include "keel/builtin_tools.hpp"
#include "keel/hooks.hpp"
#include "keel/openai_client.hpp"
#include "keel/rules_model.hpp"
#include "keel/tool.hpp"
#include "keel/tool_registry.hpp"

namespace {

// A custom tool: counts the words of a text. Pure, so it is read-only and may run in parallel.
std::unique_ptr<keel::Tool> make_word_count_tool() {
  keel::ToolSpec spec;
  spec.name = "word_count";
  spec.description = "Counts the words in a text.";
  spec.parameters_schema = R"({
    "type": "object",
    "properties": {"text": {"type": "string", "description": "the text to count"}},
    "required": ["text"],
    "additionalProperties": false
  })";
  spec.read_only = true;
  spec.concurrency_safe = true;
  spec.timeout_ms = 2000;
  return keel::make_tool(spec, [](const nlohmann::json& args, const keel::ToolContext&) -> keel::Result<std::string> {
    std::istringstream in(args.at("text").get<std::string>());
    std::string word;
    int count = 0;
    while (in >> word) ++count;
    if (count == 0) return keel::Status::InvalidArgument("the text has no words; pass a non-empty text");
    return std::to_string(count) + " words";
  });
}

// A custom hook: logs tool calls and guard firings to stderr and counts calls per run. Hooks are
// stateless; the count lives in the run's context metadata.
class ActivityLog final : public keel::Hooks {
 public:
  void on_tool_call(keel::RunContext& ctx, const keel::ToolCall& call) override {
    int n = std::atoi(ctx.metadata["example.calls"].c_str()) + 1;
    ctx.metadata["example.calls"] = std::to_string(n);
    std::fprintf(stderr, "[round %d] calling %s %s\n", ctx.round, call.name.c_str(), call.arguments.c_str());
  }
  void on_tool_result(keel::RunContext&, const keel::ToolCall& call, const keel::ToolResult& result) override {
    std::fprintf(stderr, "  %s -> %s: %s\n", call.name.c_str(), std::string(keel::tool_status_name(result.status)).c_str(),
                 result.content.substr(0, 80).c_str());
  }
  void on_guard_fired(keel::RunContext&, const keel::GuardEvent& guard) override {
    std::fprintf(stderr, "  guard %s: %s\n", std::string(keel::guard_kind_name(guard.kind)).c_str(), guard.detail.c_str());
  }
  void on_run_finished(keel::RunContext& ctx, const keel::RunOutcome& outcome) override {
    std::fprintf(stderr, "finished in %d round(s), %s tool call(s), %lld ms\n", outcome.rounds,
                 ctx.metadata["example.calls"].empty() ? "0" : ctx.metadata["example.calls"].c_str(),
                 static_cast<long long>(outcome.duration_ms));
  }
};

}  // namespace

int main(int argc, char** argv) {
  std::string base_url, model, task;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--base-url") == 0 && i + 1 < argc) base_url = argv[++i];
    else if (std::strcmp(argv[i], "--model") == 0 && i + 1 < argc) model = argv[++i];
    else task = argv[i];
  }
  if (task.empty()) {
    std::fprintf(stderr, "usage: %s [--base-url URL --model NAME] \"task\"\n", argv[0]);
    return 2;
  }

  // 1. A backend: an OpenAI-compatible server when given, else the deterministic rules model.
  std::unique_ptr<keel::LlmClient> llm;
  if (!base_url.empty()) {
    keel::OpenAiOptions options;
    options.base_url = base_url;
    options.model = model;
    if (keel::Status s = keel::validate_openai_options(options); !s.ok()) {
      std::fprintf(stderr, "error: %s\n", s.message().c_str());
      return 2;
    }
    llm = keel::make_openai_client(options);
  } else {
    llm = keel::make_rules_model();
  }

  // 2. Tools: the built-ins confined to the current directory, plus our own.
  keel::ToolRegistry tools;
  keel::BuiltinToolOptions builtin;
  builtin.workspace_root = ".";
  builtin.enable_shell = false;
  for (keel::Status s : {keel::register_builtin_tools(tools, builtin), tools.add(make_word_count_tool())}) {
    if (!s.ok()) {
      std::fprintf(stderr, "error: %s\n", s.message().c_str());
      return 2;
    }
  }

  // 3. The agent, with a bounded loop and our hook.
  keel::AgentOptions options;
  options.config.max_rounds = 6;
  options.workspace = ".";
  keel::Agent agent(*llm, tools, options);
  agent.add_hooks(std::make_shared<ActivityLog>());

  keel::Result<keel::RunOutcome> outcome = agent.run(task);
  if (!outcome.ok()) {
    std::fprintf(stderr, "could not start: %s\n", outcome.status().message().c_str());
    return 2;
  }
  if (!outcome->ok) {
    std::fprintf(stderr, "run failed (%s): %s\n", std::string(keel::failure_kind_name(outcome->failure)).c_str(),
                 outcome->error.c_str());
    return 3;
  }
  std::printf("%s\n", outcome->answer.c_str());
  return 0;
}
