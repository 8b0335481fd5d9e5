#include "keel/core/preflight.hpp"

#include <algorithm>
#include <cctype>

#include "core/text/text_util.hpp"

namespace keel {
namespace {

using detail::lowercase;

bool has_word(std::string_view lower_text, std::string_view word) {
  std::string w = lowercase(word);
  size_t pos = 0;
  auto is_word_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  while ((pos = lower_text.find(w, pos)) != std::string_view::npos) {
    bool left = pos == 0 || !is_word_char(lower_text[pos - 1]);
    size_t end = pos + w.size();
    bool right = end >= lower_text.size() || !is_word_char(lower_text[end]);
    if (left && right) return true;
    pos += 1;
  }
  return false;
}

}  // namespace

std::vector<IntentRule> default_intent_rules() {
  return {
      {"search", {"search", "grep", "find", "look for", "occurrences", "where is"}, {}, {"fs_search"}},
      {"read", {"read", "show", "open", "cat", "contents", "summarize", "explain"}, {R"(\b[\w./-]+\.[a-z0-9]{1,8}\b)"}, {"fs_read"}},
      {"list", {"list", "ls", "files", "directory", "folder", "tree"}, {}, {"fs_list"}},
      {"write", {"write", "create", "save", "edit", "update", "append"}, {}, {"fs_write"}},
      {"shell", {"run", "execute", "build", "compile", "install", "command", "test"}, {}, {"shell"}},
      {"time", {"time", "date", "today", "day", "now", "timestamp"}, {}, {"get_datetime"}},
  };
}

Result<Preflight> Preflight::create(std::vector<IntentRule> rules) {
  Preflight pf;
  for (auto& rule : rules) {
    if (rule.name.empty()) return Status::InvalidArgument("an intent rule has no name");
    Compiled c;
    for (const auto& p : rule.patterns) {
      try {
        c.patterns.emplace_back(p, std::regex::ECMAScript | std::regex::icase | std::regex::optimize);
      } catch (const std::regex_error& e) {
        return Status::InvalidArgument("intent '" + rule.name + "': pattern '" + p + "' is not a valid regular expression: " + e.what());
      }
    }
    c.rule = std::move(rule);
    pf.rules_.push_back(std::move(c));
  }
  return pf;
}

std::vector<std::string> Preflight::hints(std::string_view task, std::span<const ToolSpec> tools) const {
  std::vector<std::string> out;
  std::string lower = lowercase(task);
  std::string task_copy(task);
  for (const auto& c : rules_) {
    bool match = std::any_of(c.rule.keywords.begin(), c.rule.keywords.end(),
                             [&](const std::string& k) { return has_word(lower, k); });
    if (!match) {
      match = std::any_of(c.patterns.begin(), c.patterns.end(),
                          [&](const std::regex& re) { return std::regex_search(task_copy, re); });
    }
    if (!match) continue;
    std::string names;
    for (const auto& t : c.rule.tools) {
      bool registered = std::any_of(tools.begin(), tools.end(), [&](const ToolSpec& s) { return s.name == t; });
      if (!registered) continue;
      if (!names.empty()) names += ", ";
      names += t;
    }
    if (!names.empty()) out.push_back("intent '" + c.rule.name + "': prefer " + names);
  }
  return out;
}

}  // namespace keel
