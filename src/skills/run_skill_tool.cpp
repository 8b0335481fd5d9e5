// The run_skill tool: an agent runs an executable skill by id and reads its outcome as JSON.
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "keel/skill_runner.hpp"
#include "core/text/text_util.hpp"

namespace keel {
namespace {

using detail::concat;
using nlohmann::json;

json outcome_json(const SkillOutcome& o) {
  json j = {{"id", o.id}, {"status", skill_status_name(o.status)}};
  if (!o.reason.empty()) j["reason"] = o.reason;
  if (!o.output.empty()) {
    json out = json::parse(o.output, nullptr, false);
    j["output"] = out.is_discarded() ? json(o.output) : out;
  }
  if (o.action.state != SkillActionState::kNone) {
    j["action"] = {
        {"state", skill_action_state_name(o.action.state)}, {"tool", o.action.tool}, {"detail", o.action.detail}};
  }
  return j;
}

}  // namespace

std::unique_ptr<Tool> make_run_skill_tool(SkillRunner& runner) {
  json schema = {{"type", "object"},
                 {"properties",
                  {{"id", {{"type", "string"}, {"description", "The executable skill to run"}}},
                   {"input", {{"type", "object"}, {"description", "The skill's input (a JSON object); default {}"}}}}},
                 {"required", {"id"}},
                 {"additionalProperties", false}};
  std::vector<std::string> ids = runner.ids();
  if (!ids.empty()) schema["properties"]["id"]["enum"] = ids;
  std::string description =
      "Run an executable skill (and the skills it depends on) on an input and get its validated "
      "JSON output. Skills: ";
  for (size_t i = 0; i < ids.size(); ++i) description.append(i == 0 ? "" : ", ").append(ids[i]);
  if (ids.empty()) description.append("none");
  ToolTraits traits;
  traits.risk = Risk::kMedium;
  traits.timeout_ms = 600000;
  ToolSpec spec = make_tool_spec("run_skill", std::move(description), schema.dump(), traits);
  return make_tool(std::move(spec), [&runner](const json& args, const ToolContext& ctx) -> Result<std::string> {
    SkillRunRequest request;
    request.ids = {args.at("id").get<std::string>()};
    request.stop = ctx.stop;
    const json input = args.contains("input") ? args["input"] : json::object();
    KEEL_ASSIGN_OR_RETURN(SkillGraphResult result, runner.run(request, input));
    json out = {{"ok", result.ok()}, {"run_id", result.run_id}, {"skills", json::array()}};
    std::string failures;
    for (const SkillOutcome& o : result.skills) {
      out["skills"].push_back(outcome_json(o));
      if (o.status == SkillStatus::kFailed || o.status == SkillStatus::kBlocked ||
          o.action.state == SkillActionState::kFailed) {
        if (!failures.empty()) failures.append("; ");
        const bool action = o.action.state == SkillActionState::kFailed;
        failures.append(concat({o.id, " ", action ? "action failed" : skill_status_name(o.status), ": ",
                                action ? o.action.detail : o.reason}));
      }
    }
    if (!failures.empty()) return Status::Aborted(concat({"the skill run failed: ", failures}));
    return out.dump(-1, ' ', false, json::error_handler_t::replace);
  });
}

}  // namespace keel
