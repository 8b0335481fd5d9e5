// The keel command line: parse arguments, dispatch to a command, return its exit code.
#include <CLI/CLI.hpp>

#include "cli/commands.hpp"

int main(int argc, char** argv) {
  using namespace keel::cli;
  CLI::App app{"keel — a correctness-first LLM agent runtime", "keel"};
  app.set_version_flag("--version", "keel " KEEL_VERSION);
  app.require_subcommand(1);

  RunArgs run;
  CLI::App* run_cmd = app.add_subcommand("run", "Run an agent on a task until it answers or fails");
  run_cmd->add_option("task", run.task, "What the agent should do")->required();
  run_cmd->add_option("--model,-m", run.model,
                      "Model: rules, openai/NAME, ollama/NAME, lmstudio/NAME, llamacpp/NAME, vllm/NAME, or any name with --base-url");
  run_cmd->add_option("--base-url", run.base_url, "OpenAI-compatible base URL, e.g. http://127.0.0.1:11434/v1");
  run_cmd->add_option("--api-key", run.api_key, "API key (default: $OPENAI_API_KEY)");
  run_cmd->add_option("--workspace,-w", run.workspace, "Folder the tools are confined to (default: current directory)");
  run_cmd->add_option("--max-rounds", run.max_rounds, "Tool rounds before the agent must answer (default 20)")
      ->check(CLI::Range(1, 1000));
  run_cmd->add_option("--max-tokens", run.max_tokens, kMaxTokensHelp)->check(CLI::PositiveNumber);
  run_cmd->add_option("--max-cost", run.max_cost, kMaxCostHelp)->check(CLI::PositiveNumber);
  run_cmd->add_flag("--yes,-y", run.yes, kYesHelp);
  run_cmd->add_option("--approve-mode", run.approve_mode, kApproveModeHelp);
  run_cmd->add_option("--sandbox", run.sandbox, kSandboxHelp);
  run_cmd->add_flag("--json", run.json, "Print every event as one JSON object per line (see docs/events.md)");
  run_cmd->add_flag("--no-stream", run.no_stream, "Ask the backend for whole replies instead of a stream");
  run_cmd->add_option("--session,-s", run.session, "Continue this saved session (see keel sessions list)");
  run_cmd->add_flag("--ephemeral", run.ephemeral, "Save nothing: no session, messages or trace in the database");
  run_cmd->add_option("--record", run.record, kRecordHelp);

  ResumeArgs resume;
  CLI::App* resume_cmd =
      app.add_subcommand("resume", "Finish an interrupted run from its last saved message (ID: run or session)");
  resume_cmd->add_option("id", resume.id, "Run id (r_...) or session id (s_..., its latest run)")->required();
  resume_cmd->add_option("--model,-m", resume.model, "Model, as for keel run");
  resume_cmd->add_option("--base-url", resume.base_url, "OpenAI-compatible base URL");
  resume_cmd->add_option("--api-key", resume.api_key, "API key (default: $OPENAI_API_KEY)");
  resume_cmd->add_option("--workspace,-w", resume.workspace, "Folder the tools are confined to (default: the session's)");
  resume_cmd->add_flag("--yes,-y", resume.yes, kYesHelp);
  resume_cmd->add_option("--approve-mode", resume.approve_mode, kApproveModeHelp);
  resume_cmd->add_option("--sandbox", resume.sandbox, kSandboxHelp);
  resume_cmd->add_flag("--json", resume.json, "Print every event as one JSON object per line");
  resume_cmd->add_flag("--no-stream", resume.no_stream, "Ask the backend for whole replies");
  resume_cmd->add_option("--record", resume.record, kRecordHelp);

  CommandAction action;
  add_chat_command(app, action);
  add_acp_command(app, action);

  ToolsListArgs tools_list;
  CLI::App* tools_cmd = app.add_subcommand("tools", "Inspect the tools an agent can use");
  tools_cmd->require_subcommand(1);
  CLI::App* list_cmd = tools_cmd->add_subcommand("list", "List the built-in tools and their metadata");
  list_cmd->add_option("--workspace,-w", tools_list.workspace, "Workspace folder (default: current directory)");
  list_cmd->add_flag("--json", tools_list.json, "Print the tools as JSON, with their parameter schemas");

  ParseArgs parse;
  CLI::App* parse_cmd = app.add_subcommand("parse", "Show how keel reads tool calls in a model's raw output (JSON)");
  parse_cmd->add_option("input", parse.input, "File with the model output, or - for stdin (default -)");
  parse_cmd->add_option("--format,-f", parse.format, "auto (default) or a format from --list-formats");
  parse_cmd->add_option("--tools", parse.tools, "Tool definitions as an OpenAI tools array (JSON file)");
  parse_cmd->add_flag("--list-formats", parse.list_formats, "List the supported formats and exit");

  add_session_commands(app, action);
  add_trace_command(app, action);
  add_memory_commands(app, action);
  add_approvals_commands(app, action);
  add_mcp_commands(app, action);
  add_hooks_commands(app, action);
  add_skills_commands(app, action);
  add_serve_command(app, action);
  add_autopilot_commands(app, action);
  add_model_commands(app, action);
  add_template_commands(app, action);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? kExitOk : kExitUsage;
  }
  if (action) return action();
  if (run_cmd->parsed()) return run_command(run);
  if (resume_cmd->parsed()) return resume_command(resume);
  if (list_cmd->parsed()) return tools_list_command(tools_list);
  if (parse_cmd->parsed()) return parse_command(parse);
  return kExitUsage;
}
