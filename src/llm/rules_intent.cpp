// Keyword rules for the rules model. The task is split into words (each with its cleaned original
// text and a lowercase form); intents are tested from the most specific (count lines, search) to
// the most general (read), so "count lines in a.txt" is never mistaken for a read.
#include "llm/rules_intent.hpp"

#include <algorithm>
#include <cctype>
#include <initializer_list>
#include <vector>

namespace keel::detail {
namespace {

using Word = RulesWord;

bool is_space(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }
bool is_quote(char c) { return c == '\'' || c == '"' || c == '`'; }

std::string to_lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool in(std::string_view word, std::initializer_list<std::string_view> set) {
  return std::find(set.begin(), set.end(), word) != set.end();
}

// Strips quotes and brackets around a word and sentence punctuation after it. A trailing '.' goes
// too ("README.md." -> "README.md"), unless the word is only dots ("." and ".." are paths).
// Brackets go only when unbalanced, so "f()" keeps its parentheses.
std::string clean(std::string_view w) {
  bool balanced = w.find('(') != std::string_view::npos && w.find(')') != std::string_view::npos;
  while (!w.empty() && (is_quote(w.front()) || (w.front() == '(' && !balanced))) w.remove_prefix(1);
  while (!w.empty()) {
    char c = w.back();
    bool all_dots = w.find_first_not_of('.') == std::string_view::npos;
    if (is_quote(c) || (c == ')' && !balanced) || c == ',' || c == ';' || c == ':' || c == '!' || c == '?' ||
        (c == '.' && !all_dots)) {
      w.remove_suffix(1);
    } else {
      break;
    }
  }
  return std::string(w);
}

// The first quoted span: an opening quote at a word start, closed by the same quote at a word end.
// Apostrophes inside words ("what's") are not quotes. Sets [begin, end) to the span with quotes.
bool find_quoted(std::string_view text, std::string& inner, size_t& begin, size_t& end) {
  for (size_t i = 0; i < text.size(); ++i) {
    if (!is_quote(text[i]) || (i > 0 && !is_space(text[i - 1]) && text[i - 1] != '(')) continue;
    for (size_t j = i + 1; j < text.size(); ++j) {
      if (text[j] != text[i]) continue;
      if (j + 1 < text.size() && std::isalnum(static_cast<unsigned char>(text[j + 1]))) continue;
      if (j == i + 1) break;  // empty quotes
      inner = std::string(text.substr(i + 1, j - i - 1));
      begin = i;
      end = j + 1;
      return true;
    }
  }
  return false;
}

// Words that lead into the task without being its verb ("please", "can you").
bool is_lead_in(std::string_view w) {
  return in(w, {"please", "pls",  "kindly", "can",  "could", "would", "will", "you",   "hey",
                "hi",     "ok",   "okay",   "just", "now",   "then",  "i",    "i'd",   "id",
                "like",   "want", "need",   "to",   "let's", "lets",  "go",   "ahead", "and"});
}

// Words that introduce a place: "in src", "contents of a.txt", "directory docs".
bool is_place_trigger(std::string_view w) {
  return in(w, {"in", "of", "from", "inside", "under", "within", "at", "directory", "folder", "dir"});
}

// Words skipped between a trigger and the place ("in the current folder").
bool is_filler(std::string_view w) {
  return in(w, {"the", "a", "an", "this", "that", "my", "our", "your", "current", "directory", "folder", "dir", "file",
                "named", "called", "me", "all"});
}

// Words that are never a place ("number of lines", "list files").
bool is_not_a_place(std::string_view w) {
  return in(w, {"lines", "line", "files", "file", "contents", "content", "words", "number", "everything", "it",
                "them",  "each", "every", "is",   "are",      "does",    "do",    "have",   "has",        "there"});
}

bool means_here(std::string_view w) { return in(w, {"here", "cwd", "root", "workspace", ".", "./"}); }


// Index of the verb: the first word that is not a lead-in; words.size() when there is none.
size_t verb_index(const std::vector<Word>& words) {
  size_t i = 0;
  while (i < words.size() && is_lead_in(words[i].lower)) ++i;
  return i;
}

// The place after a trigger word at or after `from`; empty when none.
std::string place_after_trigger(const std::vector<Word>& words, size_t from) {
  for (size_t i = from; i < words.size(); ++i) {
    if (!is_place_trigger(words[i].lower)) continue;
    size_t j = i + 1;
    bool saw_here_word = false;
    while (j < words.size() && is_filler(words[j].lower)) {
      saw_here_word = saw_here_word || words[j].lower == "current" || words[j].lower == "this";
      ++j;
    }
    if (j >= words.size()) {
      if (saw_here_word) return ".";
      continue;
    }
    const Word& w = words[j];
    if (means_here(w.lower)) return ".";
    if (is_not_a_place(w.lower) || is_place_trigger(w.lower) || w.text.starts_with('-')) continue;
    return w.text;
  }
  return {};
}

// The path a list/read/count task names; empty when it names none.
std::string find_path(const std::vector<Word>& words, size_t verb, const std::string& quoted) {
  if (!quoted.empty()) return quoted;
  for (size_t i = verb + 1; i < words.size(); ++i) {
    if (rules_word_is_path(words[i])) return words[i].text;
  }
  if (std::string place = place_after_trigger(words, verb + 1); !place.empty()) return place;
  for (size_t i = verb + 1; i < words.size(); ++i) {
    const Word& w = words[i];
    if (means_here(w.lower)) return ".";
    if (is_filler(w.lower) || is_not_a_place(w.lower) || is_place_trigger(w.lower) || w.text.starts_with('-')) continue;
    return w.text;
  }
  return {};
}

bool has_phrase(const std::string& joined, std::initializer_list<std::string_view> phrases) {
  for (std::string_view p : phrases) {
    if (joined.find(" " + std::string(p) + " ") != std::string::npos) return true;
  }
  return false;
}

bool mentions_path(const std::vector<Word>& words) { return std::any_of(words.begin(), words.end(), rules_word_is_path); }

bool is_search_verb(std::string_view w) { return in(w, {"search", "grep", "find", "look", "rg"}); }

// Words before the search text that are not part of it ("all occurrences of", "the word").
bool is_search_lead_in(std::string_view w) {
  return in(w, {"the", "word", "string", "text", "phrase", "pattern", "term", "all", "occurrences", "occurrence",
                "instances", "mentions", "uses", "usages", "references", "of", "to"});
}

// Search: the text to look for and where. In `words` a quoted span has been replaced by the
// placeholder word "\x01"; `quoted` is its text.
RulesPlan plan_search(const std::vector<Word>& words, size_t verb, const std::string& quoted) {
  if (verb >= words.size()) return {};
  RulesPlan plan{RulesIntent::kSearch, "fs_search", ".", ""};
  size_t for_at = words.size();
  for (size_t i = verb + 1; i < words.size(); ++i) {
    if (words[i].lower == "for") {
      for_at = i;
      break;
    }
  }
  // "search the src folder for TODO": a word between the verb and "for" names the place.
  for (size_t i = verb + 1; i < for_at && for_at < words.size(); ++i) {
    const std::string& w = words[i].lower;
    if (means_here(w)) break;
    if (is_filler(w) || is_not_a_place(w) || is_place_trigger(w) || is_search_verb(w)) continue;
    plan.path = words[i].text;
    break;
  }
  size_t start = for_at < words.size() ? for_at + 1 : verb + 1;
  size_t pattern_end = start;
  if (!quoted.empty()) {
    plan.pattern = quoted;
    while (pattern_end < words.size() && words[pattern_end].text != "\x01") ++pattern_end;
    // "grep 'a b' src": a plain word right after the quoted text is the place.
    if (in(words[verb].lower, {"grep", "rg"}) && pattern_end + 1 < words.size() &&
        !is_place_trigger(words[pattern_end + 1].lower)) {
      plan.path = words[pattern_end + 1].text;
    }
  } else {
    while (start < words.size() && (words[start].text.starts_with('-') || is_search_lead_in(words[start].lower))) {
      ++start;
    }
    pattern_end = start;
    while (pattern_end < words.size() && !in(words[pattern_end].lower, {"in", "under", "inside", "within"})) {
      ++pattern_end;
    }
    // "grep error src": grep-style tasks name the place last.
    if (pattern_end == words.size() && pattern_end - start >= 2 && in(words[verb].lower, {"grep", "rg"})) {
      plan.path = words[--pattern_end].text;
    }
    // Inner words keep their punctuation ("foo.bar()"); only the sentence's end is trimmed.
    for (size_t i = start; i < pattern_end; ++i) {
      plan.pattern += (i == start ? "" : " ") + (i + 1 == pattern_end ? words[i].text : words[i].raw);
    }
  }
  if (std::string place = place_after_trigger(words, pattern_end); !place.empty()) plan.path = place;
  if (plan.pattern.empty()) return {};
  return plan;
}

}  // namespace

std::vector<RulesWord> split_rules_words(std::string_view text) {
  std::vector<Word> words;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && is_space(text[i])) ++i;
    size_t start = i;
    while (i < text.size() && !is_space(text[i])) ++i;
    if (i == start) break;
    std::string_view raw = text.substr(start, i - start);
    std::string cleaned = clean(raw);
    if (!cleaned.empty()) words.push_back({std::string(raw), cleaned, to_lower(cleaned)});
  }
  return words;
}

bool rules_word_is_path(const RulesWord& w) {
  if (w.text.find("://") != std::string::npos || w.lower == "e.g" || w.lower == "i.e") return false;
  return w.text.find('.') != std::string::npos || w.text.find('/') != std::string::npos;
}

RulesPlan plan_rules_task(std::string_view task) {
  std::string quoted;
  size_t q_begin = 0;
  size_t q_end = 0;
  bool has_quote = find_quoted(task, quoted, q_begin, q_end);
  std::vector<Word> words = split_rules_words(task);
  if (words.empty()) return {};
  size_t verb = verb_index(words);
  std::string v = verb < words.size() ? words[verb].lower : std::string();
  std::string joined = " ";
  for (const Word& w : words) joined += w.lower + " ";

  // Count lines.
  if (v == "wc" || has_phrase(joined, {"how many lines", "number of lines", "line count", "count lines",
                                       "count the lines", "lines count"})) {
    std::string path = find_path(words, verb, has_quote ? quoted : "");
    if (path.empty() || path == ".") return {};
    return {RulesIntent::kCountLines, "fs_read", path, ""};
  }

  // Search.
  if (is_search_verb(v) || has_phrase(joined, {"search for", "look for", "grep for"})) {
    std::string rest(task);
    if (has_quote) rest = std::string(task.substr(0, q_begin)) + " \x01 " + std::string(task.substr(q_end));
    std::vector<Word> search_words = split_rules_words(rest);
    size_t search_verb = verb_index(search_words);
    return plan_search(search_words, search_verb, has_quote ? quoted : "");
  }

  // Date and time: only when no file is mentioned ("the date format in config.yaml" is not one).
  bool asks_time = has_phrase(joined, {"what time", "the time", "current time", "time is it", "time now", "the date",
                                       "today's date", "todays date", "current date", "what date", "what day",
                                       "which day", "day is it", "day is today", "date today", "day today"}) ||
                   (words.size() == 1 && in(v, {"date", "time", "datetime", "now", "today"}));
  if (asks_time && !mentions_path(words)) return {RulesIntent::kDateTime, "get_datetime", "", ""};

  // List a directory.
  bool mentions_dir = std::any_of(words.begin(), words.end(), [](const Word& w) {
    return in(w.lower, {"files", "directory", "folder", "directories", "folders", "dir"});
  });
  if (in(v, {"list", "ls", "dir", "tree"}) ||
      (mentions_dir && in(v, {"show", "display", "print", "what", "which", "what's", "whats", "view", "give", "tell",
                              "get", "see", "where"}))) {
    std::string path = find_path(words, verb, has_quote ? quoted : "");
    return {RulesIntent::kListFiles, "fs_list", path.empty() ? "." : path, ""};
  }

  // Read a file.
  if (in(v, {"read", "cat", "show", "display", "print", "open", "view", "less", "more", "type"}) ||
      has_phrase(joined, {"contents of", "content of"}) ||
      (in(v, {"what", "what's", "whats"}) && mentions_path(words))) {
    std::string path = find_path(words, verb, has_quote ? quoted : "");
    if (path.empty() || path == ".") return {};
    return {RulesIntent::kReadFile, "fs_read", path, ""};
  }
  return {};
}

std::string escape_re2_literal(std::string_view text) {
  std::string out;
  out.reserve(text.size() * 2);
  for (char c : text) {
    if (std::string_view("\\.^$|?*+()[]{}").find(c) != std::string_view::npos) out += '\\';
    out += c;
  }
  return out;
}

size_t count_lines(std::string_view text) {
  size_t n = static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
  if (!text.empty() && text.back() != '\n') ++n;
  return n;
}

FileLineCount count_fs_read_lines(std::string_view content) {
  if (content.starts_with("[empty file") && content.ends_with("]") && content.find('\n') == std::string_view::npos) {
    return {0, true};
  }
  std::string_view body = content;
  if (body.ends_with('\n')) body.remove_suffix(1);
  size_t last_start = body.rfind('\n');
  last_start = last_start == std::string_view::npos ? 0 : last_start + 1;
  std::string_view last = body.substr(last_start);
  auto has = [&](std::string_view word) { return last.find(word) != std::string_view::npos; };
  bool is_note =
      last.starts_with('[') && last.ends_with(']') && (has("truncated") || has("longer than") || has("offset_line"));
  if (!is_note) return {count_lines(content), true};
  return {count_lines(content.substr(0, last_start)), false};
}

}  // namespace keel::detail
