// register_a2a_tools(): one a2a_NAME tool per configured remote agent; see keel/a2a_tools.hpp.
#include "keel/a2a_tools.hpp"

#include <algorithm>
#include <climits>
#include <memory>
#include <set>
#include <thread>
#include <utility>

#include "core/text/utf8_text.hpp"
#include "keel/tool.hpp"
#include "keel/tool_registry.hpp"
#include "tools/a2a/a2a_answer.hpp"
#include "tools/a2a/a2a_client.hpp"

namespace keel {
namespace {

constexpr const char* kA2aToolSchema = R"({
  "type": "object",
  "properties": {
    "message": {"type": "string", "minLength": 1, "description": "What to send the agent: a task, a question, or the answer to a question it asked"},
    "context_id": {"type": "string", "description": "The context_id of an earlier answer of this agent, to continue that conversation (and answer its question); leave out to start a new one"}
  },
  "required": ["message"],
  "additionalProperties": false
})";

class A2aTool final : public Tool {
 public:
  A2aTool(ToolSpec spec, std::shared_ptr<detail::A2aClient> client, size_t max_output_bytes)
      : spec_(std::move(spec)), client_(std::move(client)), max_output_bytes_(max_output_bytes) {}

  const ToolSpec& spec() const override { return spec_; }

  Result<std::string> execute(const nlohmann::json& args, const ToolContext& ctx) override {
    const std::string message = args.value("message", std::string());
    const std::string context_id = args.value("context_id", std::string());
    if (message.empty()) return Status::InvalidArgument("message must not be empty: say what the agent should do");
    KEEL_ASSIGN_OR_RETURN(detail::A2aReply reply, client_->ask(message, context_id, ctx.stop));
    return detail::a2a_answer(reply, client_->options().agent.name, spec_.name, max_output_bytes_);
  }

 private:
  const ToolSpec spec_;
  const std::shared_ptr<detail::A2aClient> client_;
  const size_t max_output_bytes_;
};

Status check_a2a_options(const A2aToolOptions& o) {
  for (int64_t v : {o.card_timeout_ms, o.connect_timeout_ms, o.cancel_timeout_ms, o.poll_initial_ms, o.poll_max_ms}) {
    if (v < 1) return Status::InvalidArgument("a2a tool options: every timeout and poll interval must be >= 1 ms");
  }
  if (o.max_response_bytes == 0 || o.max_output_bytes == 0) {
    return Status::InvalidArgument("a2a tool options: max_response_bytes and max_output_bytes must be > 0");
  }
  return Status::Ok();
}

// The client of `agent`, with its token looked up in `env`.
std::shared_ptr<detail::A2aClient> make_a2a_client(const A2aAgentConfig& agent, const A2aToolOptions& options) {
  detail::A2aClientOptions co;
  co.agent = agent;
  if (!agent.token_env.empty()) {
    auto it = options.env.find(agent.token_env);
    if (it == options.env.end() || it->second.empty()) {
      co.token_problem = "its token_env " + agent.token_env + " is not set (or empty); export it, or drop token_env";
    } else if (it->second.find_first_of("\r\n") != std::string::npos) {
      co.token_problem = "its token in $" + agent.token_env + " holds a line break, which cannot go in a header";
    } else {
      co.token = it->second;
    }
  }
  co.connect_timeout_ms = options.connect_timeout_ms;
  co.cancel_timeout_ms = options.cancel_timeout_ms;
  co.poll_initial_ms = options.poll_initial_ms;
  co.poll_max_ms = options.poll_max_ms;
  return std::make_shared<detail::A2aClient>(std::move(co),
                                             detail::make_a2a_http(options.max_response_bytes, agent.url));
}

// The description of a tool whose card could not be read at registration.
std::string a2a_fallback_description(const A2aAgentConfig& agent, const Status& why) {
  std::string reason = detail::sanitize_utf8(why.message());
  for (char& c : reason) {
    if (static_cast<unsigned char>(c) < 0x20) c = ' ';
  }
  if (reason.size() > 300) reason = reason.substr(0, detail::utf8_cut_length(reason, 300)) + "...";
  return "Ask the remote agent '" + agent.name + "' (" + agent.url +
         ") over A2A and get its answer. Its agent card could not be read at start-up (" + reason +
         "); a call tries again. Pass the context_id of an earlier answer to continue that conversation.";
}

}  // namespace

Status register_a2a_tools(ToolRegistry& registry, const A2aToolOptions& options) {
  KEEL_TRY(check_a2a_options(options));
  std::set<std::string> names;
  for (const A2aAgentConfig& agent : options.agents) {
    const std::string where =
        "a2a_agents '" + agent.name + "'" + (agent.source.empty() ? "" : " (" + agent.source + ")");
    if (Status s = check_a2a_agent_config(agent); !s.ok()) return Status::InvalidArgument(where + ": " + s.message());
    if (!names.insert(agent.name).second) return Status::InvalidArgument(where + ": the name is used twice");
  }
  std::vector<std::shared_ptr<detail::A2aClient>> clients;
  for (const A2aAgentConfig& agent : options.agents) clients.push_back(make_a2a_client(agent, options));

  // The cards, read side by side: start-up waits at most card_timeout_ms for all of them.
  std::vector<Status> card_status(clients.size());
  if (options.fetch_cards) {
    std::vector<std::thread> readers;
    for (size_t i = 0; i < clients.size(); ++i) {
      readers.emplace_back([&, i] {
        Result<detail::A2aCard> card = clients[i]->card(options.card_timeout_ms, {});
        card_status[i] = card.ok() ? Status::Ok() : card.status();
      });
    }
    for (std::thread& t : readers) t.join();
  }

  for (size_t i = 0; i < clients.size(); ++i) {
    const A2aAgentConfig& agent = options.agents[i];
    ToolSpec spec;
    spec.name = "a2a_" + agent.name;
    if (!options.fetch_cards) {
      spec.description = "Ask the remote agent '" + agent.name + "' (" + agent.url +
                         ") over A2A and get its answer. Pass the context_id of an earlier answer to continue that "
                         "conversation.";
    } else if (!card_status[i].ok()) {
      spec.description = a2a_fallback_description(agent, card_status[i]);
    } else {
      Result<detail::A2aCard> card = clients[i]->card(options.card_timeout_ms, {});  // cached by now
      spec.description =
          card.ok() ? detail::a2a_card_description(*card, agent.name) : a2a_fallback_description(agent, card.status());
    }
    spec.parameters_schema = kA2aToolSchema;
    spec.read_only = false;
    spec.concurrency_safe = false;
    spec.risk = Risk::kMedium;
    spec.cacheable = false;
    // The call's own limits end it first (and cancel the remote task); the executor's is the backstop.
    const int64_t limit = agent.timeout_ms + options.card_timeout_ms + options.cancel_timeout_ms + 2000;
    spec.timeout_ms = static_cast<int>(std::min<int64_t>(limit, INT_MAX));
    KEEL_TRY(registry.add(std::make_unique<A2aTool>(std::move(spec), clients[i], options.max_output_bytes)));
  }
  return Status::Ok();
}

}  // namespace keel
