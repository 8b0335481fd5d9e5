#include "api/anthropic_endpoint.hpp"

#include <algorithm>
#include <exception>
#include <memory>
#include <stop_token>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "api/anthropic_reply.hpp"
#include "api/anthropic_request.hpp"
#include "api/anthropic_stream.hpp"
#include "api/client_agent.hpp"
#include "api/idempotent_replies.hpp"
#include "core/text/text_util.hpp"

namespace keel::api {
namespace anthropic_endpoint_detail {

constexpr std::string_view kMessagesRoute = "/v1/messages";

// What every handler shares; lives as long as the route.
struct MessagesEndpoint {
  AgentFactory& factory;
  detail::ThreadPool& workers;
  ApiAccess access;
  MessagesEndpointOptions options;
  std::shared_ptr<IdempotentReplies> replies;  // Idempotency-Key: a retry gets the first answer
};

AnthropicError profile_not_found(const std::string& name, const std::vector<ProfileInfo>& profiles) {
  AnthropicError e;
  e.status = 404;
  e.type = "not_found_error";
  e.field = "model";
  e.message = detail::concat({"model: '", name, "' names no keel profile. Profiles here: "});
  for (size_t i = 0; i < profiles.size(); ++i) {
    if (i > 0) e.message.append(", ");
    e.message.append(profiles[i].name);
  }
  return e;
}

// A run that could not start: InvalidArgument is the conversation's fault (400); anything else is
// keel's (500 api_error; nothing ran, so a retry is harmless).
AnthropicError start_error(std::string_view what, const Status& status) {
  AnthropicError e;
  if (status.code() == ErrorCode::kInvalidArgument) {
    e.field = "messages";
    e.message = detail::concat({"messages: ", status.message()});
    return e;
  }
  e.status = 500;
  e.type = "api_error";
  e.message = detail::concat({what, ": ", status.message()});
  return e;
}

// Notes the last model reply's finish reason, for stop_reason "max_tokens".
class LastFinishReason final : public Hooks {
 public:
  void on_model_reply(RunContext&, const ModelReply& reply) override { last_finish_ = reply.finish_reason; }
  const std::string& last_finish() const { return last_finish_; }

 private:
  std::string last_finish_;
};

// One request, run on a worker.
struct MessagesJob {
  MessagesRequest request;
  MessageIds ids;
  server::HttpHeaders headers;  // CORS headers for the answer
};

void answer_error(server::HttpResponder& out, MessagesStreamRelay* relay, const MessagesJob& job,
                  const AnthropicError& error) {
  if (relay != nullptr) {
    relay->fail(error);
  } else {
    respond_anthropic_error(out, error, job.headers);
  }
}

void run_messages(const MessagesEndpoint& endpoint, MessagesJob& job, const std::shared_ptr<server::HttpResponder>& out,
                  std::stop_token stop) {
  if (stop.stop_requested()) return;  // the client left while the run was queued
  ClientAgent leased = lease_client_agent(endpoint.factory,
                                          {job.request.model, job.request.sampling, std::move(job.request.tools),
                                           job.request.tool_choice},
                                          endpoint.options.approval_denied_reason);
  if (!leased.lease_error.ok()) {
    answer_error(*out, nullptr, job, start_error("the agent for this model could not be set up", leased.lease_error));
    return;
  }
  if (!leased.tools_error.ok()) {
    AnthropicError e;
    e.field = "tools";
    e.message = detail::concat({"tools: ", leased.tools_error.message()});
    answer_error(*out, nullptr, job, e);
    return;
  }
  Agent& agent = *leased.lease->agent;
  auto finish_reasons = std::make_shared<LastFinishReason>();
  agent.add_hooks(finish_reasons);
  std::shared_ptr<MessagesStreamRelay> relay;
  if (job.request.stream) {
    relay = std::make_shared<MessagesStreamRelay>(out, job.ids, endpoint.options.tool_pings);
    agent.add_hooks(relay);
    relay->start(job.headers);
  }
  Result<RunOutcome> result = agent.run_after(std::move(job.request.earlier), job.request.task, stop);
  if (!result.ok()) {
    answer_error(*out, relay.get(), job, start_error("the run could not start", result.status()));
  } else if (!result->ok) {
    answer_error(*out, relay.get(), job, messages_run_failed_error(*result));
  } else if (relay) {
    relay->finish(*result, stop_reason_of(*result, finish_reasons->last_finish()));
  } else {
    server::respond_json(*out, 200, message_body(job.ids, *result, stop_reason_of(*result, finish_reasons->last_finish())),
                         job.headers);
  }
}

// Checks the request on the io thread (cheap) and hands the run to a worker. The anthropic-version
// and anthropic-beta headers are not read: this endpoint has one behaviour.
void handle_messages(const std::shared_ptr<const MessagesEndpoint>& endpoint, const server::HttpRequest& request,
                     std::shared_ptr<server::HttpResponder> out) {
  out = endpoint->replies->claim(request, std::move(out));
  if (!out) return;  // a retry answered with the first run's answer
  auto job = std::make_shared<MessagesJob>();
  job->headers = cors_headers(request, endpoint->access);
  std::variant<MessagesRequest, AnthropicError> parsed = parse_messages_request(request.body);
  if (const auto* error = std::get_if<AnthropicError>(&parsed)) {
    respond_anthropic_error(*out, *error, job->headers);
    return;
  }
  job->request = std::get<MessagesRequest>(std::move(parsed));
  const std::vector<ProfileInfo> profiles = endpoint->factory.profiles();
  const bool known = std::any_of(profiles.begin(), profiles.end(),
                                 [&](const ProfileInfo& p) { return p.name == job->request.model; });
  if (!known) {
    respond_anthropic_error(*out, profile_not_found(job->request.model, profiles), job->headers);
    return;
  }
  job->ids.id = new_message_id();
  job->ids.model = job->request.model;
  // The callback holds the stop state only, not the responder (which holds the callback).
  std::stop_source stop;
  out->on_close([stop]() mutable { stop.request_stop(); });
  endpoint->workers.submit([endpoint, job, out = std::move(out), stop] {
    try {
      run_messages(*endpoint, *job, out, stop.get_token());
    } catch (const std::exception& e) {  // nothing below should throw; a client still gets an answer
      AnthropicError error;
      error.status = 500;
      error.type = "api_error";
      error.message = detail::concat({"the run failed unexpectedly: ", e.what()});
      respond_anthropic_error(*out, error, job->headers);
    }
  });
}

}  // namespace anthropic_endpoint_detail

Status mount_anthropic_endpoint(server::HttpServer& http, AgentFactory& factory, detail::ThreadPool& workers,
                                const ApiAccess& access, MessagesEndpointOptions options) {
  namespace impl = anthropic_endpoint_detail;
  if (http.port() != 0) {
    return Status::FailedPrecondition(
        "the /v1/messages endpoint must be mounted before the server starts; call mount_anthropic_endpoint before "
        "HttpServer::start()");
  }
  auto endpoint = std::make_shared<const impl::MessagesEndpoint>(impl::MessagesEndpoint{factory, workers, access, std::move(options), std::make_shared<IdempotentReplies>()});
  http.route("POST", std::string(impl::kMessagesRoute),
             [endpoint](const server::HttpRequest& request, std::shared_ptr<server::HttpResponder> out) {
               impl::handle_messages(endpoint, request, std::move(out));
             });
  mount_preflight(http, std::string(impl::kMessagesRoute), access,
                  "x-api-key, anthropic-version, anthropic-beta, anthropic-dangerous-direct-browser-access");
  return Status::Ok();
}

}  // namespace keel::api
