// A host-independent description of an assembled agent (options, tools, hooks) as JSON.
#include <typeinfo>

#include "keel/assembly.hpp"

namespace keel::assembly {
namespace {

nlohmann::json mode_json(const std::optional<ApprovalMode>& mode) {
  return mode ? nlohmann::json(std::string(approval_mode_name(*mode))) : nlohmann::json(nullptr);
}

nlohmann::json approvals_json(const ApprovalPolicy& p) {
  nlohmann::json tools = nlohmann::json::object();
  for (const auto& [name, t] : p.tools) {
    tools[name] = {{"mode", mode_json(t.mode)}, {"allow", t.allow_patterns}, {"deny", t.deny_patterns}};
  }
  return {{"default_mode", mode_json(p.default_mode)}, {"override_mode", mode_json(p.override_mode)},
          {"floor_mode", mode_json(p.floor_mode)}, {"client_may_loosen", p.client_may_loosen.value_or(false)},
          {"tools", tools}};
}

}  // namespace

nlohmann::json describe_agent(const AgentBlueprint& blueprint, const ToolRegistry& tools) {
  const AgentOptions& o = blueprint.options;
  const AgentConfig& c = o.config;
  nlohmann::json intents = nlohmann::json::array();
  for (const IntentRule& r : o.intents) intents.push_back({{"name", r.name}, {"tools", r.tools}});
  nlohmann::json skills = nlohmann::json::array();
  for (const KnowledgeSkill& k : o.knowledge_skills) skills.push_back({{"name", k.name}, {"enabled", k.enabled}});
  nlohmann::json hooks = nlohmann::json::array();
  for (const std::shared_ptr<Hooks>& h : blueprint.hooks) {
    const Hooks& hook = *h;
    hooks.push_back(typeid(hook).name());
  }
  nlohmann::json tool_names = nlohmann::json::array();
  for (const ToolSpec& spec : tools.specs()) tool_names.push_back(spec.name);
  return {
      {"workspace", o.workspace},
      {"store", o.store != nullptr},
      {"stream", o.stream},
      {"planner", {{"enabled", o.planner.enabled}, {"timeout_ms", o.planner.timeout_ms}}},
      {"max_rounds", c.max_rounds},
      {"repair_prompt", c.repair_prompt},
      {"token_counter", c.token_counter != nullptr},
      {"context",
       {{"window", c.context.context_window},
        {"threshold", c.context.threshold},
        {"recency_rounds", c.context.recency_rounds},
        {"summary_cooldown_rounds", c.context.summary_cooldown_rounds},
        {"summarize_prompt", c.context.summarize_prompt}}},
      {"approvals", approvals_json(o.approvals)},
      {"intents", intents},
      {"knowledge_skills", skills},
      {"skill_disclosure_percent", o.skill_disclosure.share_percent},
      {"tool_allowlist", o.tool_allowlist},
      {"tools", tool_names},
      {"hooks", hooks},
  };
}

}  // namespace keel::assembly
