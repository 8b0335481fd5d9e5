// keel/executable_skill.hpp — an executable skill: a contract-bound model call (seed 002).
//
// A skill is a folder with a skill.json manifest and SKILL.md instructions, or a built-in defined
// in code (such as `extract`). The skill runner (keel/skill_runner.hpp) orders the selected skills
// by their `depends`, skips those whose `skipWhen` holds, asks the model for each one's output,
// repairs and validates it against the output schema (plus the skill's own check), retries once
// with the error appended, and fails explicitly after that. What the skill's action may do is
// governed by its approval mode.
//
// Thread-safety: plain values; `check` and `heuristic` must be safe to call from several threads.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "keel/result.hpp"

namespace keel {

// What may happen with a skill's output beyond recording it (seed 002's three tiers).
enum class SkillApprovalMode {
  kAdvisory,         // the output is recorded; its action, if any, never runs
  kProposal,         // the action is queued for a person's approval (`keel skills proposals`)
  kAutoRunEligible,  // the action runs by itself where the user enabled auto-run for the skill,
                     // else it is queued like a proposal
};

// "advisory", "proposal", "auto-run-eligible".
std::string_view skill_approval_mode_name(SkillApprovalMode mode);
// The mode named `name` as skill_approval_mode_name() spells it; nullopt otherwise.
std::optional<SkillApprovalMode> parse_skill_approval_mode(std::string_view name);

// The action a skill proposes: a call of a registered tool whose arguments come from the output.
struct SkillAction {
  std::string tool;                // a registered tool's name
  std::string arguments_pointer;   // JSON Pointer into the output selecting the arguments object; "": the whole output
};

// skill.json. Keys are camelCase in the file (inputSchema, outputSchema, approvalMode, timeoutMs,
// maxTokens, skipWhen); unknown keys are an error naming the file, to catch typos.
struct SkillManifest {
  std::string id;           // [a-z0-9][a-z0-9-]*, unique among loaded skills
  std::string version;      // free-form, e.g. "0.1.0"
  std::string description;  // one sentence
  std::string model;        // a model name as --model takes it; "": the run's model
  std::vector<std::string> triggers;  // names that select the skill (`keel skills run --trigger NAME`)
  std::string input_schema;   // JSON Schema text of the input; "": any JSON object
  std::string output_schema;  // JSON Schema text of the output; required
  SkillApprovalMode approval_mode = SkillApprovalMode::kAdvisory;
  int64_t timeout_ms = 60000;           // the whole skill, retries included
  std::optional<int> max_tokens;        // per model call; unset: the backend's default
  std::vector<std::string> depends;     // ids of skills that must run (and succeed or be skipped) first
  // Conditions checked before the skill runs; any that holds skips it without a model call.
  // "no-KEY": the graph's context has no value KEY, or it is null, false, 0, "" or an empty
  // array/object. "has-KEY": the opposite.
  std::vector<std::string> skip_when;
  std::vector<std::string> provides;    // output members put into the graph's context for dependents
  std::optional<SkillAction> action;
};

struct ExecutableSkill {
  SkillManifest manifest;
  std::string instructions;  // SKILL.md body (frontmatter removed)
  std::string dir;           // the skill's folder; "" for a built-in
  // A semantic check after schema validation (e.g. extract's anti-hallucination guard). Its error
  // message is shown to the model on the retry and names what is wrong. Unset: none.
  std::function<Status(const nlohmann::json& output, const nlohmann::json& input)> check;
  // A deterministic fallback used instead of a model where no model can answer (the rules tier,
  // seed 002's heuristic tier). Its output goes through the same validation. Unset: none.
  std::function<Result<nlohmann::json>(const nlohmann::json& input)> heuristic;
};

// The skills keel ships (today: `extract`). A folder skill with the same id hides a built-in.
std::vector<ExecutableSkill> builtin_executable_skills();

}  // namespace keel
