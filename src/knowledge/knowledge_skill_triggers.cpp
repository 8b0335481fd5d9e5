// Trigger matching and the Skills section of a run: which enabled skills match the task, handed
// to the pure disclosure (keel/core/skill_disclosure.hpp) with their bodies.
#include <re2/re2.h>

#include <string>
#include <string_view>
#include <vector>

#include "keel/knowledge_skills.hpp"

namespace keel {
namespace {

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

// A letter, digit, '_' or a byte of a non-ASCII character: what may not touch a whole word.
bool is_word_byte(char c) {
  unsigned char u = static_cast<unsigned char>(c);
  return u >= 0x80 || u == '_' || (u >= '0' && u <= '9') || (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z');
}

char lower(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

// Lowercase ASCII, runs of white space as one space, no space at either end.
std::string fold(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  bool space = false;
  for (char c : text) {
    if (is_space(c)) {
      space = !out.empty();
      continue;
    }
    if (space) out.push_back(' ');
    space = false;
    out.push_back(lower(c));
  }
  return out;
}

}  // namespace

bool phrase_matches(std::string_view phrase, std::string_view text) {
  const std::string p = fold(phrase);
  if (p.empty()) return false;
  const std::string t = fold(text);
  const bool word_start = is_word_byte(p.front());
  const bool word_end = is_word_byte(p.back());
  for (size_t at = t.find(p); at != std::string::npos; at = t.find(p, at + 1)) {
    if (word_start && at > 0 && is_word_byte(t[at - 1])) continue;
    const size_t after = at + p.size();
    if (word_end && after < t.size() && is_word_byte(t[after])) continue;
    return true;
  }
  return false;
}

bool knowledge_skill_triggered(const KnowledgeSkill& skill, std::string_view task) {
  for (const std::string& t : skill.triggers) {
    if (phrase_matches(t, task)) return true;
  }
  for (const std::string& p : skill.trigger_patterns) {
    RE2::Options options;
    options.set_case_sensitive(false);
    options.set_log_errors(false);
    RE2 re(p, options);
    if (re.ok() && RE2::PartialMatch(re2::StringPiece(task.data(), task.size()), re)) return true;
  }
  return false;
}

SkillDisclosure knowledge_skills_section(std::span<const KnowledgeSkill> skills, std::string_view task,
                                         size_t context_window, const TokenCounter& counter,
                                         const SkillDisclosureOptions& options) {
  std::vector<SkillEntry> entries;
  entries.reserve(skills.size());
  for (const KnowledgeSkill& s : skills) {
    if (!s.enabled) continue;
    SkillEntry e;
    e.name = s.name;
    e.description = s.description;
    e.triggered = !task.empty() && knowledge_skill_triggered(s, task);
    if (e.triggered) e.body = s.body;
    entries.push_back(std::move(e));
  }
  return disclose_skills(entries, context_window, counter, options);
}

}  // namespace keel
