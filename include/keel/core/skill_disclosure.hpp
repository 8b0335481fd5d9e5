// keel/core/skill_disclosure.hpp — the "Skills" section of the system prompt, within a token budget.
//
// Progressive disclosure: the model first sees only each knowledge skill's name and description;
// it reads a skill's body with the load_skill tool when it needs it. Skills whose triggers match
// the task are the exception: their bodies are put into the prompt at run start, under a second
// budget. Both budgets are shares of the context window, counted with the run's TokenCounter:
//
//   index   max(min_tokens, window * share_percent / 100); unknown_window_tokens when window is 0
//   bodies  max(body_min_tokens, window * body_share_percent / 100); body_unknown_window_tokens
//           when window is 0
//
// Index order: triggered skills first, then the rest, each group by name. Lines are taken in that
// order while they fit; the first that does not fit ends the list, and the rest are counted in one
// line ("… and 7 more skills; call load_skill with a name ..."), so what is kept is always the
// most relevant prefix. Descriptions longer than max_description_chars are cut ("…").
// Bodies: triggered skills by name; each gets what is left of the body budget, cut at a line
// boundary with a note naming load_skill when it is longer; once less than kMinBodyTokens are left,
// the remaining triggered skills are only marked in the index ("matches this task; call load_skill").
//
//   std::vector<keel::SkillEntry> entries = {{.name = "gas", .description = "Ethereum gas prices"}};
//   keel::SkillDisclosure d = keel::disclose_skills(entries, 32768, keel::EstimatingTokenCounter(), {});
//   parts.skills = d.text;
//
// Pure: no I/O; builds for WebAssembly. Thread-safety: pure functions over plain values.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "keel/core/token_counter.hpp"

namespace keel {

struct SkillDisclosureOptions {
  int share_percent = 2;                     // index budget, percent of the context window (1..100)
  size_t min_tokens = 256;                   // the index budget is never below this, tokens
  size_t unknown_window_tokens = 1024;       // index budget when the window is unknown (0), tokens
  int body_share_percent = 10;               // triggered bodies' budget, percent of the window (0: no bodies)
  size_t body_min_tokens = 512;              // the bodies' budget is never below this (unless the share is 0)
  size_t body_unknown_window_tokens = 4096;  // bodies' budget when the window is unknown, tokens
  size_t max_description_chars = 300;        // longer descriptions are cut in the index (bytes, UTF-8 safe)
  bool load_tool = true;                     // the model has load_skill (the text tells it to use it)
};

// One skill as the disclosure sees it (the caller leaves disabled skills out).
struct SkillEntry {
  std::string name;
  std::string description;
  bool triggered = false;  // its triggers matched the task: its body goes into the prompt
  std::string body;        // used only when triggered
};

struct SkillDisclosure {
  std::string text;                 // the section ("# Skills ..."), empty when there are no skills
  std::vector<std::string> listed;  // names in the index, in order
  size_t omitted = 0;               // skills counted in the "more" line
  std::vector<std::string> loaded;  // triggered skills whose body is in the text (whole or cut)
  std::vector<std::string> cut;     // ... of those, the ones cut to fit
  size_t index_budget = 0;          // tokens the index could use
  size_t body_budget = 0;           // tokens the bodies could use
};

// Fewest tokens a triggered body is given; below this the rest are left to load_skill.
inline constexpr size_t kMinBodyTokens = 64;

// The index budget for a context window of `window` tokens (0: unknown).
size_t skill_index_budget(size_t window, const SkillDisclosureOptions& options);
// The triggered bodies' budget for a context window of `window` tokens (0: unknown).
size_t skill_body_budget(size_t window, const SkillDisclosureOptions& options);

// Builds the section. `skills` may be in any order; names should be unique.
SkillDisclosure disclose_skills(std::span<const SkillEntry> skills, size_t window, const TokenCounter& counter,
                                const SkillDisclosureOptions& options);

// The longest prefix of `text` that counts at most `max_tokens`, cut after a newline when one is
// in its second half, else on a UTF-8 character boundary. `text` itself when it fits.
std::string cut_to_tokens(const std::string& text, size_t max_tokens, const TokenCounter& counter);

}  // namespace keel
