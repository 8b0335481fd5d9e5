// Remembered approval decisions: a workspace's standing "always allow" / "always deny" answers for
// a tool (kept in the Store as ApprovalRule rows), optionally narrowed by a regular expression,
// compiled once per run and matched against each call.
//
// Thread-safety: SavedRules is a plain value; concurrent const use is safe, add() needs exclusive
// access.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "keel/result.hpp"
#include "keel/store/records.hpp"

namespace re2 {
class RE2;
}

namespace keel::detail {

// The text approval patterns are matched against: for shell, the command line (its "command"
// argument when that is a string); for every other tool, the canonical JSON arguments.
std::string approval_subject(std::string_view tool, std::string_view canonical_args);

// Compiles `pattern` (RE2); InvalidArgument "<what> has '<pattern>', which is not a valid regular
// expression (<why>)" when it does not compile.
Status check_approval_pattern(const std::string& pattern, const std::string& what);

class SavedRules {
 public:
  SavedRules();
  ~SavedRules();
  SavedRules(SavedRules&&) noexcept;
  SavedRules& operator=(SavedRules&&) noexcept;

  // Adds `rule`, replacing the one with the same tool and pattern. InvalidArgument (and nothing
  // added) when its verdict is not kAllow or kDeny or its pattern does not compile.
  Status add(const ApprovalRule& rule);
  // The rule that decides a call of `tool` whose approval subject is `subject`: a matching deny
  // rule wins over a matching allow rule; a rule with an empty pattern matches every call of its
  // tool, one with a pattern when it matches partially. nullptr when none applies. The pointer is
  // valid until the next add().
  const ApprovalRule* match(std::string_view tool, std::string_view subject) const;
  size_t size() const { return entries_.size(); }

 private:
  struct Entry {
    ApprovalRule rule;
    std::unique_ptr<re2::RE2> re;  // null for an empty pattern
  };
  std::vector<Entry> entries_;
};

}  // namespace keel::detail
