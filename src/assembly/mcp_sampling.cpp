// An MCP server's sampling request served by keel's backend under the approval policy; see
// mcp_sampling.hpp.
#include "assembly/mcp_sampling.hpp"

#include <algorithm>
#include <mutex>
#include <optional>
#include <stop_token>
#include <utility>
#include <vector>

#include "assembly/stop_deadline.hpp"
#include "core/text/text_util.hpp"
#include "keel/core/approval_gate.hpp"
#include "runtime/approval_policy.hpp"

namespace keel::assembly {

namespace {

constexpr const char* kSamplingTool = "mcp_sampling";

// What a request asks for, checked and in keel's terms.
struct SamplingAsk {
  std::string system;
  std::vector<Message> messages;
  int max_tokens = 0;
  std::optional<double> temperature;
  std::vector<std::string> stop;
};

// The text of one message's content (a block or, since 2025-11-25, an array of blocks).
Result<std::string> content_text(const nlohmann::json& content, size_t index) {
  const nlohmann::json blocks = content.is_array() ? content : nlohmann::json::array({content});
  std::string text;
  for (const nlohmann::json& block : blocks) {
    const std::string type = block.is_object() ? block.value("type", "") : "";
    if (type != "text" || !block.contains("text") || !block["text"].is_string()) {
      return Status::InvalidArgument("keel's sampling takes text only; message " + std::to_string(index + 1) + " has " +
                                     (type.empty() ? std::string("content without a type") : type + " content"));
    }
    if (!text.empty()) text += "\n";
    text += block["text"].get<std::string>();
  }
  return text;
}

Result<SamplingAsk> read_request(const nlohmann::json& params) {
  if (!params.is_object()) return Status::InvalidArgument("sampling/createMessage params must be an object");
  if (params.contains("tools")) {
    return Status::InvalidArgument("keel does not offer tool use in sampling (it declares no sampling.tools)");
  }
  SamplingAsk ask;
  const nlohmann::json max_tokens = params.value("maxTokens", nlohmann::json());
  if (!max_tokens.is_number_integer() || max_tokens.get<int64_t>() < 1) {
    return Status::InvalidArgument("sampling/createMessage needs maxTokens, a positive integer");
  }
  ask.max_tokens = static_cast<int>(std::min<int64_t>(max_tokens.get<int64_t>(), kMaxSamplingTokens));
  const nlohmann::json messages = params.value("messages", nlohmann::json());
  if (!messages.is_array() || messages.empty()) {
    return Status::InvalidArgument("sampling/createMessage needs messages, a non-empty array");
  }
  for (size_t i = 0; i < messages.size(); ++i) {
    const nlohmann::json& m = messages[i];
    const std::string role = m.is_object() ? m.value("role", "") : "";
    if (role != "user" && role != "assistant") {
      return Status::InvalidArgument("sampling message " + std::to_string(i + 1) + " has role \"" + role +
                                     "\"; keel takes user and assistant");
    }
    KEEL_ASSIGN_OR_RETURN(std::string text, content_text(m.value("content", nlohmann::json()), i));
    ask.messages.push_back(role == "user" ? Message::user(std::move(text)) : Message::assistant(std::move(text)));
  }
  if (auto s = params.find("systemPrompt"); s != params.end() && s->is_string()) ask.system = s->get<std::string>();
  if (auto t = params.find("temperature"); t != params.end() && t->is_number()) ask.temperature = t->get<double>();
  if (auto stops = params.find("stopSequences"); stops != params.end() && stops->is_array()) {
    for (const nlohmann::json& s : *stops) {
      if (s.is_string()) ask.stop.push_back(s.get<std::string>());
    }
  }
  return ask;
}

// The request as the approval policy sees it: canonical JSON (sorted keys, no spaces).
std::string canonical_arguments(std::string_view server, const SamplingAsk& ask) {
  nlohmann::json messages = nlohmann::json::array();
  for (const Message& m : ask.messages) messages.push_back({{"role", role_name(m.role)}, {"text", m.content}});
  return nlohmann::json{
      {"server", server}, {"system", ask.system}, {"messages", messages}, {"max_tokens", ask.max_tokens}}
      .dump();
}

// Asks the person: Ok only for an explicit allow; otherwise PermissionDenied starting with
// `refused` and saying whether they denied it or no answer came (and why).
Status ask_person(UserAsker& asker, std::string_view server, const SamplingAsk& ask, const std::string& why,
                  const std::string& refused, std::chrono::milliseconds timeout) {
  UserQuestion q;
  q.question = "MCP server '" + std::string(server) + "' asks to use keel's model for a reply of up to " +
               std::to_string(ask.max_tokens) + " tokens (" + why + ").";
  if (!ask.system.empty()) q.question += "\nSystem prompt: " + detail::shorten(ask.system, 300);
  const Message& last = ask.messages.back();
  q.question += "\nLast message (" + std::string(role_name(last.role)) + "): " + detail::shorten(last.content, 500);
  q.question += "\nAllow it?";
  q.options = {"allow", "deny"};
  q.allow_free_text = false;
  std::stop_source stop;
  StopDeadline deadline(stop, timeout);
  Result<UserAnswer> answer = asker.ask(q, stop.get_token());
  if (!answer.ok()) {
    if (stop.stop_requested()) {
      return Status::PermissionDenied(refused + "nobody answered within " + std::to_string(timeout.count() / 1000) +
                                      " s");
    }
    return Status::PermissionDenied(refused + "nobody could be asked (" + answer.status().message() + ")");
  }
  if (answer->option_index != 0u) return Status::PermissionDenied(refused + "the person asked did not allow it");
  return Status::Ok();
}

// The state every call of one hook shares.
struct SamplingService {
  SamplingSetup setup;
  std::mutex mu;  // one request at a time; guards model
  std::unique_ptr<LlmClient> model;

  Status approve(std::string_view server, const SamplingAsk& ask) {
    KEEL_ASSIGN_OR_RETURN(auto gate,
                          detail::load_approval_gate(setup.approvals, Risk::kHigh, setup.store, setup.workspace));
    ToolSpec spec;
    spec.name = kSamplingTool;
    spec.risk = Risk::kHigh;
    const std::string args = canonical_arguments(server, ask);
    const GateVerdict verdict = gate->check(ToolCall{"sampling", kSamplingTool, args}, args, spec);
    const std::string refused = "MCP server '" + std::string(server) + "' may not use keel's model: ";
    if (verdict.kind == GateVerdict::Kind::kAllow) return Status::Ok();
    if (verdict.kind == GateVerdict::Kind::kDeny) return Status::PermissionDenied(refused + verdict.reason);
    const std::string why = verdict.reason.empty() ? "approvals for mcp_sampling say to ask" : verdict.reason;
    if (!setup.asker) {
      return Status::PermissionDenied(refused + "it needs confirmation (" + why +
                                      ") and nobody can be asked here; allow it with approvals: tools: "
                                      "mcp_sampling: {mode: auto} in keel.yaml");
    }
    return ask_person(*setup.asker, server, ask, why, refused, setup.question_timeout);
  }

  Result<nlohmann::json> serve(std::string_view server, const nlohmann::json& params) {
    KEEL_ASSIGN_OR_RETURN(SamplingAsk ask, read_request(params));
    std::lock_guard lock(mu);
    KEEL_TRY(approve(server, ask));
    if (!model) {
      if (!setup.make_model) return Status::FailedPrecondition("keel has no model to sample with");
      KEEL_ASSIGN_OR_RETURN(model, setup.make_model());
    }
    std::vector<Message> history;
    if (!ask.system.empty()) history.push_back(Message::system(ask.system));
    history.insert(history.end(), ask.messages.begin(), ask.messages.end());
    ModelRequest request;
    request.history = history;
    request.tools_enabled = false;
    request.sampling.max_tokens = ask.max_tokens;
    request.sampling.temperature = ask.temperature;
    request.sampling.stop = ask.stop;
    CallOptions options;
    options.stream = false;
    Result<ModelReply> reply = model->complete(request, options);
    if (!reply.ok()) {
      // Unavailable whatever the backend said: its 403 is not the person's refusal (-1).
      return Status::Unavailable("keel's model could not answer MCP server '" + std::string(server) +
                                 "': " + reply.status().message());
    }
    if (reply->text.empty()) {
      return Status::Internal("keel's model gave an empty reply to MCP server '" + std::string(server) + "'");
    }
    return nlohmann::json{{"role", "assistant"},
                          {"content", {{"type", "text"}, {"text", reply->text}}},
                          {"model", reply->model.empty() ? model->describe() : reply->model},
                          {"stopReason", reply->finish_reason == "length" ? "maxTokens" : "endTurn"}};
  }
};

}  // namespace

SamplingHook sampling_through_backend(SamplingSetup setup) {
  auto service = std::make_shared<SamplingService>();
  service->setup = std::move(setup);
  return [service](std::string_view server, const nlohmann::json& params) { return service->serve(server, params); };
}

}  // namespace keel::assembly
