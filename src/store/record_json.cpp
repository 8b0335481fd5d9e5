#include "store/record_json.hpp"

namespace keel::detail {

using RecordJson = nlohmann::ordered_json;  // keys in the order written: ids first

RecordJson session_to_json(const SessionRecord& s) {
  return {{"id", s.id},
          {"title", s.title},
          {"workspace", s.workspace},
          {"model", s.model},
          {"parent_id", s.parent_id},
          {"hidden", s.hidden},
          {"created_ms", s.created_ms},
          {"updated_ms", s.updated_ms},
          {"message_count", s.message_count}};
}

RecordJson run_to_json(const RunRecord& r) {
  RecordJson j = {{"id", r.id},
            {"session_id", r.session_id},
            {"task", r.task},
            {"state", std::string(run_state_name(r.state))},
            {"rounds", r.rounds},
            {"usage", {{"prompt_tokens", r.usage.prompt_tokens}, {"completion_tokens", r.usage.completion_tokens}}},
            {"answer", r.answer},
            {"error", r.error},
            {"started_ms", r.started_ms}};
  j["ended_ms"] = r.ended_ms ? RecordJson(*r.ended_ms) : RecordJson(nullptr);
  j["checkpoint"] = r.checkpoint ? RecordJson(*r.checkpoint) : RecordJson(nullptr);
  return j;
}

RecordJson tool_run_to_json(const ToolRunRecord& t) {
  return {{"id", t.id},
          {"run_id", t.run_id},
          {"call_id", t.call_id},
          {"tool", t.tool},
          {"alias", t.alias},
          {"raw_args", t.raw_args},
          {"resolved_args", t.resolved_args},
          {"started_ms", t.started_ms},
          {"ended_ms", t.ended_ms},
          {"duration_ms", t.duration_ms},
          {"status", std::string(tool_status_name(t.status))},
          {"result", t.result},
          {"error", t.error}};
}

RecordJson message_to_json(const StoredMessage& sm) {
  const Message& m = sm.message;
  RecordJson calls = RecordJson::array();
  for (const ToolCall& c : m.tool_calls) calls.push_back({{"id", c.id}, {"name", c.name}, {"arguments", c.arguments}});
  RecordJson metadata = RecordJson::object();
  for (const auto& [k, v] : m.metadata) metadata[k] = v;
  return {{"seq", sm.seq},
          {"run_id", sm.run_id},
          {"role", std::string(role_name(m.role))},
          {"content", m.content},
          {"reasoning", m.reasoning},
          {"tool_calls", std::move(calls)},
          {"tool_call_id", m.tool_call_id},
          {"name", m.name},
          {"metadata", std::move(metadata)},
          {"tokens", sm.tokens},
          {"created_ms", sm.created_ms}};
}

}  // namespace keel::detail
