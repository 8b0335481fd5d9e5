// The rules model: reads the conversation, and either asks for the one tool call the task needs or
// answers from that call's result. The plan is recomputed from the task each round (it is a pure
// function of the text), so the model keeps no state between calls.
#include "keel/rules_model.hpp"

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "llm/rules_data_plan.hpp"
#include "llm/rules_intent.hpp"

namespace keel {
namespace {

using detail::RulesIntent;
using detail::RulesPlan;

// What the conversation holds for the current turn.
struct Turn {
  const Message* task = nullptr;         // the user message that asked
  const Message* tool_result = nullptr;  // the last tool message after it, if any
};

// The current turn starts at the first user message after the last finished answer (an assistant
// message without tool calls). In a single run that is simply the first user message; later user
// messages (continuation prompts) do not change the task.
Turn find_turn(const ModelRequest& request) {
  std::vector<const Message*> messages;
  request.for_each_message([&](const Message& m) { messages.push_back(&m); });
  size_t start = 0;
  for (size_t i = 0; i < messages.size(); ++i) {
    if (messages[i]->role == Role::kAssistant && messages[i]->tool_calls.empty()) start = i + 1;
  }
  Turn turn;
  for (size_t i = start; i < messages.size(); ++i) {
    if (turn.task == nullptr && messages[i]->role == Role::kUser) turn.task = messages[i];
    if (turn.task != nullptr && messages[i]->role == Role::kTool) turn.tool_result = messages[i];
  }
  if (turn.task == nullptr) {  // nothing new since the last answer: fall back to the first task
    for (const Message* m : messages) {
      if (m->role == Role::kUser) {
        turn.task = m;
        break;
      }
    }
  }
  return turn;
}

bool tool_offered(const ModelRequest& request, const std::string& name) {
  if (!request.tools_enabled) return false;
  for (const ToolSpec& spec : request.tools) {
    if (spec.name == name) return true;
  }
  return false;
}

bool offers_all(const ModelRequest& request, const detail::RulesDataQuery& query) {
  for (const std::string& tool : detail::data_plan_tools(query)) {
    if (!tool_offered(request, tool)) return false;
  }
  return true;
}

std::string arguments_json(const RulesPlan& plan) {
  nlohmann::json args = nlohmann::json::object();
  switch (plan.intent) {
    case RulesIntent::kListFiles:
    case RulesIntent::kReadFile:
    case RulesIntent::kCountLines: args["path"] = plan.path; break;
    case RulesIntent::kSearch:
      args["pattern"] = detail::escape_re2_literal(plan.pattern);
      args["path"] = plan.path;
      break;
    case RulesIntent::kDateTime:
    case RulesIntent::kNone: break;
  }
  // Replace invalid UTF-8 from the task rather than throw.
  return args.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string trim_end(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ' || s.back() == '\t')) s.pop_back();
  return s;
}

std::string place_name(const std::string& path) { return path == "." ? "the workspace" : path; }

// The value of a "key: value" line in a tool's output; empty when absent.
std::string field(const std::string& output, std::string_view key) {
  size_t at = 0;
  while (at < output.size()) {
    size_t end = output.find('\n', at);
    if (end == std::string::npos) end = output.size();
    std::string_view line(output.data() + at, end - at);
    if (line.starts_with(key) && line.substr(key.size()).starts_with(": ")) {
      return std::string(line.substr(key.size() + 2));
    }
    at = end + 1;
  }
  return {};
}

// "It is Saturday, 2025-03-01T09:30:00+01:00 (time zone Europe/Paris (CET, UTC+01:00))." from
// get_datetime's "local:", "weekday:" and "timezone:" lines; any other output is quoted whole.
std::string datetime_answer(const std::string& output) {
  std::string local = field(output, "local");
  if (local.empty()) return "It is " + output + (output.ends_with('.') ? "" : ".");
  std::string weekday = field(output, "weekday");
  std::string zone = field(output, "timezone");
  return "It is " + (weekday.empty() ? "" : weekday + ", ") + local + (zone.empty() ? "" : ", time zone " + zone) + ".";
}

std::string count_answer(const RulesPlan& plan, const std::string& content) {
  detail::FileLineCount count = detail::count_fs_read_lines(content);
  std::string unit = count.lines == 1 ? " line" : " lines";
  if (!count.complete) {
    return plan.path + " has at least " + std::to_string(count.lines) + unit +
           " (fs_read returned only part of it, so the exact count is unknown).";
  }
  return plan.path + " has " + std::to_string(count.lines) + unit + ".";
}

// The final answer built from a tool result. Tool outputs are quoted as they are; the few
// one-line summaries the built-in tools give ("docs/ is empty", "no matches for ...") are
// rephrased instead of being put under a lead line.
std::string answer_from_result(const RulesPlan& plan, const Message& result) {
  auto status = result.metadata.find("status");
  const std::string& tool = result.name.empty() ? plan.tool : result.name;
  if (status != result.metadata.end() && status->second != "ok") {
    return "The " + tool + " call failed: " + result.content;
  }
  if (plan.intent == RulesIntent::kNone || tool != plan.tool) {
    return "The " + tool + " call returned:\n" + result.content;
  }
  std::string output = trim_end(result.content);
  bool one_line = output.find('\n') == std::string::npos;
  switch (plan.intent) {
    case RulesIntent::kListFiles:
      if (output.empty()) return place_name(plan.path) + " is empty.";
      if (one_line && output.ends_with(" is empty")) return output + ".";
      return "Files in " + place_name(plan.path) + ":\n" + output;
    case RulesIntent::kReadFile:
      if (output.empty() || output.starts_with("[empty file")) return plan.path + " is empty.";
      return "Contents of " + plan.path + ":\n" + output;
    case RulesIntent::kSearch:
      if (output.empty() || (one_line && output.starts_with("no matches"))) {
        return "No matches for '" + plan.pattern + "' in " + place_name(plan.path) + ".";
      }
      return "Matches for '" + plan.pattern + "' in " + place_name(plan.path) + ":\n" + output;
    case RulesIntent::kCountLines: return count_answer(plan, result.content);
    case RulesIntent::kDateTime: return datetime_answer(output);
    case RulesIntent::kNone: break;
  }
  return "The " + tool + " call returned:\n" + result.content;
}

// Stateless, hence safe to share between threads.
class RulesModel final : public LlmClient {
 public:
  Result<ModelReply> complete(const ModelRequest& request, const CallOptions& options) override {
    if (options.stop.stop_requested()) return Status::Cancelled("the rules model was asked to stop");
    ModelReply reply;
    reply.model = "rules";
    Turn turn = find_turn(request);
    // A column question is answered by a plan whose reply the agent fills from the tools' results.
    if (turn.task != nullptr && turn.tool_result == nullptr) {
      if (auto query = detail::read_data_query(turn.task->content); query && offers_all(request, *query)) {
        reply.text = detail::data_plan_reply(*query);
        reply.finish_reason = "stop";
        return reply;
      }
    }
    RulesPlan plan = turn.task ? detail::plan_rules_task(turn.task->content) : RulesPlan{};

    if (turn.tool_result != nullptr) {
      reply.text = answer_from_result(plan, *turn.tool_result);
    } else if (plan.intent == RulesIntent::kNone || !tool_offered(request, plan.tool)) {
      reply.text = kRulesModelCannotHandle;
    } else {
      reply.tool_calls.push_back(ToolCall{"rules_1", plan.tool, arguments_json(plan)});
      reply.finish_reason = "tool_calls";
      return reply;
    }
    reply.finish_reason = "stop";
    if (options.on_text) options.on_text(reply.text);
    return reply;
  }

  std::string describe() const override { return "rules (deterministic, no model)"; }
};

}  // namespace

std::unique_ptr<LlmClient> make_rules_model() { return std::make_unique<RulesModel>(); }

}  // namespace keel
