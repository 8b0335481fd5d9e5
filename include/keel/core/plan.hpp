// keel/core/plan.hpp — multi-step tool plans: a model may answer with a whole plan instead of one
// call (seed 003's plan executor), and the pure pieces that run one.
//
// A plan is a reply whose JSON object holds a "plan" array:
//   {"plan": [{"tool": "parse_csv", "args": {"text": "..."}, "save_as": "rows", "why": "..."},
//             {"tool": "math_aggregate", "args": {"op": "sum", "rows": "$tool.rows.rows", "field": "n"}}],
//    "reply": "The total is {{tool_result.value}} over {{tool.rows.row_count}} rows."}
// Steps run strictly in order. Arguments may reference earlier results as `$tool.ALIAS.PATH` (or
// `$tool_result.PATH` for the step before); a string that is exactly one reference takes the
// referenced value with its JSON type, a reference inside longer text is replaced by its text.
// The reply's `{{tool_result.PATH}}` and `{{tool.ALIAS.PATH}}` placeholders are filled from the
// results. Results are normalized so both flattened fields and a `.result` snapshot resolve: an
// object result keeps its fields and gains `result` (a copy of itself) unless it has one, whose
// fields are then also lifted to the top; any other result (array, number, text) becomes
// {"result": value}. PATH is `a.b[2].c`; a path that is not found directly is tried under
// `result.` before it counts as missing.
//
// Thread-safety: plain values and pure functions; a PlanResults is not synchronised.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "keel/result.hpp"

namespace keel {

struct PlanStep {
  std::string tool;             // the tool to call
  std::string args = "{}";      // JSON object text; may hold references to earlier results
  std::string save_as;          // the alias later steps and the reply use; "_stepN" (1-based) when not given
  bool alias_inferred = false;  // save_as was not given and was set to "_stepN"
  std::string why;              // the model's reason for the step, shown to people
};

struct Plan {
  std::vector<PlanStep> steps;
  std::string reply;  // the answer template with placeholders; may be empty
};

// Reads a plan from a model reply: the trimmed reply, or the body of its only ```json fence, is
// a JSON object with a "plan" key. nullopt when the reply is not a plan. InvalidArgument, with a
// message the model can act on, when it is a plan that cannot run: "plan" not a non-empty array,
// a step without a "tool" string, "args" not an object, a save_as that is not a simple name
// ([A-Za-z0-9_-]) or is used twice, "reply" not a string.
Result<std::optional<Plan>> parse_plan(std::string_view reply);

// Whether `reply` binds tool data: it holds at least one {{tool_result...}} or {{tool.ALIAS...}}
// placeholder. A plan with steps whose reply binds nothing is rejected before anything runs.
bool reply_binds_results(std::string_view reply);

// The normalized results of the steps run so far.
class PlanResults {
 public:
  PlanResults();
  ~PlanResults();
  PlanResults(PlanResults&&) noexcept;
  PlanResults& operator=(PlanResults&&) noexcept;

  // Records the output of the step saved as `alias` (JSON text or plain text) and makes it the
  // last result.
  void add(std::string_view alias, std::string_view output);
  bool empty() const;

  // `args` (a JSON object text) with every reference replaced. InvalidArgument naming the first
  // reference that does not resolve (unknown alias, missing path) and what is available.
  Result<std::string> resolve_arguments(std::string_view args) const;

  // `reply` with every placeholder filled. InvalidArgument naming the placeholders that do not
  // resolve; text without placeholders comes back unchanged.
  Result<std::string> hydrate(std::string_view reply) const;

  // The normalized result saved as `alias`, as compact JSON text; nullopt for an unknown alias.
  std::optional<std::string> normalized(std::string_view alias) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace keel
