// The Skills section: triggered bodies are placed first (they decide how each index line ends),
// then the index is filled in priority order until its budget is spent. Costs are summed per
// piece: with a rounding-up counter the sum is at least the count of the whole, so the section
// never exceeds its budget.
#include "keel/core/skill_disclosure.hpp"

#include <algorithm>

#include "core/text/utf8_text.hpp"

namespace keel {
namespace {

using detail::utf8_char_start;

size_t share_of(size_t window, int percent, size_t floor, size_t unknown) {
  if (percent <= 0) return 0;
  if (window == 0) return unknown;
  size_t share = window / 100 * static_cast<size_t>(percent) + window % 100 * static_cast<size_t>(percent) / 100;
  return std::max(floor, share);
}

// `text` on one line (runs of whitespace and control characters as one space), cut to about
// `max_bytes` without splitting a UTF-8 character, with "…" when cut.
std::string one_line(const std::string& text, size_t max_bytes) {
  std::string out;
  out.reserve(std::min(text.size(), max_bytes + 3));
  bool space = false;
  for (char c : text) {
    if (static_cast<unsigned char>(c) < 0x20 || c == ' ' || c == 0x7f) {
      space = !out.empty();
      continue;
    }
    if (space) out.push_back(' ');
    space = false;
    out.push_back(c);
  }
  if (out.size() <= max_bytes) return out;
  out.resize(utf8_char_start(out, max_bytes));
  while (!out.empty() && out.back() == ' ') out.pop_back();
  out += "\xE2\x80\xA6";  // …
  return out;
}

std::string trim_trailing_space(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ' || text.back() == '\t' || text.back() == '\r')) {
    text.pop_back();
  }
  return text;
}

std::string more_line(size_t omitted, bool load_tool) {
  std::string line = "\xE2\x80\xA6 and ";  // …
  line += std::to_string(omitted);
  line += omitted == 1 ? " more skill" : " more skills";
  if (load_tool) {
    line += "; call load_skill with a name (an unknown name lists them all)";
  }
  line += ".\n";
  return line;
}

std::string intro(bool load_tool) {
  std::string text =
      "# Skills\n"
      "Skills are instructions and reference notes for particular kinds of task, listed by name and description.";
  if (load_tool) {
    text +=
        " When a task matches a skill's description, call load_skill with its name and read it before you start; "
        "pass `file` as well to read a file the skill mentions.";
  }
  text += "\n";
  return text;
}

struct Bodies {
  std::string text;
  std::vector<std::string> loaded;
  std::vector<std::string> cut;
};

Bodies place_bodies(const std::vector<const SkillEntry*>& triggered, size_t budget, const TokenCounter& counter,
                    bool load_tool) {
  Bodies out;
  size_t left = budget;
  for (const SkillEntry* s : triggered) {
    std::string heading = "\n\n# Skill: ";
    heading += s->name;
    heading += " (matches this task)\n";
    const size_t heading_cost = counter.count(heading);
    if (left < heading_cost + kMinBodyTokens) break;
    std::string body = trim_trailing_space(s->body);
    size_t cost = heading_cost + counter.count(body);
    if (cost > left) {
      std::string note = "\n[cut to fit the prompt";
      if (load_tool) {
        note += "; call load_skill with name \"";
        note += s->name;
        note += "\" for the whole skill";
      }
      note += "]";
      const size_t note_cost = counter.count(note);
      const size_t room = left > heading_cost + note_cost ? left - heading_cost - note_cost : 0;
      body = trim_trailing_space(cut_to_tokens(body, room, counter));
      body += note;
      cost = heading_cost + counter.count(body);
      out.cut.push_back(s->name);
    }
    out.text += heading;
    out.text += body;
    out.loaded.push_back(s->name);
    left = cost >= left ? 0 : left - cost;
  }
  return out;
}

}  // namespace

size_t skill_index_budget(size_t window, const SkillDisclosureOptions& o) {
  return share_of(window, o.share_percent, o.min_tokens, o.unknown_window_tokens);
}

size_t skill_body_budget(size_t window, const SkillDisclosureOptions& o) {
  return share_of(window, o.body_share_percent, o.body_min_tokens, o.body_unknown_window_tokens);
}

std::string cut_to_tokens(const std::string& text, size_t max_tokens, const TokenCounter& counter) {
  if (counter.count(text) <= max_tokens) return text;
  size_t lo = 0;            // counts within the budget
  size_t hi = text.size();  // does not
  while (hi - lo > 1) {
    size_t mid = lo + (hi - lo) / 2;
    if (counter.count(std::string_view(text).substr(0, mid)) <= max_tokens) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  size_t end = utf8_char_start(text, lo);
  size_t newline = text.rfind('\n', end == 0 ? 0 : end - 1);
  if (newline != std::string::npos && newline + 1 >= end / 2 && newline + 1 <= end) end = newline + 1;
  return text.substr(0, end);
}

SkillDisclosure disclose_skills(std::span<const SkillEntry> skills, size_t window, const TokenCounter& counter,
                                const SkillDisclosureOptions& options) {
  SkillDisclosure out;
  out.index_budget = skill_index_budget(window, options);
  out.body_budget = skill_body_budget(window, options);
  if (skills.empty()) return out;

  std::vector<const SkillEntry*> order;
  order.reserve(skills.size());
  for (const SkillEntry& s : skills) order.push_back(&s);
  std::stable_sort(order.begin(), order.end(), [](const SkillEntry* a, const SkillEntry* b) {
    if (a->triggered != b->triggered) return a->triggered;
    return a->name < b->name;
  });
  std::vector<const SkillEntry*> triggered;
  for (const SkillEntry* s : order) {
    if (s->triggered) triggered.push_back(s);
  }
  Bodies bodies = place_bodies(triggered, out.body_budget, counter, options.load_tool);
  out.loaded = bodies.loaded;
  out.cut = bodies.cut;

  std::string index = intro(options.load_tool);
  size_t used = counter.count(index);
  std::vector<std::string> lines;
  lines.reserve(order.size());
  for (const SkillEntry* s : order) {
    std::string line = "- ";
    line += one_line(s->name, 64);
    line += ": ";
    line += one_line(s->description, options.max_description_chars);
    if (s->triggered) {
      bool loaded = std::find(out.loaded.begin(), out.loaded.end(), s->name) != out.loaded.end();
      if (loaded) {
        line += " (matches this task; loaded below)";
      } else if (options.load_tool) {
        line += " (matches this task; call load_skill to read it)";
      } else {
        line += " (matches this task)";
      }
    }
    line += "\n";
    lines.push_back(std::move(line));
  }
  size_t kept = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    const size_t rest = lines.size() - i - 1;
    const size_t cost = counter.count(lines[i]);
    const size_t tail = rest > 0 ? counter.count(more_line(rest, options.load_tool)) : 0;
    if (used + cost + tail > out.index_budget) break;
    used += cost;
    index += lines[i];
    out.listed.push_back(order[i]->name);
    ++kept;
  }
  out.omitted = lines.size() - kept;
  if (out.omitted > 0) index += more_line(out.omitted, options.load_tool);
  index.pop_back();  // the last line's newline
  out.text = std::move(index);
  out.text += bodies.text;
  return out;
}

}  // namespace keel
