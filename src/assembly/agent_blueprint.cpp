// The one mapping from configuration to an agent's options and hooks.
#include "assembly/hooks_setup.hpp"
#include "assembly/local_backend.hpp"
#include "assembly/otlp_exporter.hpp"
#include "keel/assembly.hpp"
#include "keel/assembly/secrets.hpp"

namespace keel::assembly {

AgentBlueprint agent_blueprint(const KeelConfig& config, const std::string& workspace, Store* store,
                               const Toolbox& tools, LlmClient& llm, const HostOptions& host) {
  const std::map<std::string, std::string> env = current_environment();
  AgentBlueprint b;
  AgentOptions& o = b.options;
  o.workspace = workspace;
  o.store = store;
  o.stream = config.stream;
  o.approvals = config.approvals;
  // Secrets' values never reach the model, the events or the store through a tool's output.
  o.redactor = make_redactor(config, env);
  for (const auto& rule : config.intents) o.intents.push_back(rule);
  o.planner.enabled = config.planner_enabled;
  o.planner.timeout_ms = config.planner_timeout_ms;
  o.knowledge_skills = tools.knowledge_skills();
  o.skill_disclosure.share_percent = config.skills.disclosure_percent;
  o.config.max_rounds = config.max_rounds;
  o.config.budget.max_tokens = config.max_run_tokens;
  o.config.budget.max_cost = config.max_run_cost;
  if (const ModelPrice* price = model_price(config)) {
    o.config.budget.input_price_per_mtok = price->input_per_mtok;
    o.config.budget.output_price_per_mtok = price->output_per_mtok;
  }
  o.config.repair_prompt = load_prompt("repair.md", workspace, env);
  o.config.context.context_window = static_cast<size_t>(config.context_window);
  if (!uses_lanes(config)) {
    if (size_t local = local_context_window(config); local > 0) o.config.context.context_window = local;
  }
  std::string warning;
  o.config.token_counter = make_token_counter(config, &warning);
  if (!warning.empty() && host.notice) host.notice("warning: " + warning);
  if (std::string note = local_prompt_note(config); !note.empty() && host.notice) host.notice("note: " + note);
  o.config.context.threshold = config.context_threshold_percent / 100.0;
  o.config.context.recency_rounds = config.context_recency_rounds;
  o.config.context.summary_cooldown_rounds = config.context_summary_cooldown_rounds;
  o.config.context.summarize_prompt = load_prompt("summarize.md", workspace, env);
  // A local model's KV cache is saved when a run ends and restored when its session continues;
  // it is kept beside the store, so there is nothing to keep without one.
  if (store != nullptr) {
    if (std::shared_ptr<Hooks> kv = make_local_state_hooks(llm, config)) b.hooks.push_back(std::move(kv));
  }
  // Finished runs' spans go to the OpenTelemetry collector the OTEL_* variables name (the spans
  // are the store's: without one there are none).
  if (store != nullptr) {
    if (std::shared_ptr<OtlpExporter> exporter = process_otlp_exporter()) {
      o.on_trace = [exporter](std::vector<SpanRecord> spans) { exporter->submit(std::move(spans)); };
    }
  } else if (host.notice && otlp_settings_from_env([&env](const char* name) -> const char* {
               auto it = env.find(name);
               return it == env.end() ? nullptr : it->second.c_str();
             }).enabled) {
    host.notice("warning: telemetry: a run without a store (--ephemeral) keeps no trace, so none is exported");
  }
  // Command hooks of the settings files: before the host's output hooks, so what they add to a
  // result or a task is what the host shows.
  Result<std::shared_ptr<detail::CommandHooks>> commands = make_command_hooks(config, workspace, store, env, host.notice);
  if (!commands.ok()) {
    b.problem = commands.status();
  } else if (*commands) {
    b.hooks.push_back(*commands);
    b.subagent_hooks.push_back((*commands)->for_subagents());
  }
  return b;
}

}  // namespace keel::assembly
