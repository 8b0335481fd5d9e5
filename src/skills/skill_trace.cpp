#include "skills/skill_trace.hpp"

#include <algorithm>
#include <chrono>
#include <nlohmann/json.hpp>

#include "core/text/text_util.hpp"

namespace keel::detail {
namespace {

using nlohmann::json;

std::string root_span_id(std::string_view run_id) {
  return concat({"skills-", run_id});
}

void record(Store& store, const SpanRecord& span, std::vector<std::string>& warnings) {
  Status s = store.record_span(span);
  if (!s.ok()) warnings.push_back(concat({"could not record span ", span.span_id, ": ", s.message()}));
}

}  // namespace

void record_skill_span(Store& store, std::string_view run_id, const SkillOutcome& outcome, int64_t start_us,
                       std::vector<std::string>& warnings) {
  json attrs = {{"backend", outcome.backend},
                {"duration_ms", outcome.duration_ms},
                {"retries", outcome.retries},
                {"skipped", outcome.skipped},
                {"repairs", outcome.repairs.size()}};
  if (!outcome.reason.empty()) attrs["reason"] = outcome.reason;
  if (outcome.status == SkillStatus::kFailed) attrs["error"] = outcome.reason;
  if (outcome.action.state != SkillActionState::kNone) {
    attrs["action"] = skill_action_state_name(outcome.action.state);
    attrs["action_tool"] = outcome.action.tool;
    if (outcome.action.proposal_id != 0) attrs["proposal_id"] = outcome.action.proposal_id;
  }
  SpanRecord s;
  s.trace_id = std::string(run_id);
  s.span_id = concat({"skill-", outcome.id});
  s.parent_span_id = root_span_id(run_id);
  s.kind = "skill";
  s.name = outcome.id;
  s.start_us = start_us;
  s.duration_us = std::max<int64_t>(0, outcome.duration_ms) * 1000;
  s.status = std::string(skill_status_name(outcome.status));
  s.attributes = attrs.dump(-1, ' ', false, json::error_handler_t::replace);
  record(store, s, warnings);
}

void record_graph_span(Store& store, const SkillGraphResult& result, int64_t start_us,
                       std::vector<std::string>& warnings) {
  int failed = 0;
  for (const SkillOutcome& o : result.skills) {
    failed += o.status == SkillStatus::kFailed || o.status == SkillStatus::kBlocked ? 1 : 0;
  }
  json attrs = {{"skills", result.skills.size()}, {"failed", failed}, {"duration_ms", result.duration_ms}};
  SpanRecord s;
  s.trace_id = result.run_id;
  s.span_id = root_span_id(result.run_id);
  s.kind = "skill_graph";
  s.name = "skills";
  s.start_us = start_us;
  s.duration_us = std::max<int64_t>(0, result.duration_ms) * 1000;
  s.status = result.ok() ? "ok" : "error";
  s.attributes = attrs.dump();
  record(store, s, warnings);
}

}  // namespace keel::detail
