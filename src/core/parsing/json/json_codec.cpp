#include "keel/core/json_codec.hpp"

#include <nlohmann/json.hpp>

#include "core/text/text_util.hpp"
#include "keel/core/postcondition.hpp"

namespace keel {
namespace {

using nlohmann::json;

json call_to_json(const ToolCall& c) { return {{"id", c.id}, {"name", c.name}, {"arguments", c.arguments}}; }

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

Result<ToolStatus> status_from(const std::string& s) {
  for (auto st : {ToolStatus::kOk, ToolStatus::kError, ToolStatus::kTimeout, ToolStatus::kDenied, ToolStatus::kBlocked,
                  ToolStatus::kCancelled}) {
    if (tool_status_name(st) == s) return st;
  }
  return Status::InvalidArgument("unknown tool status '" + s + "'");
}

Result<ModelReply> reply_from(const json& j) {
  if (!j.is_object()) return Status::InvalidArgument("'reply' must be an object");
  ModelReply r;
  KEEL_ASSIGN_OR_RETURN(r.text, get_string(j, "text", false));
  KEEL_ASSIGN_OR_RETURN(r.reasoning, get_string(j, "reasoning", false));
  if (j.contains("tool_calls")) {
    if (!j["tool_calls"].is_array()) return Status::InvalidArgument("'tool_calls' must be an array");
    for (const auto& c : j["tool_calls"]) {
      ToolCall call;
      KEEL_ASSIGN_OR_RETURN(call.id, get_string(c, "id", false));
      KEEL_ASSIGN_OR_RETURN(call.name, get_string(c, "name"));
      if (c.contains("arguments")) call.arguments = c["arguments"].is_string() ? c["arguments"].get<std::string>() : c["arguments"].dump();
      r.tool_calls.push_back(std::move(call));
    }
  }
  if (j.contains("usage")) {
    const json& u = j["usage"];
    if (!u.is_object()) return Status::InvalidArgument("'usage' must be an object");
    r.usage.prompt_tokens = u.value("prompt_tokens", int64_t{0});
    r.usage.completion_tokens = u.value("completion_tokens", int64_t{0});
  }
  return r;
}

Result<Event> event_from_json_impl(const json& j) {
  KEEL_ASSIGN_OR_RETURN(std::string type, get_string(j, "type"));
  if (type == "model_replied") {
    if (!j.contains("reply")) return Status::InvalidArgument("missing field 'reply'");
    KEEL_ASSIGN_OR_RETURN(ModelReply reply, reply_from(j["reply"]));
    return Event{ModelReplied{std::move(reply)}};
  }
  if (type == "model_failed") {
    KEEL_ASSIGN_OR_RETURN(std::string msg, get_string(j, "message"));
    return Event{ModelFailed{Status::Unavailable(msg)}};
  }
  if (type == "tools_finished") {
    ToolsFinished done;
    if (!j.contains("results") || !j["results"].is_array()) return Status::InvalidArgument("'results' must be an array");
    for (const auto& r : j["results"]) {
      ToolResult res;
      KEEL_ASSIGN_OR_RETURN(res.call_id, get_string(r, "call_id", false));
      KEEL_ASSIGN_OR_RETURN(std::string status, get_string(r, "status"));
      KEEL_ASSIGN_OR_RETURN(res.status, status_from(status));
      KEEL_ASSIGN_OR_RETURN(res.content, get_string(r, "content", false));
      if (r.contains("model_usage")) {  // a sub-agent's model calls, counted in this run's budget
        const json& u = r["model_usage"];
        if (!u.is_object()) return Status::InvalidArgument("'model_usage' must be an object");
        res.model_usage.prompt_tokens = u.value("prompt_tokens", int64_t{0});
        res.model_usage.completion_tokens = u.value("completion_tokens", int64_t{0});
      }
      done.results.push_back(std::move(res));
    }
    return Event{std::move(done)};
  }
  if (type == "approvals_given") {
    ApprovalsGiven given;
    if (j.contains("decisions")) {
      for (const auto& d : j["decisions"]) {
        ApprovalDecision dec;
        KEEL_ASSIGN_OR_RETURN(dec.call_id, get_string(d, "call_id"));
        KEEL_ASSIGN_OR_RETURN(std::string verdict, get_string(d, "verdict"));
        bool known = false;
        for (auto v : {ApprovalVerdict::kAllow, ApprovalVerdict::kAllowAlways, ApprovalVerdict::kDeny}) {
          if (approval_verdict_name(v) == verdict) {
            dec.verdict = v;
            known = true;
          }
        }
        if (!known) return Status::InvalidArgument("verdict must be allow, allow_always or deny, got '" + verdict + "'");
        KEEL_ASSIGN_OR_RETURN(dec.reason, get_string(d, "reason", false));
        given.decisions.push_back(std::move(dec));
      }
    }
    return Event{std::move(given)};
  }
  if (type == "continue_requested") {
    KEEL_ASSIGN_OR_RETURN(std::string msg, get_string(j, "message"));
    return Event{ContinueRequested{std::move(msg)}};
  }
  if (type == "aborted") {
    KEEL_ASSIGN_OR_RETURN(std::string reason, get_string(j, "reason", false));
    return Event{Aborted{std::move(reason)}};
  }
  return Status::InvalidArgument("unknown event type '" + type + "'");
}

}  // namespace

json decision_to_json(const Decision& d) {
  json out = std::visit(
      Overloaded{
          [](const CallModel& c) {
            const ModelRequest& r = c.request;
            json j = {{"action", "call_model"},     {"round", r.round},
                      {"tools_enabled", r.tools_enabled}, {"final_round", r.final_round},
                      {"history_size", r.history.size()}, {"tools", json::array()}};
            for (const auto& t : r.tools) j["tools"].push_back(t.name);
            if (!r.appended.empty()) j["continuation"] = r.appended.back().content;
            return j;
          },
          [](const CallPlanner& p) {
            const ModelRequest& r = p.request;
            json j = {{"action", "call_planner"}, {"round", r.round}, {"tools_enabled", r.tools_enabled},
                      {"timeout_ms", p.timeout_ms}, {"request_size", r.history.size()}};
            if (r.history.size() == 2) {
              j["instructions"] = r.history[0].content;
              j["task"] = r.history[1].content;
            }
            return j;
          },
          [](const Summarize& s) {
            return json{{"action", "summarize"},
                        {"messages", s.messages},
                        {"request_size", s.request.history.size()},
                        {"cache_scope", s.cache_scope},
                        {"cache_key", s.cache_key}};
          },
          [](const RunTools& r) {
            json calls = json::array();
            for (const auto& c : r.calls) calls.push_back(call_to_json(c));
            json out = {{"action", "run_tools"}, {"calls", calls}};
            if (r.budget_left.capped()) {  // what sub-agents the calls start may still spend
              json left = json::object();
              if (r.budget_left.max_tokens > 0) left["max_tokens"] = r.budget_left.max_tokens;
              if (r.budget_left.max_cost > 0) left["max_cost"] = r.budget_left.max_cost;
              out["budget_left"] = std::move(left);
            }
            return out;
          },
          [](const AskApproval& a) {
            json reqs = json::array();
            for (const auto& r : a.requests) {
              reqs.push_back({{"call", call_to_json(r.call)}, {"risk", risk_name(r.risk)}, {"reason", r.reason}});
            }
            return json{{"action", "ask_approval"}, {"requests", reqs}};
          },
          [](const Finish& f) {
            json j = {{"action", "finish"}, {"answer", f.answer}};
            if (!f.client_calls.empty()) {  // calls of client-side tools handed to the caller
              j["client_calls"] = json::array();
              for (const auto& c : f.client_calls) j["client_calls"].push_back(call_to_json(c));
            }
            return j;
          },
          [](const Fail& f) { return json{{"action", "fail"}, {"kind", failure_kind_name(f.kind)}, {"reason", f.reason}}; },
      },
      d.action);
  out["guards"] = json::array();
  for (const auto& g : d.guards) {
    out["guards"].push_back({{"kind", guard_kind_name(g.kind)}, {"detail", g.detail}, {"tool", g.tool}, {"call_id", g.call_id}});
  }
  if (!d.plan_steps.empty()) {  // only plans have them: other decisions keep their shape
    out["plan_steps"] = json::array();
    for (const auto& u : d.plan_steps) {
      out["plan_steps"].push_back({{"index", u.index}, {"state", plan_step_state_name(u.state)}, {"tool", u.tool},
                                   {"save_as", u.save_as}, {"detail", u.detail}});
    }
  }
  if (!d.gate_decisions.empty()) {  // only a gate makes them: other decisions keep their shape
    out["gate_decisions"] = json::array();
    for (const auto& g : d.gate_decisions) {
      out["gate_decisions"].push_back({{"call", call_to_json(g.call)}, {"risk", risk_name(g.risk)},
                                       {"verdict", approval_verdict_name(g.verdict)}, {"reason", g.reason}});
    }
  }
  if (d.planner) out["planner"] = {{"plan", d.planner->plan}, {"skipped", d.planner->skipped}};
  return out;
}

Result<Event> event_from_json(const json& j) {
  if (!j.is_object()) return Status::InvalidArgument("an event must be a JSON object");
  return event_from_json_impl(j);
}

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
