// Reading a plan from a model reply (keel/core/plan.hpp). Small models get the same JSON repair
// pass as tool calls; the repairs are not reported here because a plan that parses is shown to
// people step by step anyway.
#include <set>

#include "core/parsing/json/json_repair.hpp"
#include "core/text/text_util.hpp"
#include "keel/core/plan.hpp"

namespace keel {
namespace {

// The JSON a plan may be written in: the whole reply, or the body of its first ``` fence.
std::string_view plan_candidate(std::string_view reply) {
  std::string_view t = detail::trim(reply);
  if (!t.starts_with("```")) return t;
  size_t line_end = t.find('\n');
  if (line_end == std::string_view::npos) return {};
  size_t close = t.find("```", line_end);
  if (close == std::string_view::npos) close = t.size();
  return detail::trim(t.substr(line_end + 1, close - line_end - 1));
}

bool simple_name(std::string_view s) {
  if (s.empty() || s.size() > 64) return false;
  for (char c : s) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

Status bad(std::string what) {
  return Status::InvalidArgument("the plan cannot run: " + std::move(what) +
                                 ". Send {\"plan\": [{\"tool\": NAME, \"args\": {...}, \"save_as\": ALIAS}, ...], "
                                 "\"reply\": \"... {{tool_result.FIELD}} ...\"}");
}

Result<PlanStep> read_step(const nlohmann::json& s, size_t index) {
  const std::string where = "step " + std::to_string(index + 1);
  if (!s.is_object()) return bad(where + " is not an object");
  PlanStep step;
  auto tool = s.find("tool");
  if (tool == s.end() || !tool->is_string() || tool->get<std::string>().empty()) {
    return bad(where + " has no \"tool\" name");
  }
  step.tool = tool->get<std::string>();
  auto args = s.find("args");
  if (args == s.end()) args = s.find("arguments");
  if (args != s.end() && !args->is_null()) {
    if (!args->is_object()) return bad(where + " (" + step.tool + "): \"args\" must be a JSON object");
    step.args = args->dump();
  }
  auto alias = s.find("save_as");
  if (alias != s.end() && !alias->is_null()) {
    if (!alias->is_string() || !simple_name(alias->get<std::string>())) {
      return bad(where + " (" + step.tool + "): \"save_as\" must be a simple name of letters, digits, '_' or '-'");
    }
    step.save_as = alias->get<std::string>();
  } else {
    step.save_as = "_step" + std::to_string(index + 1);
    step.alias_inferred = true;
  }
  auto why = s.find("why");
  if (why != s.end() && why->is_string()) step.why = why->get<std::string>();
  return step;
}

}  // namespace

Result<std::optional<Plan>> parse_plan(std::string_view reply) {
  std::string_view candidate = plan_candidate(reply);
  if (candidate.empty() || candidate.front() != '{' || candidate.find("plan") == std::string_view::npos) {
    return std::optional<Plan>{};
  }
  detail::LenientJson parsed = detail::parse_json_lenient(candidate);
  if (!parsed.value || !parsed.value->is_object() || !parsed.value->contains("plan")) return std::optional<Plan>{};
  const nlohmann::json& doc = *parsed.value;
  const nlohmann::json& steps = doc["plan"];
  if (!steps.is_array() || steps.empty()) return bad("\"plan\" must be a non-empty array of steps");
  Plan plan;
  std::set<std::string> aliases;
  for (size_t i = 0; i < steps.size(); ++i) {
    KEEL_ASSIGN_OR_RETURN(PlanStep step, read_step(steps[i], i));
    if (!aliases.insert(step.save_as).second) {
      return bad("step " + std::to_string(i + 1) + " reuses the alias \"" + step.save_as + "\"");
    }
    plan.steps.push_back(std::move(step));
  }
  auto r = doc.find("reply");
  if (r != doc.end() && !r->is_null()) {
    if (!r->is_string()) return bad("\"reply\" must be a string");
    plan.reply = r->get<std::string>();
  }
  return std::optional<Plan>{std::move(plan)};
}

}  // namespace keel
