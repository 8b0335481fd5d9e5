// One executable skill's model work, run on a pool worker: the model call, the output pipeline,
// the one retry with the error shown to the model, and the heuristic where no model can answer.
//
// Thread-safety: run_skill_call() touches only its SkillCall (and calls the client, the skill's
// check and its heuristic, which must allow concurrent use).
#pragma once

#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <stop_token>
#include <string>
#include <vector>

#include "keel/llm_client.hpp"
#include "keel/skill_runner.hpp"
#include "skills/compiled_skill.hpp"

namespace keel::detail {

struct SkillCall {
  std::shared_ptr<const CompiledSkill> skill;
  LlmClient* client = nullptr;                     // nullptr: none could be made (client_error says why)
  std::unique_ptr<LlmClient> owned_client;         // the client the model factory made for this skill
  Status client_error;                             // why there is no client
  bool rules = false;                              // the client is the rules model: the heuristic answers
  std::vector<Message> messages;                   // the first request (system, user)
  nlohmann::json input;                            // the run's input: for the check and the heuristic
  std::chrono::steady_clock::time_point deadline;  // the skill's timeout, retries included
  std::stop_token stop;                            // this skill's: requested on timeout or when the run stops
  std::stop_token run_stop;                        // the run's: requested when the caller stops everything
};

// An outcome with status kSucceeded or kFailed and the metrics filled in (duration, backend,
// retries, repairs, output or error and raw output).
SkillOutcome run_skill_call(const SkillCall& call);

// "skill 'ID' timed out after N ms (its timeoutMs)".
std::string skill_timeout_message(const SkillManifest& manifest);

}  // namespace keel::detail
