// keel/skill_runner.hpp — loading executable skills from folders and running a selection of them
// as a graph (seed 002's skill DAG, output pipeline and approval tiers).
//
// A run selects skills by id or trigger (plus their dependencies), orders them into levels
// (keel/core/skill_graph.hpp) and runs level by level, the skills of one level in parallel on the
// runner's fixed thread pool. For each skill: skipWhen first (a skipped skill costs no model
// call); then one model call with the skill's instructions, the output schema, the input and what
// its dependencies provided; the reply is repaired, validated (schema, `provides`, the skill's
// check) and, on failure, retried once with the raw reply and the error shown to the model; a
// second failure fails the skill. The skill's heuristic answers instead of the model when the
// model is the rules model or the backend call fails. A failed skill blocks its dependents only.
// Finally the approval mode decides what happens to the skill's action (advisory: reported only;
// proposal: queued in the store; auto-run-eligible: run through the tools where the workspace
// turned auto-run on and the approval policy allows it without asking, else queued).
//
//   KEEL_ASSIGN_OR_RETURN(auto skills, keel::load_executable_skills(config.skill_dirs));
//   keel::SkillRunnerOptions o;
//   o.store = store.get();           // proposals, auto-run settings, trace spans
//   o.workspace = workspace;
//   KEEL_ASSIGN_OR_RETURN(auto runner, keel::SkillRunner::create(std::move(skills), *client, std::move(o)));
//   keel::SkillRunRequest req;
//   req.ids = {"extract"};
//   KEEL_ASSIGN_OR_RETURN(keel::SkillGraphResult r, runner->run(req, nlohmann::json{{"text", "..."}}));
//   for (const keel::SkillOutcome& s : r.skills) std::puts(s.output.c_str());
//
// Thread-safety: a SkillRunner runs one graph at a time (run() must not be called concurrently);
// the LlmClient it is given is called from several pool threads at once, so it must allow that
// (keel's OpenAI-compatible client serialises its requests; the rules model is stateless).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <span>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include "keel/config.hpp"
#include "keel/core/secret_redactor.hpp"
#include "keel/executable_skill.hpp"
#include "keel/llm_client.hpp"
#include "keel/result.hpp"
#include "keel/store/store.hpp"
#include "keel/tool.hpp"
#include "keel/tool_registry.hpp"

namespace keel {

// ---------------------------------------------------------------- loading

// Executable skills from `dirs` (highest precedence first, as KeelConfig::skill_dirs lists them)
// merged with builtin_executable_skills(): each sub-folder holding a skill.json (plus SKILL.md,
// whose frontmatter is dropped) is a skill; folders with only SKILL.md are knowledge skills and
// are skipped; missing folders are skipped. A skill in an earlier folder hides one with the same id
// in a later folder or a built-in. Sorted by id. InvalidArgument naming the file and key for a
// malformed manifest (unknown key, bad id, missing or uncompilable schema, unknown approvalMode or
// skipWhen form, a depends on an unknown id, SKILL.md missing), two folders of one directory
// defining the same id, or a dependency cycle ("skill cycle: a → b → a").
Result<std::vector<ExecutableSkill>> load_executable_skills(std::span<const std::string> dirs);

// Parses one skill.json. `file` names it in messages. Errors as load_executable_skills().
Result<SkillManifest> parse_skill_manifest(std::string_view json_text, std::string_view file);

// ---------------------------------------------------------------- outcomes

enum class SkillStatus {
  kSucceeded,  // the output was accepted
  kSkipped,    // a skipWhen condition held; no model call
  kFailed,     // no acceptable output (or the backend failed without a heuristic)
  kBlocked,    // a dependency failed or was blocked; not run
};

// "succeeded", "skipped", "failed", "blocked".
std::string_view skill_status_name(SkillStatus status);

// What became of a succeeded skill's action.
enum class SkillActionState {
  kNone,       // the skill has no action (nor, for a proposal skill, anything to queue)
  kAdvice,     // advisory: reported, never run
  kQueued,     // a pending proposal is in the store (proposal_id)
  kNotQueued,  // it should have been queued, but there is no store (or storing it failed: detail)
  kExecuted,   // auto-run: the tool ran and succeeded (detail: its output)
  kFailed,     // auto-run: the tool failed, or the policy refused it (detail says which rule)
};

// "none", "advice", "queued", "not_queued", "executed", "failed".
std::string_view skill_action_state_name(SkillActionState state);

struct SkillActionOutcome {
  SkillActionState state = SkillActionState::kNone;
  std::string tool;         // the tool the action calls; empty: the output itself is the proposal
  std::string arguments;    // the arguments taken from the output, compact JSON object text
  int64_t proposal_id = 0;  // kQueued: the stored proposal
  std::string detail;       // one line: why queued / not queued, the tool's output or error
};

// One skill's result and metrics (seed 002's skillRunMetrics).
struct SkillOutcome {
  std::string id;
  SkillStatus status = SkillStatus::kBlocked;
  std::string backend;                    // the client's describe(), or "heuristic"; empty when nothing ran
  int64_t duration_ms = 0;                // wall time of the skill (model calls, validation, heuristic)
  int retries = 0;                        // 0 or 1: the retry after a rejected output
  bool skipped = false;                   // status == kSkipped
  std::string reason;                     // skipped: the condition; blocked: the dependency; failed: the error
  ErrorCode error_code = ErrorCode::kOk;  // failed: the error's code
  bool backend_failed = false;            // failed because the backend failed (no heuristic)
  std::vector<std::string> repairs;       // JSON repairs applied to the accepted output
  std::string output;                     // succeeded: the validated output, compact JSON
  std::string raw_output;                 // the last reply text (kept on failure to show what the model said)
  SkillActionOutcome action;
};

struct SkillGraphResult {
  std::string run_id;                // "sk_" + 16 hex digits; the trace id of the spans
  std::vector<SkillOutcome> skills;  // in plan order (SkillPlan::order)
  std::string context;               // the graph context at the end (input + provided), JSON object
  int64_t duration_ms = 0;
  std::vector<std::string> warnings;  // store writes that failed (spans); the run itself went on
  // No skill failed or was blocked and no action failed.
  bool ok() const;
  // Some skill failed because its backend failed.
  bool backend_failed() const;
};

// An event of a running graph, delivered on the thread that called run().
struct SkillEvent {
  enum class Kind { kStarted, kFinished };
  Kind kind = Kind::kStarted;
  std::string run_id;
  std::string skill;                      // the skill's id
  const SkillOutcome* outcome = nullptr;  // kFinished: the outcome (valid during the call only)
};

// ---------------------------------------------------------------- running

// The client for a manifest's `model` name (not "" or "rules"). Called on the run()'s thread.
using SkillModelFactory = std::function<Result<std::unique_ptr<LlmClient>>(std::string_view model)>;

// How a runner is built; every field has a usable default.
struct SkillRunnerOptions {
  int threads = 4;                            // pool size: most skills of one level running at once (>= 1)
  bool rules_model = false;                   // the run's client is the deterministic rules model
  SkillModelFactory model_factory = nullptr;  // unset: skills naming a model use the run's client
  Store* store = nullptr;               // proposals, auto-run settings, spans; nullptr: none. Must outlive the runner
  std::string workspace = {};           // key of settings and proposals; the tools' root
  const ToolRegistry* tools = nullptr;  // tools that auto-run actions call; must outlive the runner
  ApprovalPolicy approvals = {};        // applied to auto-run actions without asking anyone
  // After a skill's timeout its call is asked to stop; a call still running this much later is
  // abandoned (it keeps a pool worker until it returns). Milliseconds.
  int64_t abandon_grace_ms = 2000;
  // Secrets replaced in the results of the tools actions call (ToolExecutorOptions::redactor).
  std::shared_ptr<const SecretRedactor> redactor = nullptr;
};

// One graph run.
struct SkillRunRequest {
  std::vector<std::string> ids;       // skills to run (their dependencies are added)
  std::vector<std::string> triggers;  // and the skills with any of these triggers
  std::string knowledge = {};         // "Domain knowledge" for every prompt; "": none
  std::function<void(const SkillEvent&)> on_event = nullptr;
  std::stop_token stop = {};  // stops running skills (they fail as cancelled)
};

class SkillRunner {
 public:
  // Compiles the skills' schemas and conditions and checks the graph. `client` must outlive the
  // runner. InvalidArgument naming the skill for a schema or condition that does not compile, an
  // unknown dependency or a cycle.
  static Result<std::unique_ptr<SkillRunner>> create(std::vector<ExecutableSkill> skills, LlmClient& client,
                                                     SkillRunnerOptions options);
  ~SkillRunner();
  SkillRunner(const SkillRunner&) = delete;
  SkillRunner& operator=(const SkillRunner&) = delete;

  // The ids of every skill the runner holds, sorted.
  std::vector<std::string> ids() const;
  // The selected skills (with their dependencies) in plan order. Errors as select_skill_closure().
  Result<std::vector<std::string>> select(std::span<const std::string> ids,
                                          std::span<const std::string> triggers) const;
  // Checks `input` against the inputSchema of every skill in `selected`: InvalidArgument naming
  // the skill and the failing members, or when `input` is not a JSON object.
  Status validate_input(std::span<const std::string> selected, const nlohmann::json& input) const;

  // Runs the selection on `input` (a JSON object). Errors (nothing run): the selection's, the
  // input's (validate_input). Skill failures are in the result, not errors.
  Result<SkillGraphResult> run(const SkillRunRequest& request, const nlohmann::json& input);

 private:
  class Impl;
  explicit SkillRunner(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// A tool an agent can call to run one executable skill (with its dependencies) by id:
// {"id": "extract", "input": {...}}. Its result is a JSON object {"ok", "run_id", "skills": [{id,
// status, reason, output, action}]}; a failed or blocked skill makes the call an error naming the
// skill and why. Risk medium (a skill's action may queue proposals or, where auto-run is on, run
// tools); not concurrency-safe (a runner runs one graph at a time). `runner` must outlive the tool.
std::unique_ptr<Tool> make_run_skill_tool(SkillRunner& runner);

// ---------------------------------------------------------------- proposals

// A person approved pending proposal `id`: runs its action's tool from `tools` (built for the
// proposal's workspace) in the proposal's workspace. The approval answers what the policy would
// ask about; deny patterns, tools in mode deny and saved deny rules still refuse. The proposal
// moves to approved, then to executed (result: the tool's output) or failed (result: the error or
// the refusing rule). A proposal without a tool is marked executed with result "approved".
// Returns the decided proposal. NotFound for an unknown id; FailedPrecondition when it is not
// pending. `redactor` (may be null) replaces secrets in the tool's output before it is stored.
Result<SkillProposal> approve_skill_proposal(Store& store, int64_t id, const ToolRegistry& tools,
                                             const ApprovalPolicy& approvals, std::stop_token stop = {},
                                             std::shared_ptr<const SecretRedactor> redactor = nullptr);

}  // namespace keel
