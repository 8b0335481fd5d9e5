// keel/core/postcondition.hpp — contracts a tool declares on its successful output.
//
// A tool can run without error and still return nothing the task can use: `ls -lS | head -n 1`
// prints only "total 7079928", the block count `ls -l` writes before its entries. A tool's
// postconditions say what an ok output must look like. The agent machine checks them on the full
// output (before any truncation). A failure becomes an error result that quotes the output and
// carries the stricter `hint`, and the model gets one corrective retry. If the same tool fails a
// postcondition again in a later round, the run fails with a guardrail failure instead of answering
// from data that is not there.
//
//   keel::Postcondition p = keel::Postcondition::not_metadata_only();
//   p.ignore_prefixes = {"[exit code "};                       // the tool's own trailer lines
//   spec.postconditions.push_back(std::move(p));
//   spec.postconditions.push_back(keel::Postcondition::custom(
//       "valid_json",
//       [](std::string_view out, std::string_view /*args*/) -> std::optional<std::string> {
//         if (out.starts_with("{")) return std::nullopt;
//         return "the output is not a JSON object";
//       },
//       "Ask for JSON output (add --json)."));
//   if (auto f = keel::check_postconditions(spec, output, arguments_json)) use(f->name, f->reason);
//
// Thread-safety: plain values. The checks are pure functions; a custom check must be pure too,
// because it may run on any thread.
#pragma once

#include <cstddef>
#include <functional>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "keel/result.hpp"

namespace keel {

struct ToolSpec;

enum class PostconditionKind {
  kNotEmpty,         // the output has a line that is not blank
  kNotMetadataOnly,  // the output is more than `ls -l` summary lines ("total 12", "total 6.8G")
  kMinLines,         // the output has at least `min_lines` lines that are not blank
  kContainsAny,      // the output contains at least one of `any_of` (case-sensitive)
  kCustom,           // `check` decides
};

// "not_empty", "not_metadata_only", "min_lines", "contains_any", "custom".
std::string_view postcondition_kind_name(PostconditionKind kind);

// A custom check: the reason the output fails, or nullopt when it passes. It gets the whole
// output (with the tool's own note lines) and the call's arguments as JSON object text.
using PostconditionCheck =
    std::function<std::optional<std::string>(std::string_view output, std::string_view arguments_json)>;

// Limits a postcondition to the calls of a shell-like tool that run certain programs.
struct PostconditionScope {
  // The string argument that holds a shell command line.
  std::string argument = "command";
  // The check applies when one of these runs as a command in that line: first word, or after
  // |, ||, &&, ;, &, (, $(, a backquote or a keyword such as `then`; leading VAR=value words
  // and command/exec/env/sudo/nice/nohup/time are skipped. "ls" also matches "/bin/ls". Empty:
  // every call.
  std::vector<std::string> programs = {};
};

// One contract on a tool's ok output: start from a factory, then adjust the fields.
struct Postcondition {
  std::string name = {};  // shown to the model, in events and by `keel tools list`, e.g. "not_metadata_only"
  PostconditionKind kind = PostconditionKind::kNotEmpty;
  // The stricter instruction the model gets with the failure and in the next continuation prompt.
  std::string hint = {};
  // Lines that start with one of these (after leading spaces) are the tool's own notes, e.g. the
  // shell's "[exit code 0]": the declarative kinds ignore them.
  std::vector<std::string> ignore_prefixes = {};
  size_t min_lines = 1;                  // kMinLines: the fewest non-blank lines an output may have
  std::vector<std::string> any_of = {};  // kContainsAny: an empty list never fails
  PostconditionCheck check = {};         // kCustom: an empty function never fails
  PostconditionScope applies_to = {};    // which calls are checked; by default all of them

  // Each factory sets the kind, `name` (the kind's name) and a default `hint`.
  static Postcondition not_empty();
  static Postcondition not_metadata_only();
  static Postcondition at_least_lines(size_t lines);
  static Postcondition contains_any(std::vector<std::string> strings);
  // `name` names the check in messages and events; an empty `hint` gets a default one.
  static Postcondition custom(std::string name, PostconditionCheck check, std::string hint = {});
};

// A postcondition that an output did not satisfy.
struct PostconditionFailure {
  std::string name = {};     // the postcondition's name
  std::string reason = {};   // why, in one sentence, e.g. "the output is blank"
  std::string hint = {};     // the stricter instruction for the retry
  std::string excerpt = {};  // the start of the output's data lines, on one line; "(empty)" for none
};

// Whether `output` of a call with `arguments_json` satisfies `p`: the failure, or nullopt. A
// custom check that throws fails with the exception's message.
std::optional<PostconditionFailure> check_postcondition(const Postcondition& p, std::string_view output,
                                                        std::string_view arguments_json);

// The first of `spec.postconditions` that the output fails, or nullopt when all hold (or there
// are none).
std::optional<PostconditionFailure> check_postconditions(const ToolSpec& spec, std::string_view output,
                                                         std::string_view arguments_json);

// One line for people, e.g. "not_metadata_only: the output must be more than `ls -l` \"total N\"
// lines (calls running ls, dir or vdir)".
std::string describe_postcondition(const Postcondition& p);

// {"name", "kind", "hint", "ignore_prefixes"?, "min_lines"?, "any_of"?, "applies_to"?}; a custom
// check's function is not serialized.
nlohmann::json postcondition_to_json(const Postcondition& p);

// The JSON form above, or just a kind's name ("not_empty"). Missing name and hint take the kind's
// defaults. InvalidArgument for an unknown kind, a mistyped field or "custom" (a function cannot
// come from JSON).
Result<Postcondition> postcondition_from_json(const nlohmann::json& json);

// A JSON array of the forms above; InvalidArgument naming the bad element.
Result<std::vector<Postcondition>> postconditions_from_json(const nlohmann::json& json);

}  // namespace keel
