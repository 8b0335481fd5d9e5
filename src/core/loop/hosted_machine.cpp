#include "keel/core/hosted_machine.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "core/parsing/json/codec_text.hpp"
#include "keel/core/json_codec.hpp"
#include "keel/core/prompt_builder.hpp"

namespace keel {
namespace {

using nlohmann::json;

// The messages under `key`, none when it is absent.
Result<std::vector<Message>> messages_at(const json& spec, const char* key) {
  if (!spec.contains(key)) return std::vector<Message>();
  return chat_messages_from_json(spec[key], key);
}

Result<std::string> text_field(const json& spec, const char* key, const char* fallback) {
  if (!spec.contains(key)) return std::string(fallback);
  if (!spec[key].is_string()) return Status::InvalidArgument(std::string("'") + key + "' must be a string");
  return spec[key].get<std::string>();
}

bool same_message(const Message& a, const Message& b) {
  if (a.role != b.role || a.content != b.content || a.tool_call_id != b.tool_call_id || a.name != b.name ||
      a.reasoning != b.reasoning || a.metadata != b.metadata || a.tool_calls.size() != b.tool_calls.size()) {
    return false;
  }
  for (size_t i = 0; i < a.tool_calls.size(); ++i) {
    const ToolCall& x = a.tool_calls[i];
    const ToolCall& y = b.tool_calls[i];
    if (x.id != y.id || x.name != y.name || x.arguments != y.arguments) return false;
  }
  return true;
}

}  // namespace

Result<HostedMachine> HostedMachine::create(const json& spec) {
  if (!spec.is_object()) return Status::InvalidArgument("the machine spec must be a JSON object");
  bool incremental = false;
  if (spec.contains("incremental_requests")) {
    if (!spec["incremental_requests"].is_boolean())
      return Status::InvalidArgument("'incremental_requests' must be true or false");
    incremental = spec["incremental_requests"].get<bool>();
  }
  KEEL_ASSIGN_OR_RETURN(HostedMachine hosted, create_machine(spec));
  hosted.incremental_ = incremental;
  return hosted;
}

Result<HostedMachine> HostedMachine::create_machine(const json& spec) {
  KEEL_ASSIGN_OR_RETURN(AgentConfig config,
                        agent_config_from_json(spec.contains("config") ? spec["config"] : json::object()));
  std::vector<ToolSpec> tools;
  if (spec.contains("tools")) {
    KEEL_ASSIGN_OR_RETURN(tools, tool_specs_from_json(spec["tools"], "tools"));
  }
  KEEL_ASSIGN_OR_RETURN(std::string system_prompt, text_field(spec, "system_prompt", ""));
  if (spec.contains("instructions")) {  // the sectioned prompt keel's own hosts send
    if (spec.contains("system_prompt"))
      return Status::InvalidArgument("give 'instructions' or 'system_prompt', not both");
    SystemPromptParts parts;
    KEEL_ASSIGN_OR_RETURN(parts.core_instructions, text_field(spec, "instructions", ""));
    KEEL_ASSIGN_OR_RETURN(parts.project_instructions, text_field(spec, "project_instructions", ""));
    parts.tools = tools;
    parts.protocol = config.tool_protocol;
    system_prompt = build_system_prompt(parts);
  }
  if (spec.contains("resume")) {
    const json& r = spec["resume"];
    if (!r.is_object()) return Status::InvalidArgument("'resume' must be an object");
    KEEL_ASSIGN_OR_RETURN(std::vector<Message> conversation, messages_at(r, "conversation"));
    if (!r.contains("run_start") || !r["run_start"].is_number_integer() || r["run_start"].get<int64_t>() < 0) {
      return Status::InvalidArgument("'resume.run_start' must be the index of the run's task message");
    }
    size_t run_start = r["run_start"].get<size_t>();
    if (run_start >= conversation.size()) {
      return Status::InvalidArgument("'resume.run_start' is " + std::to_string(run_start) +
                                     ", outside the conversation of " + std::to_string(conversation.size()) +
                                     " messages");
    }
    bool not_started = r.value("calls_not_started", false);
    return HostedMachine(AgentMachine::resuming(std::move(config), std::move(tools), std::move(system_prompt),
                                                std::move(conversation), run_start, nullptr, not_started));
  }
  KEEL_ASSIGN_OR_RETURN(std::string task, text_field(spec, "task", ""));
  if (task.empty()) return Status::InvalidArgument("'task' is missing or empty");
  KEEL_ASSIGN_OR_RETURN(std::vector<Message> earlier, messages_at(spec, "earlier"));
  if (earlier.empty())
    return HostedMachine(AgentMachine(std::move(config), std::move(tools), std::move(system_prompt), std::move(task)));
  return HostedMachine(
      AgentMachine(std::move(config), std::move(tools), std::move(system_prompt), std::move(earlier), std::move(task)));
}

json HostedMachine::start() {
  return json::parse(start_text());
}

json HostedMachine::step(const json& event) {
  // Ill-formed UTF-8 in the document becomes U+FFFD, as in the text the machine writes.
  return json::parse(step_text(event.dump(-1, ' ', false, json::error_handler_t::replace)));
}

std::string HostedMachine::start_text() {
  return present(machine_.start());
}

std::string HostedMachine::step_text(std::string_view event) {
  auto e = event_from_text(event);
  if (!e.ok()) return json{{"action", "error"}, {"error", "the event cannot be read: " + e.status().message()}}.dump();
  return present(machine_.step(*e));
}

json HostedMachine::state() const {
  json history = json::array();
  for (const Message& m : machine_.history()) history.push_back(chat_message_to_json(m));
  return {{"phase", agent_phase_name(machine_.phase())},
          {"rounds_used", machine_.rounds_used()},
          {"model_calls", machine_.model_calls()},
          {"run_start", machine_.run_start()},
          {"history", std::move(history)}};
}

void HostedMachine::append_request(std::string& out, const ModelRequest& r) {
  size_t shared = 0;
  if (incremental_) {
    std::vector<const Message*> messages;
    r.for_each_message([&](const Message& m) { messages.push_back(&m); });
    while (shared < messages.size() && shared < sent_.size() && same_message(sent_[shared], *messages[shared]))
      ++shared;
    sent_.resize(shared);
    for (size_t i = shared; i < messages.size(); ++i) sent_.push_back(*messages[i]);
  }
  bool rendered = false;
  if (r.tools_enabled) {
    const bool same = rendered_tools_.size() == r.tools.size() &&
                      std::equal(r.tools.begin(), r.tools.end(), rendered_tools_.begin(), same_definition);
    if (!same) {
      rendered_tools_.assign(r.tools.begin(), r.tools.end());
      rendered_tools_text_ = detail::tools_json_text(r.tools);
      rendered = true;
    }
  }
  // Incremental requests leave out the tools when the host holds them from the previous request.
  const bool as_before = incremental_ && r.tools_enabled && host_holds_tools_ && !rendered;
  host_holds_tools_ = r.tools_enabled;
  detail::append_model_request_json(out, r, shared, rendered_tools_text_, as_before);
}

std::string HostedMachine::present(const Decision& d) {
  detail::SortedJsonObject out;
  detail::add_decision_members(out, d);
  detail::append_json_string(out.member("phase"), agent_phase_name(machine_.phase()));
  detail::append_json_array(out.member("committed"), d.committed, detail::append_message_json);
  if (const auto* c = std::get_if<CallModel>(&d.action)) {
    append_request(out.member("request"), c->request);
    detail::append_json_int(out.member("context_window"), static_cast<std::int64_t>(c->context_window));
  } else if (const auto* p = std::get_if<CallPlanner>(&d.action)) {
    append_request(out.member("request"), p->request);
  } else if (const auto* s = std::get_if<Summarize>(&d.action)) {
    append_request(out.member("request"), s->request);
  }
  std::string text;
  out.append_to(text);
  return text;
}

}  // namespace keel
