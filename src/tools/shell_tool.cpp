// shell — runs a command with /bin/sh -c in the workspace root (see subprocess.hpp for how the
// child is started, captured and ended).
//
// Exit-code policy: a command that ran to completion is an ok result whatever its exit code; the
// text ends with "[exit code N]". A failing `grep`, `test` or compiler is information the model
// needs together with the output, not a tool failure. Only a command that could not be started,
// timed out ("timed out after N ms", with the output so far) or was cancelled is an error.
//
// Postcondition: a call that runs ls must print more than ls's "total N" line (see
// listing_postcondition()).
//
// Confinement: the command gets the clean environment of base/child_env.hpp plus
// BuiltinToolOptions::shell_env, and runs in the sandbox of BuiltinToolOptions::shell_sandbox
// (base/sandbox.hpp); a sandbox that cannot start is an error and the command does not run.
//
// Timeouts: the call's timeout is BuiltinToolOptions::shell_timeout_ms; the model may ask for a
// shorter one with timeout_ms. The limit is enforced inside the tool, which kills the process
// group, and the executor's stop request (its own timeout or an abort) kills it the same way.
#include <string.h>

#include <algorithm>

#include "keel/core/postcondition.hpp"
#include "tools/builtin_factories.hpp"
#include "tools/fs_common.hpp"
#include "base/subprocess.hpp"

namespace keel::detail {
namespace {

constexpr const char* kSchema = R"({
  "type": "object",
  "properties": {
    "command": {"type": "string", "minLength": 1, "description": "Shell command, run with /bin/sh -c in the workspace root"},
    "timeout_ms": {"type": "integer", "minimum": 1, "description": "Timeout in milliseconds; cannot exceed the configured limit"}
  },
  "required": ["command"],
  "additionalProperties": false
})";

std::string signal_name(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  return abbrev != nullptr ? " (SIG" + std::string(abbrev) + ")" : "";
}

// The output, then one line per note: truncation and how the command ended.
std::string format_output(const SubprocessResult& r, size_t cap) {
  std::string out = r.output;
  if (out.empty()) out = "(no output)";
  if (out.back() != '\n') out += '\n';
  if (r.truncated) {
    out += "[output truncated: " + std::to_string(r.total_bytes) + " bytes total, the first " + std::to_string(cap) +
           " shown]\n";
  }
  return out;
}

Result<std::string> run_shell(const WorkspacePtr& ws, const BuiltinToolOptions& options, const nlohmann::json& args,
                              const ToolContext& ctx) {
  SubprocessRequest req;
  req.command = string_arg(args, "command", "");
  req.cwd = ws->root().string();
  const int64_t limit = std::max(options.shell_timeout_ms, 1);
  const int64_t timeout = std::clamp<int64_t>(int_arg(args, "timeout_ms").value_or(limit), 1, limit);
  req.timeout = std::chrono::milliseconds(timeout);
  req.max_output_bytes = options.max_output_bytes;
  req.stop = ctx.stop;
  req.env = clean_environment(options.shell_env, {});
  req.sandbox = options.shell_sandbox;
  KEEL_ASSIGN_OR_RETURN(SubprocessResult r, run_subprocess(req));

  switch (r.end) {
    case SubprocessResult::End::kExited:
      return format_output(r, options.max_output_bytes) + "[exit code " + std::to_string(r.exit_code) + "]";
    case SubprocessResult::End::kSignaled:
      return format_output(r, options.max_output_bytes) + "[killed by signal " + std::to_string(r.signal) +
             signal_name(r.signal) + "]";
    case SubprocessResult::End::kTimedOut:
      return Status::DeadlineExceeded("command timed out after " + std::to_string(timeout) +
                                      " ms and was killed; output so far:\n" +
                                      format_output(r, options.max_output_bytes));
    case SubprocessResult::End::kCancelled:
      break;
  }
  return Status::Cancelled("command was cancelled and killed after " + std::to_string(r.elapsed_ms) + " ms");
}

// `ls -lS | head -n 1` prints "total 7079928" and nothing else: the block count, not a file.
// Only calls that run ls (or its GNU twins dir and vdir) are checked, because "total 42" from a
// script or `wc` is real data; the result's own note lines are not output.
Postcondition listing_postcondition() {
  Postcondition p = Postcondition::not_metadata_only();
  p.ignore_prefixes = {"[exit code ", "[killed by signal ", "[output truncated: "};
  p.applies_to.argument = "command";
  p.applies_to.programs = {"ls", "dir", "vdir"};
  return p;
}

}  // namespace

std::unique_ptr<Tool> make_shell_tool(WorkspacePtr workspace, const BuiltinToolOptions& options) {
  ToolSpec spec;
  spec.name = "shell";
  spec.description =
      "Run a shell command (/bin/sh -c) in the workspace root; returns its combined stdout and stderr and exit code.";
  switch (options.shell_sandbox.mode) {
    case SandboxMode::kWorkspaceWrite:
      spec.description += " Sandboxed: only the workspace and /tmp are writable; the home folder is hidden";
      break;
    case SandboxMode::kReadOnly:
      spec.description += " Sandboxed: nothing but /tmp is writable; the home folder is hidden";
      break;
    case SandboxMode::kOff:
      break;
  }
  if (options.shell_sandbox.mode != SandboxMode::kOff) {
    spec.description += options.shell_sandbox.network ? "." : "; no network.";
  }
  spec.parameters_schema = kSchema;
  spec.read_only = false;
  spec.concurrency_safe = false;
  spec.risk = Risk::kHigh;
  spec.timeout_ms = options.shell_timeout_ms;
  spec.cacheable = false;
  spec.postconditions.push_back(listing_postcondition());
  return make_tool(std::move(spec), [ws = std::move(workspace), options](const nlohmann::json& args,
                                                                          const ToolContext& ctx) {
    return run_shell(ws, options, args, ctx);
  });
}

}  // namespace keel::detail
