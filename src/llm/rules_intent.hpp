// Private to the rules model: reads a task written in plain English and decides which built-in
// tool answers it, with which path or search text. Deterministic keyword rules, no model.
//
//   RulesPlan p = plan_rules_task("find 'TODO' in src");
//   // p.intent == RulesIntent::kSearch, p.tool == "fs_search", p.pattern == "TODO", p.path == "src"
//
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace keel::detail {

enum class RulesIntent { kNone, kListFiles, kReadFile, kSearch, kCountLines, kDateTime };

// What the rules model will do for a task.
struct RulesPlan {
  RulesIntent intent = RulesIntent::kNone;
  std::string tool;     // "fs_list", "fs_read", "fs_search" or "get_datetime"; empty for kNone
  std::string path;     // list/search: directory ("." when none is named); read/count: the file
  std::string pattern;  // search only: the literal text as the user wrote it (not yet escaped)
};

// A word of a task.
struct RulesWord {
  std::string raw;    // exactly as written
  std::string text;   // as written, without surrounding quotes or trailing punctuation
  std::string lower;  // lowercase of text
};

// The task's words (quotes, unbalanced brackets and sentence punctuation stripped; a path's own
// dots kept, so "README.md." is "README.md").
std::vector<RulesWord> split_rules_words(std::string_view text);

// Whether a word names a path: it holds '.' or '/' (not a URL, not "e.g").
bool rules_word_is_path(const RulesWord& w);

// Picks the intent and its arguments. kNone when the task matches no rule, or matches one but
// lacks what it needs (a file to read, a text to search for).
//
// Paths: quoted text if any; else the first word that contains '.' or '/'; else the word after
// in/of/from/inside/under/directory/folder (skipping "the", "current", ...); else the first plain
// word after the verb ("ls src"). Quotes and trailing punctuation are stripped; "here" means ".".
// Search text: quoted text if any; else the words after "for" (or after the verb) up to
// " in "/" under "/" inside "/" within ".
RulesPlan plan_rules_task(std::string_view task);

// `text` as an RE2 pattern that matches it literally: regex metacharacters get a backslash.
std::string escape_re2_literal(std::string_view text);

// Lines in a file's text: the number of '\n', plus one for a last line without a trailing newline
// (so "a\nb" is 2 lines, "a\nb\n" is 2, "" is 0).
size_t count_lines(std::string_view text);

// A line count read from an fs_read result.
struct FileLineCount {
  size_t lines = 0;      // lines counted
  bool complete = true;  // false: fs_read returned only part of the file, so it has at least `lines`
};

// Counts the lines of the file an fs_read result shows. The result is taken to be exactly the
// file's text, with two exceptions fs_read makes: "[empty file: 0 bytes]" for an empty file, and a
// last line in brackets that notes a cut ("[output truncated at ...]", "[line N is longer than
// ...]"), which is not counted and makes the count incomplete.
FileLineCount count_fs_read_lines(std::string_view content);

}  // namespace keel::detail
