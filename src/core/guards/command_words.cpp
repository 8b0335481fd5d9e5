// A small scanner over a shell command line that finds the words in command position. It reads
// quotes, backslashes, operators, redirections and command substitutions (also inside double
// quotes), which covers how models write one-line commands; here-documents and aliases are not
// understood (see command_words.hpp for why erring that way is safe).
#include "core/guards/command_words.hpp"

#include <algorithm>

namespace keel::detail {
namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r'; }

// Characters that end an unquoted word.
bool ends_word(char c) {
  return is_space(c) || c == '|' || c == '&' || c == ';' || c == '(' || c == ')' || c == '<' || c == '>' ||
         c == '`' || c == '\n';
}

// Words after which the next word is still in command position.
bool keeps_command_position(std::string_view w) {
  static constexpr std::string_view kWords[] = {"if",   "then",    "else",  "elif", "do",   "while", "until",
                                                "!",    "{",       "command", "exec", "env",  "sudo",  "nice",
                                                "nohup", "time"};
  return std::find(std::begin(kWords), std::end(kWords), w) != std::end(kWords);
}

// NAME=value, a variable assignment before a command.
bool is_assignment(std::string_view w) {
  const size_t eq = w.find('=');
  if (eq == std::string_view::npos || eq == 0) return false;
  for (size_t i = 0; i < eq; ++i) {
    const char c = w[i];
    const bool name_char = c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (i > 0 && c >= '0' && c <= '9');
    if (!name_char) return false;
  }
  return true;
}

class Scanner {
 public:
  Scanner(std::string_view line, std::span<const std::string> programs, int depth = 0)
      : s_(line), programs_(programs), depth_(depth) {}

  bool found() {
    bool command_position = true;
    while (pos_ < s_.size()) {
      const char c = s_[pos_];
      if (is_space(c)) {
        ++pos_;
      } else if (c == '$' && peek(1) == '(') {
        pos_ += 2;
        command_position = true;
      } else if (c == '>' || c == '<' || (c == '&' && peek(1) == '>')) {
        skip_redirection();
      } else if (c == '|' || c == '&' || c == ';' || c == '(' || c == '`' || c == '\n') {
        ++pos_;
        command_position = true;
      } else if (c == ')') {
        ++pos_;
        command_position = false;
      } else {
        std::string word = read_word();
        if (found_inside_) return true;
        if (!command_position) continue;
        if (is_assignment(word) || keeps_command_position(word)) continue;
        if (matches(word)) return true;
        command_position = false;
      }
    }
    return found_inside_;
  }

 private:
  char peek(size_t ahead) const { return pos_ + ahead < s_.size() ? s_[pos_ + ahead] : '\0'; }

  bool matches(std::string_view word) const {
    const size_t slash = word.rfind('/');
    const std::string_view base = slash == std::string_view::npos ? word : word.substr(slash + 1);
    return std::any_of(programs_.begin(), programs_.end(), [&](const std::string& p) { return !p.empty() && base == p; });
  }

  // ">", ">>", "2>&1", "&>", "<<<" and the word they redirect to: never a command.
  void skip_redirection() {
    while (pos_ < s_.size() && (s_[pos_] == '>' || s_[pos_] == '<' || s_[pos_] == '&' || s_[pos_] == '|')) ++pos_;
    while (pos_ < s_.size() && is_space(s_[pos_])) ++pos_;
    if (pos_ < s_.size() && !ends_word(s_[pos_])) (void)read_word();
  }

  // The text between the parentheses of a "$(" at pos_ (nested ones included); pos_ moves past
  // the closing one.
  std::string_view substitution_body() {
    pos_ += 2;
    const size_t start = pos_;
    int depth = 1;
    while (pos_ < s_.size()) {
      const char c = s_[pos_];
      if (c == '(') ++depth;
      if (c == ')' && --depth == 0) break;
      ++pos_;
    }
    std::string_view body = s_.substr(start, pos_ - start);
    if (pos_ < s_.size()) ++pos_;
    return body;
  }

  // Substitutions nested deeper than this are not looked into (bounded recursion).
  static constexpr int kMaxDepth = 8;

  void scan_nested(std::string_view body) {
    if (!found_inside_ && depth_ < kMaxDepth) found_inside_ = Scanner(body, programs_, depth_ + 1).found();
  }

  // One word with its quotes removed; stops before "$(" so the caller sees the substitution.
  std::string read_word() {
    std::string out;
    while (pos_ < s_.size() && !ends_word(s_[pos_])) {
      const char c = s_[pos_];
      if (c == '$' && peek(1) == '(') break;
      if (c == '\\') {
        if (pos_ + 1 < s_.size()) out += s_[pos_ + 1];
        pos_ += 2;
      } else if (c == '\'') {
        const size_t close = s_.find('\'', pos_ + 1);
        const size_t end = close == std::string_view::npos ? s_.size() : close;
        out.append(s_.substr(pos_ + 1, end - pos_ - 1));
        pos_ = end == s_.size() ? end : end + 1;
      } else if (c == '"') {
        read_double_quoted(out);
      } else {
        out += c;
        ++pos_;
      }
    }
    return out;
  }

  // "..." at pos_: appends its text; commands substituted inside it are scanned too.
  void read_double_quoted(std::string& out) {
    ++pos_;
    while (pos_ < s_.size() && s_[pos_] != '"') {
      const char c = s_[pos_];
      if (c == '\\' && pos_ + 1 < s_.size()) {
        out += s_[pos_ + 1];
        pos_ += 2;
      } else if (c == '$' && peek(1) == '(') {
        scan_nested(substitution_body());
      } else if (c == '`') {
        const size_t close = s_.find('`', pos_ + 1);
        const size_t end = close == std::string_view::npos ? s_.size() : close;
        scan_nested(s_.substr(pos_ + 1, end - pos_ - 1));
        pos_ = end == s_.size() ? end : end + 1;
      } else {
        out += c;
        ++pos_;
      }
    }
    if (pos_ < s_.size()) ++pos_;
  }

  std::string_view s_;
  std::span<const std::string> programs_;
  int depth_ = 0;
  size_t pos_ = 0;
  bool found_inside_ = false;
};

}  // namespace

bool runs_program(std::string_view command_line, std::span<const std::string> programs) {
  if (programs.empty()) return false;
  return Scanner(command_line, programs).found();
}

}  // namespace keel::detail
