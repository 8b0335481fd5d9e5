// tools/fs/glob.hpp — shell-style glob patterns for fs_walk.
//
//   *       any run of characters except '/'
//   ?       one character (one UTF-8 code point) except '/'
//   **      any run of characters including '/'; "**/" also matches no directory at all, so
//           "**/*.cpp" matches "a.cpp" and "src/x/a.cpp"
//   [abc] [a-z] [!a]   one character (byte) from a set, or not from it
//   {a,b}   alternatives (not nested), e.g. "*.{cpp,hpp}"
//   \x      the character x literally
// A pattern without '/' is matched against the file name alone; one with '/' against the path
// relative to the directory being walked. Matching is case-sensitive.
//
//   KEEL_ASSIGN_OR_RETURN(Glob g, Glob::compile("src/**/*.{cpp,hpp}"));
//   g.matches("src/tools/a.cpp");  // true
//
// Thread-safety: immutable after compile(); safe from any thread.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "keel/result.hpp"

namespace keel::detail {

class Glob {
 public:
  // InvalidArgument (saying what is wrong) for an unclosed '[' or '{', nested braces, a trailing
  // '\', or more than 64 alternatives.
  static Result<Glob> compile(std::string_view pattern);

  // Whether the file at `relative_path` (relative to the walked directory, '/'-separated) matches.
  bool matches(std::string_view relative_path) const;

 private:
  std::vector<std::string> alternatives_;  // the pattern with its braces expanded
  bool name_only_ = true;                  // no '/': match the file name alone
};

}  // namespace keel::detail
