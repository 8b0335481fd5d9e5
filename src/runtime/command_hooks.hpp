// runtime/command_hooks.hpp — keel::Hooks that run the command hooks of settings files
// (runtime/hook_settings.hpp) in Claude Code's protocol
// (https://docs.anthropic.com/en/docs/claude-code/hooks): the event as JSON on stdin, the answer
// in the exit code, stderr and stdout (plain text or JSON).
//
// Where keel fires each event:
//   SessionStart      a run starts (source "startup"; "resume" when it continues a stored session
//                     or resumes a stored run); plain stdout or additionalContext joins the task
//   UserPromptSubmit  the task of a run, before the model sees it; exit 2 or decision "block"
//                     refuses it, plain stdout or additionalContext is added to it
//   PreToolUse        before keel's approval policy decides on a call; exit 2 refuses the call
//                     (stderr is the result the model reads), permissionDecision allow|deny|ask and
//                     updatedInput as in on_tool_use (a hook never loosens a policy refusal)
//   PermissionRequest before the approver is asked; decision.behavior allow|deny answers instead
//   Notification      the approver is about to be asked (notification_type "permission_prompt")
//   PostToolUse       after a call ran; exit 2, decision "block" (reason) and additionalContext
//                     are added to the result the model reads
//   SubagentStop      a sub-agent (spawn_agent) answered; as Stop, for the sub-agent (its tool
//                     calls fire PreToolUse, PostToolUse, PermissionRequest too)
//   Stop              the model answered; exit 2 or decision "block" runs another round with the
//                     reason as the next user message (stop_hook_active is then true; the round
//                     limit still applies)
//   PreCompact        before the context is summarized (trigger "manual" or "auto")
//   SessionEnd        the run ended (reason "other")
// Other exit codes, a timeout (the command's process group is killed) and a command that cannot
// start are reported through the warning function and the run goes on. JSON "continue": false
// ends the run with stopReason; systemMessage is shown as a warning.
//
// Commands run with /bin/sh -c in the workspace, with the clean environment of
// base/child_env.hpp plus KEEL_PROJECT_DIR and CLAUDE_PROJECT_DIR, inside the shell sandbox when
// one is given (a sandbox that cannot start means the hook did not run), and identical commands
// of one event run once. They run one after another, in the order of the settings files.
//
// Thread-safety: the agent calls hooks one at a time; the object keeps no per-run state of its own.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "keel/base/sandbox_policy.hpp"
#include "keel/hooks.hpp"
#include "runtime/hook_settings.hpp"

namespace keel::detail {

struct CommandHookOptions {
  std::string workspace;                    // the commands' working directory and *_PROJECT_DIR
  std::optional<SandboxPolicy> sandbox;     // unset or mode off: unconfined
  std::vector<std::string> pass_env;        // more of keel's variables to pass (tools.shell.env)
  std::string permission_mode = "default";  // the hooks' `permission_mode`
  // Where warnings go (a hook that failed or timed out, a systemMessage); unset: stderr.
  std::function<void(const std::string&)> warn;
  // The hooks of a sub-agent (spawn_agent): its answer fires SubagentStop instead of Stop, and
  // SessionStart, UserPromptSubmit and SessionEnd stay the parent's.
  bool subagent = false;
};

class CommandHooks final : public Hooks {
 public:
  CommandHooks(std::vector<HookCommand> commands, CommandHookOptions options);
  ~CommandHooks() override;

  // The commands this object runs.
  const std::vector<HookCommand>& commands() const { return commands_; }
  // The same commands for sub-agents (CommandHookOptions::subagent).
  std::shared_ptr<CommandHooks> for_subagents() const;

  void on_run_started(RunContext& ctx) override;
  void on_prompt_submitted(RunContext& ctx, const std::string& task, PromptActions& actions) override;
  void on_tool_use(RunContext& ctx, const ToolCall& call, const ToolSpec& spec, ToolUseDecision& decision) override;
  void on_permission_request(RunContext& ctx, const ApprovalRequest& request,
                             std::optional<ApprovalDecision>& decision) override;
  void on_approval_requested(RunContext& ctx, const ApprovalRequest& request) override;
  void on_tool_finished(RunContext& ctx, const ToolCall& call, ToolResult& result) override;
  void on_response_complete(RunContext& ctx, const std::string& answer, ResponseActions& actions) override;
  void on_compaction_starting(RunContext& ctx, bool manual) override;
  void on_run_finished(RunContext& ctx, const RunOutcome& outcome) override;
  void on_run_failed(RunContext& ctx, const RunOutcome& outcome) override;

  // How one command ended.
  struct Ran {
    const HookCommand* command = nullptr;
    bool started = false;    // false: it could not start (the warning says why)
    bool timed_out = false;  // killed at its timeout
    int exit_code = -1;
    std::string out, err;
    std::optional<nlohmann::json> json;  // stdout, when it is a JSON object
  };

 private:
  // Runs the commands of `event` whose matcher accepts `subject` with `input` (the common fields
  // are added), reports failures and applies the common JSON fields (continue, systemMessage).
  std::vector<Ran> fire(RunContext& ctx, const std::string& event, std::string_view subject, nlohmann::json input);
  void warn(const std::string& line) const;

  std::vector<HookCommand> commands_;
  CommandHookOptions options_;
};

}  // namespace keel::detail
