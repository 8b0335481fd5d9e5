// keel/core/skill_graph.hpp — the pure planning of executable skills (seed 002's skill DAG): which
// skills a request selects, in which order and in which parallel levels they run, and whether a
// skill's skipWhen conditions hold. No I/O: the skill runner (keel/skill_runner.hpp) does the rest.
//
//   std::vector<keel::SkillNode> nodes = {{"score", {"extract"}, {}}, {"extract", {}, {"inbox"}}};
//   KEEL_ASSIGN_OR_RETURN(auto ids, keel::select_skill_closure(nodes, {"score"}, {}));  // extract, score
//   KEEL_ASSIGN_OR_RETURN(keel::SkillPlan plan, keel::plan_skill_graph(nodes));
//   // plan.order == {"extract", "score"}; plan.levels == {{"extract"}, {"score"}}
//
// Thread-safety: plain values and pure functions.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "keel/result.hpp"

namespace keel {

// One skill as the graph sees it.
struct SkillNode {
  std::string id;
  std::vector<std::string> depends;   // ids that must run first
  std::vector<std::string> triggers;  // names that select the skill
};

struct SkillPlan {
  // Kahn's algorithm, taking the alphabetically smallest ready skill each time: a sequential order
  // in which every skill comes after its dependencies.
  std::vector<std::string> order;
  // Skills grouped so that no skill depends on one of its own level or a later one: level 0 holds
  // the skills without dependencies, level n those whose longest dependency chain has n links.
  // Each level is sorted alphabetically; its skills may run in parallel.
  std::vector<std::vector<std::string>> levels;
};

// Orders `nodes`. InvalidArgument for an empty or duplicate id ("skill 'a' is defined twice"), a
// dependency that names no node ("skill 'a' depends on 'x', which is not a loaded skill"), or a
// cycle, named from its alphabetically smallest member in dependency direction:
// "skill cycle: a → b → c → a" (a depends on b, b on c, c on a).
Result<SkillPlan> plan_skill_graph(std::span<const SkillNode> nodes);

// The skills named in `ids` plus those with any of `triggers`, with everything they depend on,
// transitively; sorted alphabetically. InvalidArgument when both lists are empty; NotFound for an
// id that names no node ("no executable skill 'x' (loaded: a, b)") or a trigger no node has.
// Dependencies that name no node are left out (plan_skill_graph() reports them).
Result<std::vector<std::string>> select_skill_closure(std::span<const SkillNode> nodes,
                                                      std::span<const std::string> ids,
                                                      std::span<const std::string> triggers);

// A parsed skipWhen condition: "no-KEY" holds when the graph context has no usable value KEY,
// "has-KEY" when it has one (see skill_context_has()).
struct SkipCondition {
  enum class Kind { kNo, kHas };
  Kind kind = Kind::kNo;
  std::string key;   // the context member looked at
  std::string text;  // the condition as written
};

// InvalidArgument "skipWhen 'x' is not a condition: write \"no-KEY\" or \"has-KEY\"" for any other form.
Result<SkipCondition> parse_skip_condition(std::string_view text);

// True when `context` is an object whose member `key` is present and not null, false, 0, "" or an
// empty array or object.
bool skill_context_has(const nlohmann::json& context, std::string_view key);

// The reason to skip, from the first condition that holds ("no-candidates: the context has no
// value 'candidates'"); nullopt when none holds.
std::optional<std::string> skip_reason(std::span<const SkipCondition> conditions, const nlohmann::json& context);

}  // namespace keel
