// keel/core/prompt_builder.hpp — the sectioned system prompt and the runtime continuation prompt.
//
// The system prompt is built once per run from sections: core instructions, tool documentation
// from the registry, project instructions (AGENTS.md), knowledge skills (built by
// keel/core/skill_disclosure.hpp) and preflight hints. The continuation
// prompt is built before every model call after the first: last round's tool summary, standing
// denials, guard notes, the injection safety note and "round k of N" (seed 000).
//
// Thread-safety: pure functions.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "keel/core/agent_config.hpp"
#include "keel/tool_spec.hpp"

namespace keel {

struct SystemPromptParts {
  std::string core_instructions;     // empty: keel's default instructions
  std::span<const ToolSpec> tools;   // documented in the "Tools" section
  ToolProtocol protocol = ToolProtocol::kNative;  // kText adds schemas and the call format
  std::string project_instructions;  // contents of AGENTS.md, or empty
  std::string skills;                // the "Skills" section (SkillDisclosure::text), or empty
  std::vector<std::string> hints;    // preflight hints, or empty
};

// keel's default core instructions.
std::string default_core_instructions();

std::string build_system_prompt(const SystemPromptParts& parts);

// `system_prompt` with `hint` added as the last item of its Hints section, which
// build_system_prompt() puts last; a prompt whose last section is not "# Hints" gets one. The
// result is what build_system_prompt() gives with `hint` appended to SystemPromptParts::hints.
std::string add_prompt_hint(std::string system_prompt, std::string_view hint);

struct ContinuationParts {
  int round = 2;                            // the round about to start
  int max_rounds = 20;
  std::vector<std::string> tool_summary;    // one line per call of the last round
  std::vector<std::string> denials;         // standing constraints for the run
  std::vector<std::string> guard_notes;     // guard firings of the last round
  bool injection_warning = false;           // a result of the last round was flagged
  bool final_round = false;                 // tools are disabled: answer now
  std::string correction;                   // e.g. after an empty reply; empty for none
};

std::string build_continuation_prompt(const ContinuationParts& parts);

// The text of the safety note added when a tool result was flagged as a possible injection.
std::string injection_safety_note();

// keel's repair prompt (the same text as prompts/repair.md in the source tree).
std::string default_repair_prompt();

// `templ` (or the default when empty) with {error} and {tools} replaced.
std::string render_repair_prompt(const std::string& templ, const std::string& error, const std::string& tools);

}  // namespace keel
