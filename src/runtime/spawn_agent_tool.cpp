// The spawn_agent tool (keel/spawn_agent.hpp).
#include <algorithm>
#include <nlohmann/json.hpp>

#include "keel/spawn_agent.hpp"

namespace keel {
namespace {

constexpr const char* kToolName = "spawn_agent";

ToolSpec spawn_spec(const SpawnAgentOptions& o) {
  ToolSpec s;
  s.name = kToolName;
  s.description =
      "Hand a self-contained sub-task to a sub-agent with its own conversation; returns its final answer. "
      "Give it a complete task description and, optionally, the tools it may use.";
  s.parameters_schema = R"({"type":"object","properties":{
    "task":{"type":"string","minLength":1,"description":"the sub-task, complete and self-contained"},
    "tools":{"type":"array","items":{"type":"string"},"description":"tool names the sub-agent may use; default: all of yours"},
    "max_rounds":{"type":"integer","minimum":1,"description":"the sub-agent's round limit"}},
    "required":["task"],"additionalProperties":false})";
  s.read_only = false;
  s.concurrency_safe = true;
  s.risk = Risk::kMedium;
  s.timeout_ms = o.timeout_ms;
  return s;
}

class SpawnAgentTool final : public Tool {
 public:
  SpawnAgentTool(const ToolRegistry& registry, LlmClient& llm, AgentOptions base, std::shared_ptr<Approver> approver,
                 SpawnAgentOptions options)
      : registry_(registry),
        llm_(llm),
        base_(std::move(base)),
        approver_(std::move(approver)),
        options_(options),
        spec_(spawn_spec(options)) {}

  const ToolSpec& spec() const override { return spec_; }

  Result<std::string> execute(const nlohmann::json& args, const ToolContext& ctx) override {
    const int depth = ctx.depth + 1;
    if (ctx.depth >= options_.max_depth) {
      return Status::FailedPrecondition("sub-agents may nest at most " + std::to_string(options_.max_depth) +
                                        " deep; do this part yourself");
    }
    std::vector<std::string> allowed;
    if (auto it = args.find("tools"); it != args.end()) {
      for (const auto& name : *it) {
        const std::string n = name.get<std::string>();
        if (registry_.find(n) == nullptr) {
          std::string known;
          for (const auto& s : registry_.specs()) known += (known.empty() ? "" : ", ") + s.name;
          return Status::InvalidArgument("unknown tool '" + n + "' for the sub-agent; available: " + known);
        }
        if (std::find(allowed.begin(), allowed.end(), n) == allowed.end()) allowed.push_back(n);
      }
    }
    if (allowed.empty()) {
      for (const auto& s : registry_.specs()) allowed.push_back(s.name);
    }
    // The deepest sub-agents cannot spawn again: they do not even see the tool.
    if (depth >= options_.max_depth) std::erase(allowed, std::string(kToolName));

    AgentOptions o = base_;
    o.depth = depth;
    o.parent_session_id = ctx.session_id;
    o.tool_allowlist = std::move(allowed);
    int rounds = options_.default_max_rounds;
    if (auto it = args.find("max_rounds"); it != args.end()) rounds = std::min(it->get<int>(), options_.max_rounds_cap);
    o.config.max_rounds = std::max(1, rounds);
    if (ctx.budget_left.capped()) o.config.budget = ctx.budget_left;  // the tree shares the run's budget
    Agent agent(llm_, registry_, std::move(o));
    if (approver_) agent.set_approver(approver_);
    for (const std::shared_ptr<Hooks>& h : options_.hooks) agent.add_hooks(h);

    // The tool's stop token covers its timeout and the parent's abort.
    Result<RunOutcome> out = agent.run(args.at("task").get<std::string>(), ctx.stop);
    if (!out.ok()) return Status(out.status().code(), "the sub-agent could not start: " + out.status().message());
    if (ctx.add_model_usage) ctx.add_model_usage(out->usage);  // counted in the caller's budget
    if (!out->ok) {
      return Status::Aborted("the sub-agent failed after " + std::to_string(out->rounds) + " rounds: " + out->error);
    }
    return out->answer;
  }

 private:
  const ToolRegistry& registry_;
  LlmClient& llm_;
  AgentOptions base_;
  std::shared_ptr<Approver> approver_;
  SpawnAgentOptions options_;
  ToolSpec spec_;
};

}  // namespace

Status register_spawn_agent_tool(ToolRegistry& registry, LlmClient& llm, AgentOptions base,
                                 std::shared_ptr<Approver> approver, SpawnAgentOptions options) {
  return registry.add(std::make_unique<SpawnAgentTool>(registry, llm, std::move(base), std::move(approver), options));
}

}  // namespace keel
