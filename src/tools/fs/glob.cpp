#include "tools/fs/glob.hpp"

#include "core/text/utf8_text.hpp"

namespace keel::detail {
namespace {

constexpr size_t kMaxAlternatives = 64;

// Length of the UTF-8 sequence starting at s[i] (1 for a stray byte), never past the end.
size_t code_point_length(std::string_view s, size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 1;
  for (size_t k = 1; k < n; ++k) {
    if (i + k >= s.size() || !utf8_is_continuation(s[i + k])) return k;
  }
  return n;
}

// Matches one [...] set starting at p[pi] (just after '[') against byte c; sets `end` just past
// its ']' (compile() checked that there is one).
bool match_set(std::string_view p, size_t pi, unsigned char c, size_t& end) {
  bool negate = false;
  if (pi < p.size() && (p[pi] == '!' || p[pi] == '^')) {
    negate = true;
    ++pi;
  }
  bool hit = false;
  bool first = true;  // a ']' right after the opening is a member
  while (pi < p.size() && (p[pi] != ']' || first)) {
    first = false;
    if (p[pi] == '\\' && pi + 1 < p.size()) ++pi;
    const auto lo = static_cast<unsigned char>(p[pi]);
    auto hi = lo;
    if (pi + 2 < p.size() && p[pi + 1] == '-' && p[pi + 2] != ']') {
      hi = static_cast<unsigned char>(p[pi + 2]);
      pi += 2;
    }
    if (c >= lo && c <= hi) hit = true;
    ++pi;
  }
  end = pi + 1;
  return hit != negate;
}

// Backtracking matcher with a memo of failed (pattern, text) positions, so `*` and `**` cost
// O(|p|·|s|) at worst.
class Matcher {
 public:
  Matcher(std::string_view p, std::string_view s) : p_(p), s_(s), failed_((p.size() + 1) * (s.size() + 1), 0) {}
  bool run() { return match(0, 0); }

 private:
  bool match(size_t pi, size_t si) {
    char& memo = failed_[pi * (s_.size() + 1) + si];
    if (memo != 0) return false;
    const bool ok = step(pi, si);
    if (!ok) memo = 1;
    return ok;
  }

  bool step(size_t pi, size_t si) {
    if (pi == p_.size()) return si == s_.size();
    const char c = p_[pi];
    if (c == '*') {
      const bool globstar = pi + 1 < p_.size() && p_[pi + 1] == '*';
      if (globstar) {
        size_t next = pi + 2;
        while (next < p_.size() && p_[next] == '*') ++next;
        // "**/" may match no directory at all.
        if (next < p_.size() && p_[next] == '/' && match(next + 1, si)) return true;
        for (size_t k = si; k <= s_.size(); ++k) {
          if (match(next, k)) return true;
        }
        return false;
      }
      for (size_t k = si; k <= s_.size(); ++k) {
        if (match(pi + 1, k)) return true;
        if (k < s_.size() && s_[k] == '/') break;
      }
      return false;
    }
    if (si == s_.size()) return false;
    if (c == '?') return s_[si] != '/' && match(pi + 1, si + code_point_length(s_, si));
    if (c == '[') {
      size_t end = 0;
      return s_[si] != '/' && match_set(p_, pi + 1, static_cast<unsigned char>(s_[si]), end) && match(end, si + 1);
    }
    if (c == '\\' && pi + 1 < p_.size()) return s_[si] == p_[pi + 1] && match(pi + 2, si + 1);
    return s_[si] == c && match(pi + 1, si + 1);
  }

  std::string_view p_;
  std::string_view s_;
  std::vector<char> failed_;
};

}  // namespace

Result<Glob> Glob::compile(std::string_view pattern) {
  if (pattern.empty()) return Status::InvalidArgument("glob is empty; use \"*\" for every file");
  const std::string shown(pattern);
  // Check brackets and escapes, and find the one level of braces.
  std::vector<std::string> heads = {""};
  std::vector<std::string> options;
  std::string current;
  bool in_braces = false;
  const auto append = [&](std::string_view text) {
    if (in_braces) {
      current.append(text);
    } else {
      for (std::string& h : heads) h.append(text);
    }
  };
  for (size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    if (c == '\\') {
      if (i + 1 == pattern.size()) return Status::InvalidArgument("glob '" + shown + "' ends with a lone '\\'");
      append(pattern.substr(i, 2));
      ++i;
    } else if (c == '[') {
      size_t j = i + 1;
      if (j < pattern.size() && (pattern[j] == '!' || pattern[j] == '^')) ++j;
      if (j < pattern.size() && pattern[j] == ']') ++j;
      while (j < pattern.size() && pattern[j] != ']') j += pattern[j] == '\\' ? 2 : 1;
      if (j >= pattern.size()) return Status::InvalidArgument("glob '" + shown + "' has a '[' without its ']'");
      append(pattern.substr(i, j - i + 1));
      i = j;
    } else if (c == '{') {
      if (in_braces) return Status::InvalidArgument("glob '" + shown + "' nests braces; use one level of {a,b}");
      in_braces = true;
      current.clear();
      options.clear();
    } else if (c == ',' && in_braces) {
      options.push_back(current);
      current.clear();
    } else if (c == '}' && in_braces) {
      options.push_back(current);
      in_braces = false;
      std::vector<std::string> expanded;
      for (const std::string& h : heads) {
        for (const std::string& o : options) expanded.push_back(h + o);
      }
      if (expanded.size() > kMaxAlternatives) {
        return Status::InvalidArgument("glob '" + shown + "' expands to more than 64 alternatives; simplify it");
      }
      heads = std::move(expanded);
    } else {
      append(pattern.substr(i, 1));
    }
  }
  if (in_braces) return Status::InvalidArgument("glob '" + shown + "' has a '{' without its '}'");
  Glob g;
  g.alternatives_ = std::move(heads);
  g.name_only_ = pattern.find('/') == std::string_view::npos;
  return g;
}

bool Glob::matches(std::string_view relative_path) const {
  std::string_view subject = relative_path;
  if (name_only_) {
    const size_t slash = subject.rfind('/');
    if (slash != std::string_view::npos) subject.remove_prefix(slash + 1);
  }
  for (const std::string& alt : alternatives_) {
    if (Matcher(alt, subject).run()) return true;
  }
  return false;
}

}  // namespace keel::detail
