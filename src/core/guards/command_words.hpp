// Which programs a shell command line runs, read well enough to scope a postcondition to them
// (keel/core/postcondition.hpp). It is not a shell parser: it errs towards "not found", so a
// scoped check is skipped rather than applied to output it was not meant for.
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace keel::detail {

// Whether one of `programs` runs as a command in `command_line`: a word in command position (the
// first word; after |, ||, &&, ;, &, (, {, $(, a backquote or a newline; after the keywords if,
// then, else, elif, do, while, until, !) once leading VAR=value words and the prefixes command,
// exec, env, sudo, nice, nohup and time are skipped. Quoted text ('...', "...") is never a
// command; a word matches a program by its name or its last path component ("/bin/ls" is "ls").
bool runs_program(std::string_view command_line, std::span<const std::string> programs);

}  // namespace keel::detail
