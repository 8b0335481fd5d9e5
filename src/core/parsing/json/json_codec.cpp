#include "keel/core/json_codec.hpp"

#include <nlohmann/json.hpp>

#include "core/parsing/json/codec_text.hpp"
#include "core/text/text_util.hpp"
#include "keel/core/postcondition.hpp"

namespace keel {
namespace {

using nlohmann::json;

using detail::Overloaded;

Result<std::string> get_string(const json& j, const char* key, bool required = true) {
  if (!j.contains(key)) {
    if (required) return Status::InvalidArgument(std::string("missing field '") + key + "'");
    return std::string();
  }
  if (!j[key].is_string()) return Status::InvalidArgument(std::string("field '") + key + "' must be a string");
  return j[key].get<std::string>();
}

Result<Risk> risk_from(const std::string& s) {
  if (s == "low") return Risk::kLow;
  if (s == "medium") return Risk::kMedium;
  if (s == "high") return Risk::kHigh;
  return Status::InvalidArgument("risk must be low, medium or high, got '" + s + "'");
}

}  // namespace

json decision_to_json(const Decision& d) {
  detail::SortedJsonObject object;
  detail::add_decision_members(object, d);
  std::string text;
  object.append_to(text);
  return json::parse(text);
}

namespace detail {

void add_decision_members(SortedJsonObject& o, const Decision& d) {
  auto text = [&](std::string_view key, std::string_view v) { append_json_string(o.member(key), v); };
  auto integer = [&](std::string_view key, std::int64_t v) { append_json_int(o.member(key), v); };
  auto boolean = [&](std::string_view key, bool v) { append_json_bool(o.member(key), v); };
  auto count = [&](std::string_view key, size_t v) { append_json_int(o.member(key), static_cast<std::int64_t>(v)); };
  std::visit(Overloaded{
                 [&](const CallModel& c) {
                   const ModelRequest& r = c.request;
                   text("action", "call_model");
                   integer("round", r.round);
                   boolean("tools_enabled", r.tools_enabled);
                   boolean("final_round", r.final_round);
                   count("history_size", r.history.size());
                   append_json_array(o.member("tools"), r.tools,
                                [](std::string& out, const ToolSpec& t) { append_json_string(out, t.name); });
                   if (!r.appended.empty()) text("continuation", r.appended.back().content);
                 },
                 [&](const CallPlanner& p) {
                   const ModelRequest& r = p.request;
                   text("action", "call_planner");
                   integer("round", r.round);
                   boolean("tools_enabled", r.tools_enabled);
                   integer("timeout_ms", p.timeout_ms);
                   count("request_size", r.history.size());
                   if (r.history.size() == 2) {
                     text("instructions", r.history[0].content);
                     text("task", r.history[1].content);
                   }
                 },
                 [&](const Summarize& s) {
                   text("action", "summarize");
                   count("messages", s.messages);
                   count("request_size", s.request.history.size());
                   text("cache_scope", s.cache_scope);
                   text("cache_key", s.cache_key);
                 },
                 [&](const RunTools& r) {
                   text("action", "run_tools");
                   append_json_array(o.member("calls"), r.calls, append_tool_call_json);
                   if (r.budget_left.capped()) {  // what sub-agents the calls start may still spend
                     std::string& left = o.member("budget_left");
                     left += '{';
                     if (r.budget_left.max_cost > 0) {
                       append_json_key(left, "max_cost");
                       append_json_double(left, r.budget_left.max_cost);
                     }
                     if (r.budget_left.max_tokens > 0) {
                       if (r.budget_left.max_cost > 0) left += ',';
                       append_json_key(left, "max_tokens");
                       append_json_int(left, r.budget_left.max_tokens);
                     }
                     left += '}';
                   }
                 },
                 [&](const AskApproval& a) {
                   text("action", "ask_approval");
                   append_json_array(o.member("requests"), a.requests, [](std::string& out, const ApprovalRequest& r) {
                     out += "{\"call\":";
                     append_tool_call_json(out, r.call);
                     out += ',';
                     append_string_members(out, {{"reason", r.reason}, {"risk", risk_name(r.risk)}});
                     out += '}';
                   });
                 },
                 [&](const Finish& f) {
                   text("action", "finish");
                   text("answer", f.answer);
                   // calls of client-side tools handed to the caller
                   if (!f.client_calls.empty()) append_json_array(o.member("client_calls"), f.client_calls, append_tool_call_json);
                 },
                 [&](const Fail& f) {
                   text("action", "fail");
                   text("kind", failure_kind_name(f.kind));
                   text("reason", f.reason);
                 },
             },
             d.action);
  append_json_array(o.member("guards"), d.guards, [](std::string& out, const GuardEvent& g) {
    out += '{';
    append_string_members(
        out, {{"call_id", g.call_id}, {"detail", g.detail}, {"kind", guard_kind_name(g.kind)}, {"tool", g.tool}});
    out += '}';
  });
  if (!d.plan_steps.empty()) {  // only plans have them: other decisions keep their shape
    append_json_array(o.member("plan_steps"), d.plan_steps, [](std::string& out, const PlanStepUpdate& u) {
      out += '{';
      append_string_members(out, {{"detail", u.detail}});
      out += ",\"index\":";
      append_json_int(out, static_cast<std::int64_t>(u.index));
      out += ',';
      append_string_members(out, {{"save_as", u.save_as}, {"state", plan_step_state_name(u.state)}, {"tool", u.tool}});
      out += '}';
    });
  }
  if (!d.gate_decisions.empty()) {  // only a gate makes them: other decisions keep their shape
    append_json_array(o.member("gate_decisions"), d.gate_decisions, [](std::string& out, const GateDecision& g) {
      out += "{\"call\":";
      append_tool_call_json(out, g.call);
      out += ',';
      append_string_members(out, {{"reason", g.reason},
                                  {"risk", risk_name(g.risk)},
                                  {"verdict", approval_verdict_name(g.verdict)}});
      out += '}';
    });
  }
  if (d.planner) {
    std::string& planner = o.member("planner");
    planner += '{';
    append_string_members(planner, {{"plan", d.planner->plan}, {"skipped", d.planner->skipped}});
    planner += '}';
  }
}

}  // namespace detail

Result<ToolSpec> tool_spec_from_json(const json& j) {
  if (!j.is_object()) return Status::InvalidArgument("a tool spec must be a JSON object");
  ToolSpec s;
  KEEL_ASSIGN_OR_RETURN(s.name, get_string(j, "name"));
  KEEL_ASSIGN_OR_RETURN(s.description, get_string(j, "description", false));
  if (j.contains("parameters")) s.parameters_schema = j["parameters"].dump();
  s.read_only = j.value("read_only", false);
  s.concurrency_safe = j.value("concurrency_safe", s.read_only);
  KEEL_ASSIGN_OR_RETURN(s.risk, risk_from(j.value("risk", std::string("low"))));
  s.timeout_ms = j.value("timeout_ms", s.timeout_ms);
  s.cacheable = j.value("cacheable", false);
  s.deferred = j.value("deferred", false);
  if (j.contains("postconditions")) {
    KEEL_ASSIGN_OR_RETURN(s.postconditions, postconditions_from_json(j["postconditions"]));
  }
  return s;
}

Result<AgentConfig> agent_config_from_json(const json& j) {
  AgentConfig c;
  if (j.is_null()) return c;
  if (!j.is_object()) return Status::InvalidArgument("config must be a JSON object");
  try {
    for (auto it = j.begin(); it != j.end(); ++it) {
      const std::string& k = it.key();
      if (k == "max_rounds") c.max_rounds = it->get<int>();
      else if (k == "max_empty_replies") c.max_empty_replies = it->get<int>();
      else if (k == "repeated_failure_limit") c.repeated_failure_limit = it->get<int>();
      else if (k == "near_duplicate_threshold") c.near_duplicate_threshold = it->get<double>();
      else if (k == "result_char_budget") c.result_char_budget = it->get<size_t>();
      else if (k == "context_window") c.context.context_window = it->get<size_t>();
      else if (k == "context_threshold") c.context.threshold = it->get<double>();
      else if (k == "recency_rounds") c.context.recency_rounds = it->get<int>();
      else if (k == "summary_cooldown_rounds") c.context.summary_cooldown_rounds = it->get<int>();
      else if (k == "planner") c.planner.enabled = it->get<bool>();
      else if (k == "planner_timeout_ms") c.planner.timeout_ms = it->get<int64_t>();
      else if (k == "max_tokens") c.budget.max_tokens = it->get<int64_t>();
      else if (k == "max_cost") c.budget.max_cost = it->get<double>();
      else if (k == "input_price_per_mtok") c.budget.input_price_per_mtok = it->get<double>();
      else if (k == "output_price_per_mtok") c.budget.output_price_per_mtok = it->get<double>();
      else if (k == "approval_threshold") {
        KEEL_ASSIGN_OR_RETURN(c.approval_threshold, risk_from(it->get<std::string>()));
      } else if (k == "tool_protocol") {
        std::string p = it->get<std::string>();
        if (p != "native" && p != "text") return Status::InvalidArgument("tool_protocol must be native or text");
        c.tool_protocol = p == "text" ? ToolProtocol::kText : ToolProtocol::kNative;
      } else {
        return Status::InvalidArgument("unknown config key '" + k + "'");
      }
    }
  } catch (const json::exception& e) {
    return Status::InvalidArgument(std::string("config has a value of the wrong type: ") + e.what());
  }
  return c;
}

}  // namespace keel
